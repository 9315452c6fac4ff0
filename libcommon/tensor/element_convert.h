// Turning elements npy cannot hold into ones it can (dump spec §9.4): bfloat16 to float32 (or raw
// 16-bit patterns), int4 to int8 (low nibble first, sign-extended), uint1 to uint8 (np.unpackbits
// order, most significant bit first, as msaccucmp does), float8, hifloat8, float6 and float4 to
// float32, complex32 to complex64.
#pragma once

#include <vector>

#include "tensor/dtype.h"

namespace msdt {

enum class Bf16Mode { Float32, Raw };  // Raw: the bit patterns as uint16

// The dtype a tensor of `dtype` is written as in a standard .npy; nullopt when there is none
// (string, int2, uint2, hifloat4).
std::optional<DType> npy_storage_dtype(DType dtype, Bf16Mode bf16 = Bf16Mode::Float32);

// True when npy_storage_dtype(dtype) == dtype and the bytes can be copied as they are.
bool stored_as_is(DType dtype, Bf16Mode bf16 = Bf16Mode::Float32);

// Converts `count` elements of `tensor` starting at element `first` to npy_storage_dtype, appending
// the little-endian bytes to `out`. Callers convert in chunks to keep memory flat.
Status convert_elements(const TensorView& tensor, uint64_t first, uint64_t count, Bf16Mode bf16,
                        std::vector<std::byte>& out);

// The scalar decoder of a float type of 8 bits or fewer (float8 e4m3fn / e5m2 / e8m0, hifloat8,
// float6 e2m3 / e3m2, float4 e2m1 / e1m2); nullopt for other types.
std::optional<float (*)(uint8_t)> small_float_decoder(DType dtype);

// Element i of such a tensor (packed 4- and 6-bit codes, first element in the low bits), as float.
// The caller checks that `data` holds element i.
float small_float_at(DType dtype, Bytes data, uint64_t i);

// Bulk: elements [first, first + count) of `data` to float32 in `out` (a table lookup per element
// for the 8-bit types). For statistics and conversion alike.
Status small_floats_to_float32(DType dtype, Bytes data, uint64_t first, uint64_t count, float* out);

}  // namespace msdt
