#include "elements.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

namespace msdt::fixture {
namespace {

// One element as the description gives it, before it is encoded for a dtype.
struct Item {
  enum class Kind { Real, Signed, Unsigned, Bits, Complex };
  Kind kind = Kind::Bits;
  double re = 0, im = 0;
  int64_t s = 0;
  uint64_t u = 0;  // Unsigned and Bits
};

Item real(double v) { return Item{Item::Kind::Real, v, 0, 0, 0}; }
Item bits(uint64_t v) { return Item{Item::Kind::Bits, 0, 0, 0, v}; }
Item signed_item(int64_t v) { return Item{Item::Kind::Signed, 0, 0, v, 0}; }
Item unsigned_item(uint64_t v) { return Item{Item::Kind::Unsigned, 0, 0, 0, v}; }
Item complex_item(double re, double im) { return Item{Item::Kind::Complex, re, im, 0, 0}; }

Item parse_item(const Node& node) {
  const json& v = node.value();
  if (v.is_boolean()) return unsigned_item(v.get<bool>() ? 1 : 0);
  if (v.is_number_unsigned()) return unsigned_item(v.get<uint64_t>());
  if (v.is_number_integer()) return signed_item(v.get<int64_t>());
  if (v.is_number_float()) return real(v.get<double>());
  if (v.is_string()) {
    std::string text = v.get<std::string>();
    if (text == "nan") return real(std::numeric_limits<double>::quiet_NaN());
    if (text == "-nan") return real(-std::numeric_limits<double>::quiet_NaN());
    if (text == "inf" || text == "+inf") return real(std::numeric_limits<double>::infinity());
    if (text == "-inf") return real(-std::numeric_limits<double>::infinity());
    if (text.starts_with("0x") || text.starts_with("0X")) {
      if (auto b = parse_u64_literal(text)) return bits(*b);
    }
    node.fail("expected a number, \"nan\", \"inf\", \"-inf\" or a bit pattern \"0x…\", found " +
              brief(v));
  }
  if (v.is_array() && v.size() == 2 && v[0].is_number() && v[1].is_number())
    return complex_item(v[0].get<double>(), v[1].get<double>());
  node.fail("expected an element value, found " + brief(v));
}

enum class Category { Bool, SignedInt, UnsignedInt, Float, Complex, Float8, BitsOnly };

Category category(DType dtype) {
  switch (dtype) {
    case DType::Bool:
      return Category::Bool;
    case DType::Int2:
    case DType::Int4:
    case DType::Int8:
    case DType::Int16:
    case DType::Int32:
    case DType::Int64:
      return Category::SignedInt;
    case DType::UInt1:
    case DType::UInt2:
    case DType::UInt8:
    case DType::UInt16:
    case DType::UInt32:
    case DType::UInt64:
      return Category::UnsignedInt;
    case DType::Float16:
    case DType::BFloat16:
    case DType::Float32:
    case DType::Float64:
      return Category::Float;
    case DType::Complex32:
    case DType::Complex64:
    case DType::Complex128:
      return Category::Complex;
    case DType::Float8E5M2:
    case DType::Float8E4M3FN:
      return Category::Float8;
    default:
      return Category::BitsOnly;
  }
}

// Bytes are gathered into a buffer handed to the sink about every MiB; sub-byte elements are
// packed into `pending` first.
class Packer {
 public:
  Packer(unsigned element_bits, bool msb_first,
         const std::function<void(std::span<const std::byte>)>& sink)
      : bits_(element_bits), msb_first_(msb_first), sink_(sink) {
    buffer_.reserve(kChunk + 16);
  }
  void put(uint64_t code) {
    if (bits_ >= 8) {
      // complex128 bit patterns are limited to 64 bits; the rest is zero.
      for (unsigned i = 0; i < bits_ / 8; ++i)
        buffer_.push_back(static_cast<std::byte>(i < 8 ? code >> (8 * i) : 0));
    } else {
      // msaccucmp unpacks uint1 with np.unpackbits, most significant bit first; the other
      // packed types put the first element in the low bits (dump spec §5.2, §9.4).
      uint64_t mask = (uint64_t{1} << bits_) - 1;
      for (unsigned i = 0; i < bits_; ++i) {
        unsigned bit = msb_first_ ? (bits_ - 1 - i) : i;
        if ((code & mask) >> bit & 1) {
          unsigned position = msb_first_ ? 7 - pending_bits_ : pending_bits_;
          pending_ |= static_cast<uint8_t>(1u << position);
        }
        if (++pending_bits_ == 8) flush_pending();
      }
    }
    if (buffer_.size() >= kChunk) {
      sink_(buffer_);
      buffer_.clear();
    }
  }
  // complex128: two 64-bit halves.
  void put_pair(uint64_t low, uint64_t high) {
    for (unsigned i = 0; i < 8; ++i) buffer_.push_back(static_cast<std::byte>(low >> (8 * i)));
    for (unsigned i = 0; i < 8; ++i) buffer_.push_back(static_cast<std::byte>(high >> (8 * i)));
  }
  void finish() {
    if (pending_bits_ > 0) flush_pending();
    if (!buffer_.empty()) sink_(buffer_);
    buffer_.clear();
  }

