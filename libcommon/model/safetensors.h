// safetensors checkpoints (checkpoint spec §8, §11 item 7): an 8-byte little-endian header size,
// a JSON header, then the tensors' bytes. MindSpore 2.4+ writes them with the safetensors library
// and keeps its own facts in `__metadata__` (§8.2: `format`, `remove_redundancy`, `crc_num`, and
// `"<param>": "Int4"` for a qint4x2 parameter stored as its NumPy view).
//
// Reading parses the header only: each tensor is an (offset, length) in the file, never read, so
// listing a large file touches its first pages. The bytes are taken later through tensor_data
// (model/content.h), one tensor at a time.
//
// The checks are the safetensors library's (`SafeTensors::read_metadata`, `Metadata::validate`):
// the header size is capped (100 000 000 bytes, as the library and MindSpore's own reader cap it)
// and must fit in the file; the header is UTF-8 JSON (serde_json's nesting limit of 128 levels
// applies); every tensor has `dtype`, `shape` and `data_offsets`; taken in offset order, the
// tensors' ranges must tile the data region from 0 to the end of the file with no hole and no
// overlap, and each range must hold exactly what the dtype and shape need. The library refuses a
// file that breaks any of these. Here only a header that cannot be read at all (too short, size
// beyond the file or the cap, not UTF-8, not a JSON object) ends reading; everything else goes to
// `problems` and the tensor stays listed (or is left out when its entry has no usable offsets), so
// a tool can show what is there:
//   offset 0x1a: tensor 'fc.weight': data_offsets [0, 12] hold 12 bytes, F32 [2, 2] needs 16
// A header problem names the byte where it is: a JSON syntax error where the parser stopped, a
// tensor's problem where its key starts, a hole after the last tensor where the hole starts.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/byte_reader.h"
#include "io/output_file.h"
#include "model/checkpoint.h"
#include "model/content.h"
#include "tensor/dtype.h"

namespace msdt::model {

// What the safetensors library (and MindSpore's safetensors reader) accept as a header size.
inline constexpr uint64_t kSafetensorsMaxHeader = 100'000'000;

struct SafetensorsTensor {
  std::string name;
  // spelling: the header's dtype as written ("F32", "BF16", "F8_E4M3"); dtype: its DType, nullopt
  // for a name with no DType here (F8_E4M3FNUZ, F8_E5M2FNUZ) or an unknown name; dims and shape:
  // the header's shape ([] is a scalar, [0] no element); one segment at its absolute file offset
  // (8 + header_size + begin); expected_bytes: the library's rule, elements × bits / 8 (rounded
  // up for F4 and F6, a problem besides), nullopt for an unknown dtype or a count past 2^64.
  Content content;
  // "Int4" when `__metadata__` maps this tensor's name to a MindSpore dtype (spec §8.2): the bytes
  // are the NumPy view of a qint4x2 parameter (as `spelling` and `shape` say), which MindSpore's
  // loader turns back into its dtype. Empty otherwise.
  std::string mindspore_dtype;
  uint64_t header_offset = 0;  // where the tensor's key starts in the file
};

struct Safetensors {
  uint64_t file_size = 0;
  uint64_t header_size = 0;  // as the first 8 bytes give it
  // `__metadata__` in file order. The format's values are strings; any other value is shown as
  // its JSON text (and is a problem).
  std::vector<std::pair<std::string, std::string>> metadata;
  std::vector<SafetensorsTensor> tensors;  // in data_offsets order, which is file order
  // Spec §8.2: Absent without `crc_num` in `__metadata__`; NotChecked unless verify_crc (or when
  // `crc_num` is not a decimal number, or a tensor lies outside the file); `stored` is the
  // decimal value, `computed` CRC-32 chained over each tensor's name (UTF-8) then its bytes, in
  // name order.
  CrcCheck crc;
  std::vector<Error> problems;  // in the order found; every one has an offset

  uint64_t data_offset() const { return 8 + header_size; }
  // The `__metadata__` value of `key`, if any.
  const std::string* metadata_value(std::string_view key) const;
};

struct SafetensorsOptions {
  // Verifying reads every byte of every tensor, which listing must not do, so it is asked for.
  bool verify_crc = false;
  uint64_t max_header = kSafetensorsMaxHeader;
};

// `file` is the whole file, usually mapped (io/mapped_file.h); offsets are from its start.
Safetensors read_safetensors(Bytes file, const SafetensorsOptions& options = {});

// The DType of a safetensors dtype name ("F32" → Float32, "F8_E4M3" → Float8E4M3FN, "F4" →
// Float4E2M1, "C64" → Complex64); nullopt for names without a DType and unknown names.
std::optional<DType> safetensors_dtype(std::string_view name);
// The name write_safetensors writes for a DType: BOOL, U8, I8, I16, U16, I32, U32, I64, U64,
// F16, BF16, F32, F64, F8_E5M2, F8_E4M3, F8_E8M0, C64. nullopt for every other DType (Int4 and the
// other sub-byte types, whose packing the format leaves to its readers, String, Complex128, …).
std::optional<std::string_view> safetensors_dtype_name(DType dtype);

// One tensor of a file to write.
struct SafetensorsEntry {
  std::string name;
  DType dtype = DType::Float32;
  std::vector<uint64_t> shape;
  uint64_t bytes = 0;  // must be what dtype and shape need
};

// Writes a safetensors file as the safetensors library writes one: the header size, the compact
// JSON header (`__metadata__` first when `metadata` is not empty, then per entry
// {"dtype","shape","data_offsets"} in entry order), padded with spaces to a multiple of 8 bytes,
// then each entry's bytes in entry order, asked of `fetch(i)` one at a time so that no more than
// one tensor is held. Every entry is checked before anything is written: a dtype with no
// safetensors name, a repeated or non-UTF-8 name, `__metadata__` as a name, a byte count that does
// not match dtype and shape, repeated metadata keys or a header over the cap are errors. A fetched
// tensor of another size is an error too. The caller commits `out` (or drops it on an error).
Status write_safetensors(AtomicFile& out, const std::vector<SafetensorsEntry>& entries,
                         const std::vector<std::pair<std::string, std::string>>& metadata,
                         const std::function<Expected<TensorData>(size_t)>& fetch);

// The header write_safetensors writes (without the 8-byte size in front), or the error it gives
// before writing.
Expected<std::string> safetensors_header(
    const std::vector<SafetensorsEntry>& entries,
    const std::vector<std::pair<std::string, std::string>>& metadata);

}  // namespace msdt::model
