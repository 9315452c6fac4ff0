// The Ascend binary dump container (dump spec §5.3–§5.8): an 8-byte header length, a serialized
// DumpData protobuf, then the input, output, buffer and workspace payloads back to back. Also the
// older whole-protobuf layout with the payloads inside the `data` fields.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "io/byte_reader.h"
#include "tensor/dtype.h"

namespace msdt::dump {

enum class AscendTensorKind { Input, Output, Buffer, Workspace };
std::string_view kind_name(AscendTensorKind kind);  // "input", "output", "buffer", "workspace"

struct AscendOriginalOp {
  std::string name;
  uint32_t output_index = 0;
  uint32_t data_type = 0;
  uint32_t format = 0;
};

struct AscendDimRange {
  uint64_t dim_start = 0;
  uint64_t dim_end = 0;
};

struct AscendTensor {
  AscendTensorKind kind = AscendTensorKind::Input;
  uint32_t index = 0;          // position among tensors of the same kind
  uint32_t data_type = 0;      // OutputDataType as stored (inputs/outputs only)
  uint32_t format = 0;         // OutputFormat as stored, unmasked
  std::vector<uint64_t> shape;           // device shape
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

struct AscendDump {
  bool whole_protobuf = false;  // old layout: payloads inside `data`
  uint64_t header_length = 0;
  std::string version;
  uint64_t dump_time = 0;
  std::string op_name;
  std::vector<std::pair<std::string, std::string>> attrs;
  std::string dfx_message;
  std::vector<AscendTensor> inputs, outputs, buffers, workspaces;
};

// Cheap content check used to recognise a file (dump spec §3.9): plausible header length and a
// DumpData that parses with sizes adding up.
bool looks_like_ascend_dump(Bytes file);

// Parses and checks the whole container: header length within the file, the protobuf, and that
// the payload sizes add up to the file size exactly.
Expected<AscendDump> parse_ascend_dump(Bytes file);

// The tensor as elements: dtype from data_type, shape from `shape` (empty shape with size > 0:
// 1-D of size elements; DT_UNDEFINED: int8 bytes), data cut to prod(shape) × itemsize (§5.7).
// Errors when the payload is smaller than the shape needs or the type has no element layout.
Expected<TensorView> ascend_tensor_view(const AscendTensor& tensor);

// Decodes an Opdebug overflow payload (§5.8), the old 2048-byte layout or the 0x5A5A5A5A one, into
// the JSON msaccucmp writes for it.
Expected<nlohmann::ordered_json> decode_overflow(Bytes payload, uint64_t base_offset);

// Every field of the dump as JSON, for `dump-parse --show --json` and the text view.
nlohmann::json ascend_dump_to_json(const AscendDump& dump);

}  // namespace msdt::dump