 private:
  static constexpr size_t kChunk = 1 << 20;
  void flush_pending() {
    buffer_.push_back(static_cast<std::byte>(pending_));
    pending_ = 0;
    pending_bits_ = 0;
  }
  unsigned bits_;
  bool msb_first_;
  const std::function<void(std::span<const std::byte>)>& sink_;
  std::vector<std::byte> buffer_;
  uint8_t pending_ = 0;
  unsigned pending_bits_ = 0;
};

uint64_t nearest_float8(DType dtype, double value, const Node& where) {
  if (std::isnan(value)) return dtype == DType::Float8E4M3FN ? 0x7F : 0x7E;
  int best = -1;
  double best_distance = 0;
  for (int code = 0; code < 256; ++code) {
    float decoded = dtype == DType::Float8E4M3FN
                        ? float8_e4m3fn_to_float(static_cast<uint8_t>(code))
                        : float8_e5m2_to_float(static_cast<uint8_t>(code));
    if (std::isnan(decoded)) continue;
    double distance = std::fabs(static_cast<double>(decoded) - value);
    if (decoded == value && std::signbit(decoded) == std::signbit(value)) return code;
    if (best < 0 || distance < best_distance) {
      best = code;
      best_distance = distance;
    }
  }
  if (best < 0) where.fail("cannot encode value as float8");
  return static_cast<uint64_t>(best);
}

// The bit pattern of `item` as an element of `dtype`.
uint64_t encode_item(DType dtype, const Item& item, const Node& where) {
  const unsigned width = dtype_bits(dtype);
  const uint64_t width_mask = width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  if (item.kind == Item::Kind::Bits) {
    if ((item.u & ~width_mask) != 0)
      where.fail("bit pattern " + std::to_string(item.u) + " is wider than " +
                 std::string(dtype_name(dtype)));
    return item.u;
  }
  auto as_real = [&]() -> double {
    switch (item.kind) {
      case Item::Kind::Real:
        return item.re;
      case Item::Kind::Signed:
        return static_cast<double>(item.s);
      case Item::Kind::Unsigned:
        return static_cast<double>(item.u);
      default:
        where.fail("a complex value needs a complex dtype");
    }
  };
  switch (category(dtype)) {
    case Category::Bool:
      if (item.kind == Item::Kind::Complex) where.fail("a complex value needs a complex dtype");
      return as_real() != 0 ? 1 : 0;
    case Category::SignedInt:
    case Category::UnsignedInt: {
      bool is_signed = category(dtype) == Category::SignedInt;
      // The value as sign and magnitude, so that every int64 and uint64 is exact.
      bool negative = false;
      uint64_t magnitude = 0;
      if (item.kind == Item::Kind::Signed) {
        negative = item.s < 0;
        magnitude = negative ? 0 - static_cast<uint64_t>(item.s) : static_cast<uint64_t>(item.s);
      } else if (item.kind == Item::Kind::Unsigned) {
        magnitude = item.u;
      } else if (item.kind == Item::Kind::Real && std::isfinite(item.re) &&
                 item.re == std::trunc(item.re) && std::fabs(item.re) < 1.8e19) {
        negative = item.re < 0;
        magnitude = static_cast<uint64_t>(std::fabs(item.re));
      } else {
        where.fail("expected an integer for " + std::string(dtype_name(dtype)));
      }
      uint64_t max_positive = is_signed ? (uint64_t{1} << (width - 1)) - 1 : width_mask;
      uint64_t max_negative = is_signed ? uint64_t{1} << (width - 1) : 0;
      if (negative && magnitude == 0) negative = false;
      if ((negative && magnitude > max_negative) || (!negative && magnitude > max_positive))
        where.fail("value does not fit in " + std::string(dtype_name(dtype)));
      return (negative ? 0 - magnitude : magnitude) & width_mask;
    }
    case Category::Float: {
      double v = as_real();
      switch (dtype) {
        case DType::Float16:
          return float_to_half(static_cast<float>(v));
        case DType::BFloat16:
          return float_to_bfloat16(static_cast<float>(v));
        case DType::Float32:
          return std::bit_cast<uint32_t>(static_cast<float>(v));
        default:
          return std::bit_cast<uint64_t>(v);
      }
    }
    case Category::Float8:
      return nearest_float8(dtype, as_real(), where);
    case Category::Complex:
    case Category::BitsOnly:
      break;
  }
  where.fail(std::string(dtype_name(dtype)) + " values must be bit patterns such as \"0x3c\"");
}

void put_item(Packer& packer, DType dtype, const Item& item, const Node& where) {
  if (category(dtype) != Category::Complex) {
    packer.put(encode_item(dtype, item, where));
    return;
  }
  if (item.kind == Item::Kind::Bits) {
    packer.put(item.u);  // a bit pattern covers both parts
    return;
  }
  double re = item.kind == Item::Kind::Complex  ? item.re
              : item.kind == Item::Kind::Real   ? item.re
              : item.kind == Item::Kind::Signed ? static_cast<double>(item.s)
                                                : static_cast<double>(item.u);
  double im = item.kind == Item::Kind::Complex ? item.im : 0;
  uint64_t re_bits, im_bits;
  if (dtype == DType::Complex32) {
    re_bits = float_to_half(static_cast<float>(re));
    im_bits = float_to_half(static_cast<float>(im));
    packer.put(re_bits | im_bits << 16);
  } else if (dtype == DType::Complex64) {
    re_bits = std::bit_cast<uint32_t>(static_cast<float>(re));
    im_bits = std::bit_cast<uint32_t>(static_cast<float>(im));
    packer.put(re_bits | im_bits << 32);
  } else {
    packer.put_pair(std::bit_cast<uint64_t>(re), std::bit_cast<uint64_t>(im));
  }
}

}  // namespace

uint16_t float_to_half(float value) {
  uint32_t f = std::bit_cast<uint32_t>(value);
  uint32_t sign = (f >> 16) & 0x8000;
  uint32_t exponent = (f >> 23) & 0xFF;
  uint32_t mantissa = f & 0x7FFFFF;
  if (exponent == 0xFF)
    return static_cast<uint16_t>(sign | 0x7C00 | (mantissa ? 0x200 | (mantissa >> 13) : 0));
  int e = static_cast<int>(exponent) - 127 + 15;
  if (e >= 31) return static_cast<uint16_t>(sign | 0x7C00);
  if (e <= 0) {
    if (e < -10) return static_cast<uint16_t>(sign);
    mantissa |= 0x800000;
    unsigned shift = static_cast<unsigned>(14 - e);
    uint32_t half = mantissa >> shift;
    uint32_t rest = mantissa & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = (static_cast<uint32_t>(e) << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1FFF;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1))) ++half;  // may carry into infinity: correct
  return static_cast<uint16_t>(sign | half);
}

