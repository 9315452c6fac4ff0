// NumPy's array2string (numpy/core/arrayprint.py, defaults linewidth=75, precision=8,
// edgeitems=3, suppress=False, floatmode='maxprec', separator ' '), written without recursion:
// the nesting is walked with one counter per axis, so a tensor of any rank costs O(rank) memory
// and no stack depth.
#include "tensor/value_printer.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "tensor/element_convert.h"

namespace msdt {
namespace {

constexpr uint64_t kEdgeItems = 3;  // np.set_printoptions(edgeitems=3)
constexpr size_t kLineWidth = 75;   // linewidth=75
constexpr int kPrecision = 8;       // precision=8
constexpr size_t kMaxRank = 64;     // NumPy's NPY_MAXDIMS: no NumPy array has more axes

template <class T>
T load(const std::byte* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));  // every supported host is little-endian (dump spec §0)
  return value;
}

enum class Kind { Integer, Bool, Real, Complex, None };

Kind kind_of(DType dtype) {
  if (small_float_decoder(dtype)) return Kind::Real;
  switch (dtype) {
    case DType::Bool:
      return Kind::Bool;
    case DType::Int4:
    case DType::Int8:
    case DType::UInt8:
    case DType::Int16:
    case DType::UInt16:
    case DType::Int32:
    case DType::UInt32:
    case DType::Int64:
    case DType::UInt64:
    case DType::UInt1:
      return Kind::Integer;
    case DType::Float16:
    case DType::BFloat16:
    case DType::Float32:
    case DType::Float64:
      return Kind::Real;
    case DType::Complex32:
    case DType::Complex64:
    case DType::Complex128:
      return Kind::Complex;
    default:
      return Kind::None;
  }
}

std::string integer_text(DType dtype, const std::byte* d, uint64_t i) {
  auto byte_at = [&](uint64_t k) { return static_cast<uint8_t>(d[k]); };
  switch (dtype) {
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
    case DType::Int4: {  // low nibble first, sign-extended (dump spec §5.2)
      unsigned nibble = (byte_at(i / 2) >> (4 * (i % 2))) & 0xFu;
      return fmt::format("{}", static_cast<int>(nibble ^ 8u) - 8);
    }
    default:  // UInt1: most significant bit first, as np.unpackbits
      return fmt::format("{}", (byte_at(i / 8) >> (7 - i % 8)) & 1u);
  }
}

// A real element: its value and the shortest decimal digits that read back as the same element
// of its own type ("d.ddd" mantissa digits without the point, and the decimal exponent).
struct Real {
  double value;
  std::string digits;
  int exponent;
};

void split_scientific(std::string_view text, Real& r) {
  // text is "[-]d[.ddd]e±XX", or "[-]inf", "nan" (no exponent: 0)
  size_t e = std::min(text.find('e'), text.size());
  r.exponent = 0;
  std::string_view mantissa = text.substr(0, e);
  if (!mantissa.empty() && mantissa[0] == '-') mantissa.remove_prefix(1);
  r.digits.clear();
  for (char c : mantissa)
    if (c != '.') r.digits += c;
  while (r.digits.size() > 1 && r.digits.back() == '0') r.digits.pop_back();
  if (e + 1 < text.size())
    std::from_chars(text.data() + e + (text[e + 1] == '+' ? 2 : 1), text.data() + text.size(),
                    r.exponent);
}

// Shortest digits of a 16-bit float whose neighbours are `below` and `above`: the fewest
// significant digits whose value rounds back to this element (ties go to the even code).
void shortest_between(Real& r, double below, double above, bool even) {
  const double low = (below + r.value) / 2, high = (above + r.value) / 2;
  char buf[64];
  for (int precision = 0; precision < 17; ++precision) {
    auto end =
        std::to_chars(buf, buf + sizeof buf, r.value, std::chars_format::scientific, precision).ptr;
    double back = 0;
    std::from_chars(buf, end, back);
    if ((back > low && back < high) || (even && (back == low || back == high))) {
      split_scientific(std::string_view(buf, end - buf), r);
      return;
    }
  }
}

