// The MindSpore `.ckpt` reader (checkpoint spec §3-§6, §11 items 1-6 and 8): a file is a run of
// concatenated `Checkpoint` messages, each holding one `Value` (a parameter, or a slice of a
// parameter over 512 MiB), optionally followed by the 2.3+ `crc_num` trailer.
//
// Reading walks the headers only: every length-delimited field is stepped over by its length, and
// `tensor_content` is remembered as an (offset, length) in the file, never read, so listing a
// multi-gigabyte checkpoint touches a few pages per parameter and keeps memory flat. The bytes are
// taken later, one parameter at a time (tensor_data), as a view into the mapping when the
// parameter is one slice and copied only when it is several.
//
// Damage does not lose what came before it. A broken top-level framing (a truncated file, a length
// beyond the end) ends the walk; a broken Value inside intact framing (a negative dim, a missing
// tag) is skipped and the walk goes on. Either way the problem goes to `problems` with its offset
// and the parameters read so far are returned, so a tool can list the good part:
//   offset 0x2c: Value 3 'fc.bias': dims[0] is negative (-1)
// Values are numbered from 0 in file order.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/byte_reader.h"
#include "model/content.h"
#include "tensor/dtype.h"

namespace msdt::model {

enum class ParameterKind : uint8_t {
  Tensor,     // numeric elements (or an unknown tensor_type spelling, listed as found)
  String,     // tensor_type "str": UTF-32 characters, dims [0] (spec §4.3)
  RandomOp,   // tensor_type "random_op": the executor's opaque RNG state (spec §4.4)
  MapTensor,  // maptensor: keys, values and status, NumPy dtype names (spec §4.5)
};
std::string_view parameter_kind_name(ParameterKind kind);  // "tensor", "str", "random_op", "map"

struct Parameter {
  std::string name;  // Value.tag
  ParameterKind kind = ParameterKind::Tensor;
  Content content;                      // Tensor, String, RandomOp
  std::vector<Content> map;             // MapTensor: keys, values, status
  std::vector<uint64_t> value_offsets;  // the top-level `0a` of each Value merged into this one
  uint64_t offset() const { return value_offsets.empty() ? 0 : value_offsets.front(); }
};

enum class CrcStatus : uint8_t {
  Absent,      // no trailer
  NotChecked,  // a trailer, not verified (ReadOptions::verify_crc off)
  Ok,
  Mismatch,
};
std::string_view crc_status_name(CrcStatus status);  // "absent", "not checked", "ok", "mismatch"

struct CrcCheck {
  CrcStatus status = CrcStatus::Absent;
  uint64_t stored = 0;    // the trailer's 10-byte big-endian value
  uint32_t computed = 0;  // Ok, Mismatch: CRC-32 of the body
  // "CRC ok", "CRC mismatch (stored 0x…, computed 0x…)", "CRC absent", "CRC not checked".
  std::string describe() const;
};

struct ReadOptions {
  // Verifying reads every byte of the body, which listing must not do, so it is asked for.
  bool verify_crc = false;
  // Called with the file offset reached after each top-level message, so that a caller reading a
  // mapped file can give back the pages behind it (MappedFile::drop_pages) and keep memory flat.
  std::function<void(uint64_t)> walked;
  // When set, each parameter is handed over as soon as it is complete (its last slice read and
  // its size checked) instead of being kept in Checkpoint::parameters, which stays empty: memory
  // then holds one parameter at a time, whatever their number (ckpt-inspect keeps only its own
  // description of each).
  std::function<void(Parameter&&)> parameter;
};

struct Checkpoint {
  uint64_t file_size = 0;
  uint64_t body_size = 0;  // the protobuf stream: the file without its CRC trailer
  CrcCheck crc;
  std::vector<Parameter> parameters;  // in file order, runs of equal tags merged (empty when
                                      // ReadOptions::parameter takes them)
  uint64_t parameter_count = 0;       // parameters read, kept or handed over
  uint64_t values = 0;                // Values read (slices count one each)
  // In file order. A CRC mismatch, a size mismatch or a slice that disagrees with the first one
  // leaves the parameter listed; a damaged Value is left out; damaged framing ends the walk.
  std::vector<Error> problems;
};

// The dtype of a tensor_type spelling of spec §5: "Int8" … "Float64", both "UInt8" and the
// loader's "Uint8" (up to "UInt64"), "Bool", "BFloat16", "Int4" (MindSpore qint4x2, two per
// byte) and "str" (String). nullopt for "random_op" and any other spelling. Map components take
// NumPy names instead ("int64", "float32": dtype_name's spellings).
std::optional<DType> checkpoint_dtype(std::string_view spelling);

// `file` is the whole file, usually mapped (io/mapped_file.h); offsets are from its start.
Checkpoint read_checkpoint(Bytes file, const ReadOptions& options = {});

// CRC-32 as zlib and Python's binascii.crc32 compute it (reflected 0xEDB88320, init and final
// XOR 0xFFFFFFFF; "123456789" gives 0xCBF43926). ISA-L's crc32_gzip_refl underneath. `crc` chains
// pieces: crc32(b, crc32(a)) == crc32(a + b).
uint32_t crc32(Bytes data, uint32_t crc = 0);

// A string parameter's value, UTF-32LE decoded to UTF-8; an error names the byte offset of the
// first invalid code point (a surrogate or above U+10FFFF) or a length that is not a multiple of
// 4. A NUL ends the string, as NumPy's `U` type pads with NULs.
Expected<std::string> string_value(Bytes file, const Content& content);

}  // namespace msdt::model