uint16_t float_to_bfloat16(float value) {
  uint32_t f = std::bit_cast<uint32_t>(value);
  if ((f & 0x7F800000) == 0x7F800000 && (f & 0x7FFFFF) != 0)
    return static_cast<uint16_t>((f >> 16) | 0x40);  // keep NaN a (quiet) NaN
  uint32_t rounding = 0x7FFF + ((f >> 16) & 1);
  return static_cast<uint16_t>((f + rounding) >> 16);
}

DType parse_dtype(const Node& node) {
  std::string text = node.string();
  if (auto d = parse_dtype_label(text)) return *d;
  node.fail("unknown dtype \"" + text + "\"");
}

uint64_t shape_elements(const std::vector<uint64_t>& shape, const Node& where) {
  auto count = element_count(shape);
  if (!count) where.fail(count.error().describe());
  return *count;
}

ValueSpec parse_value_spec(const Node& entry) {
  ValueSpec spec;
  auto values = entry.find("values");
  auto fill = entry.find("fill");
  if (values && fill) entry.fail("give either \"values\" or \"fill\", not both");
  if (values) {
    values->elements();  // checks that it is an array
    spec.fill = ValueSpec::Fill::Values;
    spec.values = values;
    return spec;
  }
  if (!fill) return spec;
  if (fill->is_string()) {
    std::string name = fill->string();
    if (name == "zeros")
      spec.fill = ValueSpec::Fill::Zeros;
    else if (name == "ones")
      spec.fill = ValueSpec::Fill::Ones;
    else if (name == "arange")
      spec.fill = ValueSpec::Fill::Arange;
    else
      fill->fail("expected \"zeros\", \"ones\", \"arange\" or {\"random\": SEED}, found " +
                 brief(fill->value()));
    return spec;
  }
  fill->check_keys({"random", "low", "high", "arange", "perturb"});
  if (auto perturb = fill->find("perturb")) spec.perturb = parse_perturbation(*perturb);
  if (auto arange = fill->find("arange")) {
    // {"arange": true, "perturb": {…}}: the object form of "arange", for the perturbation.
    if (!arange->boolean()) arange->fail("expected true (or the string form \"fill\": \"arange\")");
    if (fill->has("random") || fill->has("low") || fill->has("high"))
      fill->fail("\"arange\" takes no \"random\", \"low\" or \"high\"");
    spec.fill = ValueSpec::Fill::Arange;
    return spec;
  }
  spec.fill = ValueSpec::Fill::Random;
  spec.seed = fill->at("random").u64();
  if (auto low = fill->find("low")) spec.low = low->number();
  if (auto high = fill->find("high")) spec.high = high->number();
  if (spec.low && spec.high && !(*spec.low < *spec.high)) fill->fail("expected low < high");
  return spec;
}