Real real_at(DType dtype, Bytes bytes, uint64_t i) {
  const std::byte* d = bytes.data();
  Real r{};
  char buf[64];
  auto from_float = [&](float f) {
    r.value = f;
    auto end = std::to_chars(buf, buf + sizeof buf, f, std::chars_format::scientific).ptr;
    split_scientific(std::string_view(buf, end - buf), r);
  };
  switch (dtype) {
    case DType::Float64: {
      r.value = load<double>(d + 8 * i);
      auto end = std::to_chars(buf, buf + sizeof buf, r.value, std::chars_format::scientific).ptr;
      split_scientific(std::string_view(buf, end - buf), r);
      break;
    }
    case DType::Float16:
    case DType::BFloat16: {
      // NumPy prints float16 with the digits of float16 itself, not of float32.
      const uint16_t bits = load_u16le(d + 2 * i);
      auto decode = dtype == DType::Float16 ? half_to_float : bfloat16_to_float;
      r.value = decode(bits);
      if (!std::isfinite(r.value) || r.value == 0) {
        from_float(static_cast<float>(r.value));
        break;
      }
      const uint16_t magnitude = bits & 0x7FFF;
      const double sign = r.value < 0 ? -1 : 1;
      const double below = magnitude == 1 ? 0 : sign * std::fabs(decode(magnitude - 1));
      double above = std::fabs(decode(magnitude + 1));
      if (std::isinf(above)) above = 2 * std::fabs(r.value) - std::fabs(below);
      shortest_between(r, below, sign * above, (bits & 1) == 0);
      break;
    }
    case DType::Float32:
      from_float(load<float>(d + 4 * i));
      break;
    default:  // 8 bits or fewer: printed with float32's shortest digits
      from_float(small_float_at(dtype, bytes, i));
      break;
  }
  return r;
}

// The unpadded text of a finite value, split at the point: dragon4 with unique=True,
// precision=8, trim='.' (shortest digits, cut at 8 fractional digits with correct rounding).
struct Parts {
  std::string integer;   // with the sign
  std::string fraction;  // digits after the point
  std::string exponent;  // "e+05" (scientific only)
};

std::string trim_zeros(std::string text) {
  while (!text.empty() && text.back() == '0') text.pop_back();
  return text;
}

Parts positional(const Real& r) {
  Parts p;
  const bool negative = std::signbit(r.value);
  const int fraction_digits = std::max(0, static_cast<int>(r.digits.size()) - 1 - r.exponent);
  char buf[512];
  auto end = std::to_chars(buf, buf + sizeof buf, std::fabs(r.value), std::chars_format::fixed,
                           std::min(fraction_digits, kPrecision))
                 .ptr;
  std::string text(buf, end);
  size_t point = text.find('.');
  p.integer = (negative ? "-" : "") + text.substr(0, point);
  p.fraction = point == std::string::npos ? "" : trim_zeros(text.substr(point + 1));
  return p;
}

Parts scientific(const Real& r, size_t min_fraction, size_t exponent_digits) {
  Parts p;
  const bool negative = std::signbit(r.value);
  std::string digits = r.digits;
  int exponent = r.exponent;
  // Past the shortest digits NumPy prints further exact digits (min_digits), not zeros; beyond
  // 8 fractional digits it rounds.
  const size_t wanted = digits.size() - 1 > static_cast<size_t>(kPrecision) ? kPrecision
                        : min_fraction > digits.size() - 1                  ? min_fraction
                                                                            : 0;
  if (wanted != 0) {
    char buf[64];
    auto end = std::to_chars(buf, buf + sizeof buf, std::fabs(r.value),
                             std::chars_format::scientific, static_cast<int>(wanted))
                   .ptr;
    Real rounded{};
    split_scientific(std::string_view(buf, end - buf), rounded);
    digits = rounded.digits;  // trailing zeros dropped; min_fraction puts them back
    exponent = rounded.exponent;
  }
  p.integer = (negative ? "-" : "") + digits.substr(0, 1);
  p.fraction = digits.substr(1);
  if (p.fraction.size() < min_fraction) p.fraction.append(min_fraction - p.fraction.size(), '0');
  std::string e = fmt::format("{}", std::abs(exponent));
  const size_t width = std::max<size_t>(2, exponent_digits);  // NumPy writes at least e+05
  if (e.size() < width) e.insert(0, width - e.size(), '0');
  p.exponent = std::string("e") + (exponent < 0 ? "-" : "+") + e;
  return p;
}

