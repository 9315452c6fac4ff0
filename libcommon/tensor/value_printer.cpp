#include "tensor/value_printer.h"

#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <string>

namespace msdt {
namespace {

constexpr uint64_t kEdgeItems = 3;  // np.set_printoptions(edgeitems=3), NumPy's default

// NumPy spells non-finite values without a sign on NaN, and makes every float visibly a float
// ("1." rather than "1"), which the shortest round-trip form alone does not do.
template <class F>
std::string format_float(F value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  std::string text = fmt::format("{}", value);
  if (text.find('.') == std::string::npos) {
    size_t exponent = text.find('e');
    text.insert(exponent == std::string::npos ? text.size() : exponent, ".");
  }
  return text;
}

template <class F>
std::string format_complex(F real, F imag) {
  std::string im = format_float(imag);
  if (im[0] != '-') im.insert(0, "+");
  return format_float(real) + im + "j";
}

template <class T>
T load(const std::byte* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));  // every supported host is little-endian (dump spec §0)
  return value;
}

// The text of element `i`, or nothing for dtypes whose encoding we do not decode.
std::optional<std::string> format_element(DType dtype, const std::byte* d, uint64_t i) {
  auto byte_at = [&](uint64_t k) { return static_cast<uint8_t>(d[k]); };
  switch (dtype) {
    case DType::Bool:
      return byte_at(i) ? "True" : "False";
    case DType::Int8:
      return fmt::format("{}", load<int8_t>(d + i));
    case DType::UInt8:
      return fmt::format("{}", byte_at(i));
    case DType::Int16:
      return fmt::format("{}", load<int16_t>(d + 2 * i));
    case DType::UInt16:
      return fmt::format("{}", load<uint16_t>(d + 2 * i));
    case DType::Int32:
      return fmt::format("{}", load<int32_t>(d + 4 * i));
    case DType::UInt32:
      return fmt::format("{}", load<uint32_t>(d + 4 * i));
    case DType::Int64:
      return fmt::format("{}", load<int64_t>(d + 8 * i));
    case DType::UInt64:
      return fmt::format("{}", load<uint64_t>(d + 8 * i));
    case DType::Float16:
      return format_float(half_to_float(load_u16le(d + 2 * i)));
    case DType::BFloat16:
      return format_float(bfloat16_to_float(load_u16le(d + 2 * i)));
    case DType::Float32:
      return format_float(load<float>(d + 4 * i));
    case DType::Float64:
      return format_float(load<double>(d + 8 * i));
    case DType::Float8E4M3FN:
      return format_float(float8_e4m3fn_to_float(byte_at(i)));
    case DType::Float8E5M2:
      return format_float(float8_e5m2_to_float(byte_at(i)));
    case DType::Complex32:
      return format_complex(half_to_float(load_u16le(d + 4 * i)),
                            half_to_float(load_u16le(d + 4 * i + 2)));
    case DType::Complex64:
      return format_complex(load<float>(d + 8 * i), load<float>(d + 8 * i + 4));
    case DType::Complex128:
      return format_complex(load<double>(d + 16 * i), load<double>(d + 16 * i + 8));
    case DType::Int4: {
      // Low nibble first, sign-extended (dump spec §5.2).
      unsigned nibble = (byte_at(i / 2) >> (4 * (i % 2))) & 0xFu;
      return fmt::format("{}", static_cast<int>(nibble ^ 8u) - 8);
    }
    case DType::UInt1:  // most significant bit first, as np.unpackbits
      return fmt::format("{}", (byte_at(i / 8) >> (7 - i % 8)) & 1u);
    default:
      return std::nullopt;
  }
}

class Printer {
 public:
  Printer(const TensorView& tensor, bool summarise)
      : tensor_(tensor), summarise_(summarise), strides_(tensor.shape.size(), 1) {
    for (size_t axis = tensor.shape.size(); axis-- > 1;)
      strides_[axis - 1] = strides_[axis] * tensor.shape[axis];
  }

  size_t width() {
    size_t width = 0;
    visit(0, 0, [&](uint64_t index) {
      width = std::max(width, format_element(tensor_.dtype, tensor_.data.data(), index)->size());
    });
    return width;
  }

  // numpy/core/arrayprint.py _formatArray with separator ' ', without line wrapping.
  std::string format(size_t axis, uint64_t base, const std::string& indent, size_t width) {
    uint64_t length = tensor_.shape[axis];
    bool summary = summarise_ && length > 2 * kEdgeItems;
    size_t axes_left = tensor_.shape.size() - axis;
    std::string separator = axes_left == 1 ? " " : std::string(axes_left - 1, '\n');
    std::string next_indent = indent + ' ';
    std::string s;
    bool first = true;
    auto add = [&](std::string item) {
      if (!first) s += separator + (axes_left == 1 ? "" : indent);
      first = false;
      s += item;
    };
    auto item = [&](uint64_t i) {
      uint64_t index = base + i * strides_[axis];
      if (axes_left == 1) {
        std::string text = *format_element(tensor_.dtype, tensor_.data.data(), index);
        return std::string(width - std::min(width, text.size()), ' ') + text;
      }
      return format(axis + 1, index, next_indent, width);
    };
    for (uint64_t i = 0; i < length; ++i) {
      if (summary && i == kEdgeItems) {
        add("...");
        i = length - kEdgeItems - 1;
        continue;
      }
      add(item(i));
    }
    return "[" + s + "]";
  }

 private:
  template <class F>
  void visit(size_t axis, uint64_t base, F&& fn) {
    if (axis == tensor_.shape.size()) return fn(base);
    uint64_t length = tensor_.shape[axis];
    bool summary = summarise_ && length > 2 * kEdgeItems;
    for (uint64_t i = 0; i < length; ++i) {
      if (summary && i == kEdgeItems) i = length - kEdgeItems;
      visit(axis + 1, base + i * strides_[axis], fn);
    }
  }

  const TensorView& tensor_;
  bool summarise_;
  std::vector<uint64_t> strides_;
};

}  // namespace

void print_values(std::ostream& out, const TensorView& tensor, uint64_t max_elements) {
  auto count = element_count(tensor.shape);
  if (!count) {
    out << "(" << count.error().message << ")";
    return;
  }
  auto needed = dtype_bytes(tensor.dtype, *count);
  if (!needed || *needed > tensor.data.size()) {
    out << fmt::format("(data holds {} bytes, fewer than {} {} elements need)", tensor.data.size(),
                       *count, dtype_name(tensor.dtype));
    return;
  }
  if (*count == 0) {
    out << "[]";
    return;
  }
  if (!format_element(tensor.dtype, tensor.data.data(), 0)) {
    out << fmt::format("({} values are not decoded)", dtype_name(tensor.dtype));
    return;
  }
  if (tensor.shape.empty()) {
    out << *format_element(tensor.dtype, tensor.data.data(), 0);
    return;
  }
  Printer printer(tensor, *count > max_elements);
  size_t width = printer.width();
  out << printer.format(0, 0, " ", width);
}

}  // namespace msdt
