// Streaming pieces shared by the benchmark generators (README.md, "Generated trees" and
// "Generated checkpoints"): a file written in pieces, and the blocks of random elements their
// tensors are cut from, so that memory does not grow with total_bytes.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "elements.h"
#include "tensor/dtype.h"

namespace msdt::fixture {

class OutputStream {
 public:
  explicit OutputStream(const std::filesystem::path& path) : path_(path) {
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd_ < 0) fail("cannot create");
  }
  ~OutputStream() {
    if (fd_ >= 0) ::close(fd_);
  }
  OutputStream(const OutputStream&) = delete;
  OutputStream& operator=(const OutputStream&) = delete;

  void write(std::span<const std::byte> bytes) {
    size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) fail("cannot write");
      done += static_cast<size_t>(n);
    }
  }
  void write(std::string_view text) { write(std::as_bytes(std::span(text.data(), text.size()))); }
  void close() {
    if (::close(fd_) != 0) fail("cannot write");
    fd_ = -1;
  }

 private:
  [[noreturn]] void fail(const char* what) {
    throw DescriptionError(std::string(what) + " '" + path_.string() +
                           "': " + std::strerror(errno));
  }
  std::filesystem::path path_;
  int fd_ = -1;
};

// Tensor data: one block of 256 Ki random elements per dtype, written from a different starting
// element for each tensor and wrapping around. Realistic enough for readers and converters, and
// cheap enough that writing gigabytes is limited by the disk rather than the generator.
// With "perturb", the floating-point blocks are perturbed once (elements.h Perturbation, its seed
// mixed with the dtype like the block's), so every tensor is an element-wise perturbed copy of the
// tensor the same description without "perturb" writes, at no cost per byte written.
class ElementBlocks {
 public:
  ElementBlocks(uint64_t seed, std::optional<Perturbation> perturb)
      : seed_(seed), perturb_(perturb) {}

  // `count` elements of the tensor numbered `tensor_index`, from its element `first` on (the
  // slices of one checkpoint parameter), handed to `out.write` in pieces.
  template <typename Sink>
  void write(Sink& out, DType dtype, uint64_t count, uint64_t tensor_index, uint64_t first = 0) {
    const std::vector<std::byte>& block = get(dtype);
    const uint64_t item = dtype_bits(dtype) / 8;
    const uint64_t elements = block.size() / item;
    uint64_t start = (tensor_index * 4099 % elements + first % elements) % elements * item;
    uint64_t left = count * item;
    while (left > 0) {
      uint64_t n = std::min<uint64_t>(left, block.size() - start);
      out.write(std::span(block.data() + start, n));
      left -= n;
      start = 0;
    }
  }

 private:
  const std::vector<std::byte>& get(DType dtype) {
    auto& block = blocks_[static_cast<size_t>(dtype)];
    if (block.empty()) {
      ValueSpec spec;
      spec.fill = ValueSpec::Fill::Random;
      spec.seed = seed_ ^ static_cast<uint64_t>(dtype);
      if (dtype == DType::Int32) spec.low = -1000, spec.high = 1000;
      if (perturb_ && perturbable(dtype)) {
        spec.perturb = *perturb_;
        spec.perturb->seed ^= static_cast<uint64_t>(dtype);
      }
      block = encode_elements(dtype, spec, 256 * 1024);
    }
    return block;
  }
  uint64_t seed_;
  std::optional<Perturbation> perturb_;
  std::vector<std::byte> blocks_[64];
};

}  // namespace msdt::fixture