// NumPy's FloatingFormat.fillFormat over the elements shown, then __call__ per element.
class RealFormat {
 public:
  template <class Each>
  RealFormat(DType dtype, Bytes data, const Each& each_shown) : dtype_(dtype) {
    double max_abs = 0, min_abs = INFINITY;
    bool any_finite = false, any_nonfinite = false, neg_inf = false;
    each_shown([&](uint64_t i) {
      Real r = real_at(dtype, data, i);
      if (!std::isfinite(r.value)) {
        any_nonfinite = true;
        neg_inf |= std::isinf(r.value) && r.value < 0;
        return;
      }
      any_finite = true;
      if (r.value != 0) {
        max_abs = std::max(max_abs, std::fabs(r.value));
        min_abs = std::min(min_abs, std::fabs(r.value));
      }
    });
    if (min_abs != INFINITY) {
      double ratio = max_abs / min_abs;
      if (dtype == DType::Float32)
        ratio = static_cast<float>(max_abs) / static_cast<float>(min_abs);
      exp_format_ = max_abs >= 1e8 || min_abs < 0.0001 || ratio > 1000;
    }
    if (any_finite) {
      size_t fraction = 0, exponent = 0;
      each_shown([&](uint64_t i) {
        Real r = real_at(dtype, data, i);
        if (!std::isfinite(r.value)) return;
        Parts p = exp_format_ ? scientific(r, 0, 0) : positional(r);
        pad_left_ = std::max(pad_left_, p.integer.size());
        fraction = std::max(fraction, p.fraction.size());
        exponent = std::max(exponent, p.exponent.size());
      });
      if (exp_format_) {
        exponent_digits_ = exponent - 2;  // "e+" and at least two digits
        precision_ = fraction;
        pad_right_ = exponent_digits_ + 2 + precision_;
      } else {
        pad_right_ = fraction;
      }
    }
    if (any_nonfinite) {
      const size_t offset = pad_right_ + 1;
      const size_t inf_len = 3 + neg_inf;
      pad_left_ = std::max(
          {pad_left_, offset < 3 ? 3 - offset : 0, offset < inf_len ? inf_len - offset : 0});
    }
  }

  std::string operator()(Bytes data, uint64_t i) const {
    Real r = real_at(dtype_, data, i);
    if (!std::isfinite(r.value)) {
      std::string text = std::isnan(r.value) ? "nan" : r.value < 0 ? "-inf" : "inf";
      const size_t width = pad_left_ + pad_right_ + 1;
      return std::string(width > text.size() ? width - text.size() : 0, ' ') + text;
    }
    Parts p = exp_format_ ? scientific(r, precision_, exponent_digits_) : positional(r);
    std::string text(pad_left_ > p.integer.size() ? pad_left_ - p.integer.size() : 0, ' ');
    text += p.integer + "." + p.fraction + p.exponent;
    if (!exp_format_ && p.fraction.size() < pad_right_)
      text.append(pad_right_ - p.fraction.size(), ' ');
    return text;
  }

 private:
  DType dtype_;
  bool exp_format_ = false;
  size_t pad_left_ = 0, pad_right_ = 0, precision_ = 0, exponent_digits_ = 0;
};

std::string complex_part(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  std::string text = fmt::format("{}", value);
  if (text.find_first_of(".e") == std::string::npos) text += ".";
  return text;
}

std::string complex_text(DType dtype, const std::byte* d, uint64_t i) {
  double re = 0, im = 0;
  if (dtype == DType::Complex32) {
    re = half_to_float(load_u16le(d + 4 * i));
    im = half_to_float(load_u16le(d + 4 * i + 2));
  } else if (dtype == DType::Complex64) {
    re = load<float>(d + 8 * i);
    im = load<float>(d + 8 * i + 4);
  } else {
    re = load<double>(d + 16 * i);
    im = load<double>(d + 16 * i + 8);
  }
  std::string imag = complex_part(im);
  if (imag[0] != '-') imag.insert(0, "+");
  return complex_part(re) + imag + "j";
}

// The axes as NumPy walks them: item k of an axis is element index_of(k), or the "..." marker.
class Walk {
 public:
  Walk(std::span<const uint64_t> shape, bool summarise) : shape_(shape), strides_(shape.size(), 1) {
    for (size_t axis = shape.size(); axis-- > 1;) strides_[axis - 1] = strides_[axis] * shape[axis];
    summarised_.resize(shape.size());
    for (size_t axis = 0; axis < shape.size(); ++axis)
      summarised_[axis] = summarise && shape[axis] > 2 * kEdgeItems;
  }
  uint64_t items(size_t axis) const {
    return summarised_[axis] ? 2 * kEdgeItems + 1 : shape_[axis];
  }
  bool is_marker(size_t axis, uint64_t k) const { return summarised_[axis] && k == kEdgeItems; }
  uint64_t offset(size_t axis, uint64_t k) const {
    uint64_t index = k;
    if (summarised_[axis] && k > kEdgeItems) index = shape_[axis] - (2 * kEdgeItems + 1 - k);
    return index * strides_[axis];
  }

