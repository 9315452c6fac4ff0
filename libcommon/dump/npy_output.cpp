// Writing one planned output: a standard .npy header and the elements (converted in bounded
// chunks when their dtype changes), raw bytes, or text.
#include "dump/npy_output.h"

#include <fmt/format.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "io/report.h"
#include "tensor/element_convert.h"
#include "tensor/npy.h"

namespace msdt::dump {
namespace {

// Elements converted per step when a dtype must change (bf16 -> f32, int4 -> int8): at most a few
// MiB per worker whatever the tensor size.
constexpr uint64_t kConvertChunkElements = 256 * 1024;

// Below this, the source's bytes are written from memory: copy_file_range costs more than it
// saves on a small region (measured on tmpfs, where it falls back to splicing).
constexpr uint64_t kKernelCopyThreshold = 256 * 1024;

Bytes as_bytes(std::string_view text) {
  return {reinterpret_cast<const std::byte*>(text.data()), text.size()};
}

Status write_all_fd(int fd, Bytes data) {
  const std::byte* p = data.data();
  uint64_t left = data.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      // A closed pipe ends the tool at once and quietly with status 3, as for every tool's
      // standard output (io/stdout.h); `-out -` writes no temporaries that would need removing.
      if (errno == EPIPE) ::_exit(kExitOutput);
      return Error{fmt::format("cannot write to standard output: {}", std::strerror(errno))};
    }
    p += n;
    left -= static_cast<uint64_t>(n);
  }
  return std::nullopt;
}

}  // namespace

Status FileSink::copy(Bytes region) {
  if (source_fd_ < 0 || region.size() < kKernelCopyThreshold) return write(region);
  return note(file_.copy_from(source_fd_, static_cast<uint64_t>(region.data() - source_base_),
                              region.size()));
}

Status StdoutSink::write(Bytes data) { return write_all_fd(STDOUT_FILENO, data); }

Status StdoutSink::write(Bytes first, Bytes second) {
  MSDT_CHECK(write(first));
  return write(second);
}

Status write_output(const PlannedOutput& out, Bf16Mode bf16, Bytes source, Sink& sink) {
  switch (out.kind) {
    case PlannedOutput::Kind::CopyWhole:
      return sink.copy(source);
    case PlannedOutput::Kind::Text:
      return sink.write(as_bytes(out.text));
    case PlannedOutput::Kind::Raw:
      return out.owned ? sink.write(out.view.data) : sink.copy(out.view.data);
    case PlannedOutput::Kind::Npy:
      break;
  }
  const TensorView& view = out.view;
  std::optional<DType> storage = npy_storage_dtype(view.dtype, bf16);
  if (!storage)
    return Error{fmt::format("dtype {} has no .npy representation", dtype_name(view.dtype))};
  // Every .npy written loads in NumPy (tensor/npy.h): a tensor it would refuse is not written.
  MSDT_CHECK(check_npy_loadable(*storage, view.shape));
  std::string header = make_npy_header(*storage, view.shape);
  if (stored_as_is(view.dtype, bf16)) {
    // Header and elements in one writev when the elements are small or already in memory.
    if (out.owned || view.data.size() < kKernelCopyThreshold)
      return sink.write(as_bytes(header), view.data);
    MSDT_CHECK(sink.write(as_bytes(header)));
    return sink.copy(view.data);
  }
  MSDT_CHECK(sink.write(as_bytes(header)));
  MSDT_TRY(uint64_t count, element_count(view.shape));
  std::vector<std::byte> chunk;
  for (uint64_t first = 0; first < count; first += kConvertChunkElements) {
    chunk.clear();
    MSDT_CHECK(
        convert_elements(view, first, std::min(kConvertChunkElements, count - first), bf16, chunk));
    MSDT_CHECK(sink.write(chunk));
  }
  return std::nullopt;
}

}  // namespace msdt::dump