Perturbation parse_perturbation(const Node& node) {
  if (!node.is_object())
    node.fail("expected {\"seed\": T, \"relative\": R, \"absolute\": A}, found " +
              brief(node.value()));
  node.check_keys({"seed", "relative", "absolute"});
  Perturbation p;
  p.where = node;
  p.seed = node.at("seed").u64();
  if (!node.has("relative") && !node.has("absolute"))
    node.fail("expected \"relative\" or \"absolute\" (or both)");
  auto amount = [&](std::string_view key) {
    if (!node.has(key)) return 0.0;
    Node n = node.at(key);
    double v = n.number();
    if (!std::isfinite(v) || v < 0) n.fail("expected a finite, non-negative number");
    return v;
  };
  p.relative = amount("relative");
  p.absolute = amount("absolute");
  return p;
}

bool perturbable(DType dtype) {
  Category cat = category(dtype);
  return cat == Category::Float || cat == Category::Complex || cat == Category::Float8;
}

void encode_elements(DType dtype, const ValueSpec& spec, uint64_t count,
                     const std::function<void(std::span<const std::byte>)>& sink) {
  if (dtype == DType::String) throw DescriptionError("string tensors have no element encoding");
  const Node fallback(json(nullptr), "fill");
  const unsigned width = dtype_bits(dtype);
  Packer packer(width, dtype == DType::UInt1, sink);
  const Category cat = category(dtype);
  // "perturb": u in [-1, 1) from its own stream, one draw per real number written.
  std::optional<SplitMix64> noise;
  if (spec.perturb) {
    if (!perturbable(dtype)) {
      std::string why =
          "\"perturb\" needs a floating-point dtype, not " + std::string(dtype_name(dtype));
      if (spec.perturb->where) spec.perturb->where->fail(why);
      throw DescriptionError(why);
    }
    noise = SplitMix64{spec.perturb->seed};
  }
  auto perturbed = [&](double v) {
    if (!noise) return v;
    double u = 2 * noise->unit() - 1;
    return v * (1 + spec.perturb->relative * u) + spec.perturb->absolute * u;
  };
  switch (spec.fill) {
    case ValueSpec::Fill::Values: {
      auto values = spec.values->elements();
      if (values.size() != count)
        spec.values->fail("expected " + std::to_string(count) + " values for the shape, found " +
                          std::to_string(values.size()));
      for (const auto& v : values) put_item(packer, dtype, parse_item(v), v);
      break;
    }
    case ValueSpec::Fill::Zeros:
      for (uint64_t i = 0; i < count; ++i) put_item(packer, dtype, bits(0), fallback);
      break;
    case ValueSpec::Fill::Ones:
      for (uint64_t i = 0; i < count; ++i) put_item(packer, dtype, signed_item(1), fallback);
      break;
    case ValueSpec::Fill::Arange: {
      const uint64_t mask = width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
      for (uint64_t i = 0; i < count; ++i) {
        // Integers wrap like numpy's astype; floats lose precision like it.
        if (cat == Category::SignedInt || cat == Category::UnsignedInt)
          put_item(packer, dtype, bits(i & mask), fallback);
        else
          put_item(packer, dtype, real(perturbed(static_cast<double>(i))), fallback);
      }
      break;
    }
    case ValueSpec::Fill::Random: {
      SplitMix64 rng{spec.seed};
      bool integral =
          cat == Category::SignedInt || cat == Category::UnsignedInt || cat == Category::Bool;
      double low = spec.low.value_or(integral ? 0 : -1);
      double high = spec.high.value_or(
          cat == Category::Bool ? 2
          : integral            ? std::min(100.0, std::ldexp(1.0, static_cast<int>(width) -
                                                                      (cat == Category::SignedInt ? 1 : 0)))
                                : 1);
      for (uint64_t i = 0; i < count; ++i) {
        double u = low + (high - low) * rng.unit();
        if (cat == Category::Complex) {
          double im = low + (high - low) * rng.unit();
          double re_perturbed = perturbed(u);
          put_item(packer, dtype, complex_item(re_perturbed, perturbed(im)), fallback);
        } else if (integral) {
          put_item(packer, dtype, real(std::floor(u)), fallback);
        } else {
          put_item(packer, dtype, real(perturbed(u)), fallback);
        }
      }
      break;
    }
  }
  packer.finish();
}

std::vector<std::byte> encode_elements(DType dtype, const ValueSpec& spec, uint64_t count) {
  std::vector<std::byte> out;
  encode_elements(dtype, spec, count, [&](std::span<const std::byte> chunk) {
    out.insert(out.end(), chunk.begin(), chunk.end());
  });
  return out;
}

}  // namespace msdt::fixture
