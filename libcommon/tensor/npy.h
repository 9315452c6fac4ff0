// The .npy format (dump spec §9): a reader that accepts every header NumPy and MindSpore write,
// and a writer of the standard form.
#pragma once

#include <optional>
#include <string>

#include "tensor/dtype.h"

namespace msdt {

struct NpyHeader {
  uint8_t major_version = 1;
  uint8_t minor_version = 0;
  std::string descr;             // as written, e.g. "<f4", "<E2"
  DType dtype = DType::Float32;  // '<E2', or 'V2' with a bfloat16 name hint, give BFloat16
  bool big_endian = false;
  bool fortran_order = false;
  std::vector<uint64_t> shape;
  uint64_t data_offset = 0;  // where the elements start
  uint64_t data_size = 0;    // dtype_bytes(element count); checked to fit in the file
};

// True when `file` starts with the npy magic string; how a file is recognised by content.
bool looks_like_npy(Bytes file);

// Parses the header of a whole .npy file and checks that the data fits in it. Extra bytes after
// data_offset + data_size are allowed; a caller may warn about them. Errors carry the offset of
// the offending byte (bad magic, unsupported version, header length past the end, malformed dict
// naming the key or character, unknown descr, shape overflow, data shorter than the header says).
// `dtype_hint` comes from a dtype word in the file name and only disambiguates 'V2'.
Expected<NpyHeader> parse_npy(Bytes file, std::optional<DType> dtype_hint = std::nullopt);

// Version 1.0 header (2.0 when it would not fit), 64-byte aligned, keys descr, fortran_order,
// shape; C order. `dtype` must have an npy_descr.
std::string make_npy_header(DType dtype, std::span<const uint64_t> shape);

// What numpy.load accepts, so that every .npy we write loads (dump spec §9). A writer of .npy
// calls check_npy_loadable first and writes nothing for a tensor it refuses.
// Dimensions: NumPy 1 loads at most 32 (NPY_MAXDIMS), NumPy 2 at most 64; we keep to 32, the limit
// both load.
inline constexpr size_t kNpyMaxDims = 32;
// The header after its length field: numpy/lib/format.py _MAX_HEADER_SIZE (max_header_size), the
// default of numpy.load. With at most 32 dimensions our headers stay under 1 KiB; checked anyway.
inline constexpr uint64_t kNpyMaxHeaderBytes = 10000;

// An error naming the limit when numpy.load would refuse a C-order .npy of `storage` (the dtype
// written, after conversion) and `shape`: more than kNpyMaxDims dimensions, a header over
// kNpyMaxHeaderBytes, a dimension of 2^63 or more ("Maximum allowed dimension exceeded"), or the
// non-zero dimensions times the element size over 2^63 - 1 bytes ("array is too big": NumPy skips
// zero dimensions in that product, so (0, 2^62) of float32 is refused although it has no element).
Status check_npy_loadable(DType storage, std::span<const uint64_t> shape);

// A view of the elements of a little-endian, C-order npy; an error for fortran order or
// big-endian data, which callers convert instead.
Expected<TensorView> npy_tensor(Bytes file, const NpyHeader& header);

}  // namespace msdt
