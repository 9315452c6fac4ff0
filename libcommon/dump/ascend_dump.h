// The Ascend binary dump container (dump spec §5.3–§5.8): an 8-byte header length, a serialized
// DumpData protobuf, then the input, output, buffer and workspace payloads back to back. Also the
// older whole-protobuf layout with the payloads inside the `data` fields.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "io/byte_reader.h"
#include "tensor/dtype.h"

namespace msdt::dump {

enum class AscendTensorKind { Input, Output, Buffer, Workspace };
std::string_view kind_name(AscendTensorKind kind);  // "input", "output", "buffer", "workspace"

struct AscendOriginalOp {
  std::string name;
  uint32_t output_index = 0;
  uint64_t data_type = 0;  // enums as read: a value past 32 bits is shown, not cut (§5.5)
  uint64_t format = 0;
};

struct AscendDimRange {
  uint64_t dim_start = 0;
  uint64_t dim_end = 0;
};

struct AscendTensor {
  AscendTensorKind kind = AscendTensorKind::Input;
  uint32_t index = 0;           // position among tensors of the same kind
  uint64_t data_type = 0;       // OutputDataType as stored (inputs/outputs only), all 64 bits
  uint64_t format = 0;          // OutputFormat as stored, unmasked
  std::vector<uint64_t> shape;  // device shape
  std::vector<uint64_t> original_shape;  // host shape; empty when absent
  bool has_original_shape = false;
  int32_t sub_format = 0;
  uint64_t address = 0;
  uint64_t offset = 0;  // the proto field, not the file position
  uint32_t arg_index = 0;
  uint32_t input_type = 0;
  uint32_t buffer_type = 0;  // OpBuffer.buffer_type / Workspace.type
  std::optional<AscendOriginalOp> original_op;
  std::vector<AscendDimRange> dim_range;
  uint64_t size = 0;            // payload bytes, from the `size` field
  uint64_t payload_offset = 0;  // absolute file offset of the payload
  Bytes payload;                // `size` bytes
};

// At most this many tensors (inputs, outputs, buffers and workspaces together) in one container,
// and as many attrs, and dim ranges per tensor: an empty entry costs two bytes of protobuf, so
// without a limit a small file could ask for millions of outputs. Real operators have at most a
// few hundred.
inline constexpr uint64_t kMaxAscendTensors = 16384;

struct AscendDump {
  bool whole_protobuf = false;  // old layout: payloads inside `data`
  uint64_t header_length = 0;
  std::string version;
  uint64_t dump_time = 0;
  std::string op_name;
  std::vector<std::pair<std::string, std::string>> attrs;
  std::string dfx_message;
  std::vector<AscendTensor> inputs, outputs, buffers, workspaces;
  // Bytes after the last payload (2.0 layout): accepted as the current msaccucmp does (§5.3).
  uint64_t trailing_bytes = 0;
  // What a tool should warn about (trailing bytes), each at its offset.
  std::vector<Error> warnings;
};

// Cheap content check used to recognise a file (dump spec §3.9): plausible header length and a
// DumpData that parses with sizes adding up.
bool looks_like_ascend_dump(Bytes file);

// Whether `start`, the first bytes of an input (all of it when shorter than 16), could begin a
// container: a length prefix of a header that is not empty followed by the tag of a DumpData
// field (2.0 layout), or such a tag at once (whole-protobuf layout). For "-", which has to be
// refused before it is read to the end.
bool could_start_ascend_dump(Bytes start);

// Parses and checks the whole container: header length within the file, the protobuf, at most
// kMaxAscendTensors tensors, and payloads that end within the file. Bytes after the last payload
// are accepted with a warning in `warnings`, as the current msaccucmp accepts them (§5.3).
Expected<AscendDump> parse_ascend_dump(Bytes file);

// The tensor as elements: dtype from data_type, shape from `shape` (empty shape with size > 0:
// 1-D of size elements; DT_UNDEFINED: int8 bytes), data cut to prod(shape) × itemsize (§5.7).
// Errors when the payload is smaller than the shape needs or the type has no element layout.
Expected<TensorView> ascend_tensor_view(const AscendTensor& tensor);

// An OutputFormat as msaccucmp names it ("NC1HWC0", "FRACTAL_Z"), or its number (masked to 8 bits)
// when the name is unknown.
std::string ascend_format_string(uint64_t output_format);

// How a tensor's stored layout reads back on the host (dump spec §8), for dump-convert's -f and
// dump-compare: the stored format, ND when a 4-D host format claims a shape of another rank
// (msaccucmp `_get_format_and_shape`), original_shape and the axis order it is written in (the
// original op's format), and the FRACTAL_Z groups (sub_format, 1 when absent).
struct AscendLayout {
  std::string format;
  std::vector<uint64_t> original_shape;  // empty when absent
  std::string original_format;           // empty without an original op
  uint32_t groups = 1;
};
AscendLayout ascend_layout(const AscendTensor& tensor, const TensorView& device);

// Decodes an Opdebug overflow payload (§5.8), the old 2048-byte layout or the 0x5A5A5A5A one, into
// the JSON msaccucmp writes for it.
Expected<nlohmann::ordered_json> decode_overflow(Bytes payload, uint64_t base_offset);

// The largest npy-mode overflow record read (MindSpore's are a few hundred bytes).
inline constexpr uint64_t kMaxOverflowJsonBytes = uint64_t{1} << 20;

// An npy-mode overflow record (§5.8, Opdebug.Node_OpDebug.{task}.{stream}.{ts}.output.{i}.json):
// a JSON object holding at least one of the blocks "DHA Atomic Add", "L2 Atomic Add", "AI Core",
// each an object. Errors name the byte offset of invalid JSON.
Expected<nlohmann::json> parse_overflow_json(std::string_view text);

// Every field of the dump as JSON, for `dump-parse --show --json` and the text view.
nlohmann::json ascend_dump_to_json(const AscendDump& dump);

}  // namespace msdt::dump
