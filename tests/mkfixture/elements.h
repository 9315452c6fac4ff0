// Tensor element bytes from a description's "values" or "fill" (README.md, "Element values"):
// little-endian, C order, sub-byte types packed.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "description.h"
#include "tensor/dtype.h"

namespace msdt::fixture {

// "perturb" (README.md, "Element values"): each element v of a random or arange fill becomes
// v * (1 + relative * u) + absolute * u, with u uniform in [-1, 1) drawn from its own splitmix64
// stream seeded by `seed`, one draw per element (two for a complex element, real part first).
// The same fill with and without it gives a tensor and a slightly different copy of it.
struct Perturbation {
  uint64_t seed = 0;
  double relative = 0, absolute = 0;
  std::optional<Node> where;  // for errors ("perturb needs a floating-point dtype")
};

struct ValueSpec {
  enum class Fill { Values, Zeros, Ones, Arange, Random };
  Fill fill = Fill::Zeros;
  std::optional<Node> values;  // Fill::Values
  uint64_t seed = 0;
  std::optional<double> low, high;
  std::optional<Perturbation> perturb;  // Fill::Random and Fill::Arange, floating-point dtypes
};

// Reads "values" or "fill" from `entry` (neither: zeros).
ValueSpec parse_value_spec(const Node& entry);

// Reads a "perturb" object: {"seed": T, "relative": R, "absolute": A} (seed required, at least
// one of the two amounts; both finite and non-negative).
Perturbation parse_perturbation(const Node& node);

// Whether "perturb" applies to elements of `dtype` (floating-point and complex types).
bool perturbable(DType dtype);

// Any spelling libcommon knows ("float32", "Float32", "DT_FLOAT", "BF16", …).
DType parse_dtype(const Node& node);

// Calls `sink` with consecutive chunks (about 1 MiB) holding `count` encoded elements, so that
// large tensors never sit in memory whole.
void encode_elements(DType dtype, const ValueSpec& spec, uint64_t count,
                     const std::function<void(std::span<const std::byte>)>& sink);
std::vector<std::byte> encode_elements(DType dtype, const ValueSpec& spec, uint64_t count);

// Element count of a shape, with an error naming `where` on overflow.
uint64_t shape_elements(const std::vector<uint64_t>& shape, const Node& where);

// Round-to-nearest-even conversions for writing float16 and bfloat16 elements.
uint16_t float_to_half(float value);
uint16_t float_to_bfloat16(float value);

// splitmix64: a deterministic generator whose output is the same with every standard library.
struct SplitMix64 {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
};

}  // namespace msdt::fixture
