// Writing one tensor out: as a standard .npy (header, then the elements converted to their npy
// dtype), as its raw bytes, or as text, to an atomic file (copying in the kernel from the mapped
// source where it can) or to standard output. dump-convert plans its outputs as PlannedOutputs
// and writes each with write_output; ckpt-inspect --export writes each tensor the same way.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "dump/convert.h"
#include "io/output_file.h"
#include "tensor/dtype.h"

namespace msdt::dump {

// One output of a source, decided before anything is written.
struct PlannedOutput {
  enum class Kind {
    CopyWhole,  // the source's bytes as they are (a standard .npy)
    Npy,        // `view` as a standard .npy (elements converted to their npy dtype)
    Raw,        // `view.data` as it is (-t bin, buffers, workspaces)
    Text        // `text` (overflow JSON)
  };
  OutputName name;
  Kind kind = Kind::Raw;
  TensorView view{DType::UInt8, {}, {}};          // Npy: elements; Raw: the bytes
  std::shared_ptr<std::vector<std::byte>> owned;  // bytes `view` points into, when not the source's
  std::string text;
};

// Where the bytes of one output go.
class Sink {
 public:
  virtual ~Sink() = default;
  virtual Status write(Bytes data) = 0;
  // Two pieces at once (an npy header and a small payload).
  virtual Status write(Bytes first, Bytes second) = 0;
  // `region` lies inside the source file's bytes, which may be copied in the kernel.
  virtual Status copy(Bytes region) = 0;
};

// Writes the body of `out` (`source` is the whole source file, for CopyWhole).
Status write_output(const PlannedOutput& out, Bf16Mode bf16, Bytes source, Sink& sink);

// An AtomicFile; `source_fd` (or -1) is the open source whose bytes start at `source_base`.
class FileSink final : public Sink {
 public:
  FileSink(AtomicFile& file, int source_fd, const std::byte* source_base)
      : file_(file), source_fd_(source_fd), source_base_(source_base) {}
  Status write(Bytes data) override { return note(file_.write(data)); }
  Status write(Bytes first, Bytes second) override { return note(file_.write(first, second)); }
  Status copy(Bytes region) override;
  // Whether a failure came from writing (exit 3) rather than from the input's elements.
  bool output_failed() const { return output_failed_; }

 private:
  Status note(Status status) {
    if (status) output_failed_ = true;
    return status;
  }

  AtomicFile& file_;
  int source_fd_;
  const std::byte* source_base_;
  bool output_failed_ = false;
};

// Standard output (`-out -`).
class StdoutSink final : public Sink {
 public:
  Status write(Bytes data) override;
  Status write(Bytes first, Bytes second) override;
  Status copy(Bytes region) override { return write(region); }
};

}  // namespace msdt::dump
