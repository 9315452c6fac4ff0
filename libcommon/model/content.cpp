#include "model/content.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstring>
#include <limits>
#include <utility>

#include "io/text.h"

namespace msdt::model {

std::string dims_text(const std::vector<uint64_t>& dims) {
  return fmt::format("[{}]", fmt::join(dims, ", "));
}

Status set_expected_bytes(Content& c) {
  c.expected_bytes.reset();
  MSDT_TRY(uint64_t count, element_count(c.shape));
  c.expected_bytes = dtype_bytes(*c.dtype, count);
  if (!c.expected_bytes)
    return Error(fmt::format("{} elements of {} need more than 2^64 bytes", count,
                             c.spelling.empty() ? dtype_name(*c.dtype) : c.spelling));
  return std::nullopt;
}

uint64_t Content::bytes() const {
  uint64_t total = 0;
  for (const Segment& s : segments)
    total = checked_add(total, s.length).value_or(std::numeric_limits<uint64_t>::max());
  return total;
}

uint64_t Content::elements() const {
  if (dtype == DType::String) return bytes() / 4;
  uint64_t count = 1;
  for (uint64_t d : shape)
    count = checked_mul(count, d).value_or(std::numeric_limits<uint64_t>::max());
  return count;
}

Expected<TensorData> gather(Bytes file, const Content& content, DType dtype,
                            std::vector<uint64_t> shape) {
  TensorData out;
  out.view_.dtype = dtype;
  out.view_.shape = std::move(shape);
  for (const Segment& s : content.segments) {
    auto end = checked_add(s.offset, s.length);
    if (!end || *end > file.size())
      return Error::at_offset(s.offset, fmt::format("tensor_content of {} bytes goes past the end "
                                                    "of the file ({} bytes)",
                                                    s.length, file.size()));
  }
  if (content.segments.size() == 1) {
    const Segment& s = content.segments[0];
    out.view_.data = file.subspan(s.offset, s.length);
    return out;
  }
  // Several slices (spec §4.2): joined in file order, as the loader's b"".join does.
  out.owned_.resize(content.bytes());
  size_t pos = 0;
  for (const Segment& s : content.segments) {
    if (s.length != 0) std::memcpy(out.owned_.data() + pos, file.data() + s.offset, s.length);
    pos += s.length;
  }
  out.view_.data = out.owned_;
  return out;
}

Expected<TensorData> tensor_data(Bytes file, const Content& content) {
  const uint64_t at = content.segments.empty() ? 0 : content.segments.front().offset;
  if (!content.dtype || *content.dtype == DType::String)
    return Error::at_offset(at, fmt::format("tensor_type {} has no element layout",
                                            quote_for_message(content.spelling)));
  if (!content.expected_bytes || !content.consistent())
    return Error::at_offset(
        at, fmt::format("content holds {} bytes, dims {} {} need {}", content.bytes(),
                        dims_text(content.dims), content.spelling,
                        content.expected_bytes ? fmt::to_string(*content.expected_bytes)
                                               : std::string("more than 2^64")));
  return gather(file, content, *content.dtype, content.shape);
}

Expected<TensorData> raw_data(Bytes file, const Content& content) {
  return gather(file, content, DType::UInt8, {content.bytes()});
}

TensorData owned_tensor(DType dtype, std::vector<uint64_t> shape, std::vector<std::byte> bytes) {
  TensorData out;
  out.view_.dtype = dtype;
  out.view_.shape = std::move(shape);
  out.owned_ = std::move(bytes);
  out.view_.data = out.owned_;
  return out;
}

}  // namespace msdt::model
