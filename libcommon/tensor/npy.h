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

// A view of the elements of a little-endian, C-order npy; an error for fortran order or
// big-endian data, which callers convert instead.
Expected<TensorView> npy_tensor(Bytes file, const NpyHeader& header);

}  // namespace msdt