  // Calls fn(element) for every element shown, in order.
  template <class F>
  void each(const F& fn) const {
    const size_t rank = shape_.size();
    std::vector<uint64_t> k(rank, 0), base(rank + 1, 0);
    size_t axis = 0;
    while (true) {
      for (; axis < rank; ++axis) {
        if (is_marker(axis, k[axis])) ++k[axis];
        base[axis + 1] = base[axis] + offset(axis, k[axis]);
        if (axis + 1 < rank) k[axis + 1] = 0;
      }
      fn(base[rank]);
      do {
        if (axis == 0) return;
        --axis;
      } while (++k[axis] >= items(axis));
    }
  }

 private:
  std::span<const uint64_t> shape_;
  std::vector<uint64_t> strides_;
  std::vector<bool> summarised_;
};

// _formatArray with separator ' ': rows wrap at the line width, higher axes are separated by
// as many newlines as they have axes below them.
template <class Format>
std::string layout(const Walk& walk, size_t rank, const Format& format) {
  std::string out;
  std::vector<uint64_t> k(rank, 0), base(rank + 1, 0);
  size_t axis = 0;
  out += '[';
  auto indent = [&](size_t depth) { out.append(depth + 1, ' '); };
  while (true) {
    if (axis + 1 == rank) {
      // One row: words wrap when the line would pass the width less the closing brackets.
      const size_t hanging = rank;  // " " for the "[" plus one per enclosing axis
      const size_t width = kLineWidth - rank;
      size_t column = hanging;
      bool first = true;
      for (uint64_t j = 0; j < walk.items(axis); ++j) {
        std::string word = walk.is_marker(axis, j) ? std::string("...")
                                                   : format(base[axis] + walk.offset(axis, j));
        if (!first) {
          out += ' ';
          ++column;
        }
        if (column + word.size() > width && column > hanging) {
          while (!out.empty() && out.back() == ' ') out.pop_back();
          out += '\n';
          out.append(hanging, ' ');
          column = hanging;
        }
        out += word;
        column += word.size();
        first = false;
      }
      out += ']';
      // Close finished axes and move to the next item of the deepest unfinished one.
      while (true) {
        if (axis == 0) return out;
        --axis;
        if (++k[axis] < walk.items(axis)) break;
        out += ']';
      }
      const size_t below = rank - axis - 1;
      out.append(below, '\n');
      indent(axis);
      if (walk.is_marker(axis, k[axis])) {
        out += "...";
        out.append(below, '\n');
        indent(axis);
        ++k[axis];
      }
    }
    base[axis + 1] = base[axis] + walk.offset(axis, k[axis]);
    ++axis;
    k[axis] = 0;
    out += '[';
  }
}

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
  const Kind kind = kind_of(tensor.dtype);
  if (kind == Kind::None) {
    out << fmt::format("({} values are not decoded)", dtype_name(tensor.dtype));
    return;
  }
  if (tensor.shape.size() > kMaxRank) {
    out << fmt::format("(values not shown: {} dimensions, more than the {} NumPy allows)",
                       tensor.shape.size(), kMaxRank);
    return;
  }
  if (*count == 0) {
    out << "[]";
    return;
  }
  const std::byte* data = tensor.data.data();
  const Walk walk(tensor.shape, *count > max_elements);
  auto each = [&](const auto& fn) {
    if (tensor.shape.empty())
      fn(uint64_t{0});
    else
      walk.each(fn);
  };
  auto emit = [&](const auto& format) {
    if (tensor.shape.empty())
      out << format(uint64_t{0});
    else
      out << layout(walk, tensor.shape.size(), format);
  };
  switch (kind) {
    case Kind::Real: {
      const RealFormat real(tensor.dtype, tensor.data, each);
      emit([&](uint64_t i) {
        std::string text = real(tensor.data, i);
        if (tensor.shape.empty()) text.erase(0, text.find_first_not_of(' '));
        return text;
      });
      return;
    }
    case Kind::Bool:
      emit([&](uint64_t i) {
        if (tensor.shape.empty()) return std::string(data[i] != std::byte{0} ? "True" : "False");
        return std::string(data[i] != std::byte{0} ? " True" : "False");
      });
      return;
    default: {
      auto text = [&](uint64_t i) {
        return kind == Kind::Integer ? integer_text(tensor.dtype, data, i)
                                     : complex_text(tensor.dtype, data, i);
      };
      size_t width = 0;
      each([&](uint64_t i) { width = std::max(width, text(i).size()); });
      emit([&](uint64_t i) {
        std::string t = text(i);
        return std::string(width - t.size(), ' ') + t;
      });
      return;
    }
  }
}

}  // namespace msdt
