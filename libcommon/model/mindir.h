// The MindIR reader (mindir spec §2-§5, §7): a `mind_ir.ModelProto` (MindSpore 1.1+) or the
// ONNX-based `ModelProto` that MindSpore 0.7-1.0 exported as MindIR, decoded once into a plain
// description that serves both the weight listing (ckpt-inspect) and the graph drawing
// (ir/mindir_graph.h).
//
// Like the .ckpt reader, reading walks the messages and remembers where each weight's bytes lie
// (a Segment with an absolute offset), never copying them. Every length is bounded by its
// enclosing message. Damage does not lose what came before it: a length beyond its message is
// reported once and the bytes that are there are read as that field; a field of the wrong wire
// type is reported and skipped. Unknown fields are skipped and unknown enum values are kept as
// numbers (spec §4.10, §7 item 5). Problems carry the byte offset:
//   offset 0x1f3: graph 'main' parameter 2 'fc1.weight': raw_data holds 12 bytes, dims [2, 3]
//   FLOAT need 24
//
// External weights (spec §5) live in other files. A 1.6+ weight names its data file in
// `external_data` (`MindIRWeight::data_file`, relative to the model's directory); the 1.2-1.5 split
// models keep their weights in `{prefix}_variables/data_N` GraphProto chunks, which the caller
// reads with add_graph_chunk. Either way the bytes are taken by mindir_tensor_data through a
// callback that maps a relative path, so this library never opens files and a missing one is the
// error of that weight alone.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/byte_reader.h"
#include "io/error.h"
#include "model/content.h"

namespace msdt::model {

enum class MindIRGeneration : uint8_t {
  MindIR,      // `mind_ir.ModelProto`, MindSpore 1.1+
  LegacyOnnx,  // `onnx.ModelProto` written by MindSpore 0.7-1.0's MindIR exporter (spec §2)
};
std::string_view mindir_generation_name(MindIRGeneration generation);  // "mind_ir", "legacy-onnx"

// Where a weight's elements are stored.
enum class MindIRStorage : uint8_t {
  None,        // no data field at all (a declared but empty tensor)
  RawData,     // TensorProto.raw_data in the model file
  External,    // 1.6+ external_data: a range of a `_variables/data_N` file (spec §5.1)
  GraphChunk,  // raw_data of a 1.2-1.5 `_variables/data_N` GraphProto chunk (spec §5.2)
  FloatData,   // the typed repeated fields: values, decoded by mindir_tensor_data
  Int32Data,
  Int64Data,
  DoubleData,
  Uint64Data,
  StringData,  // strings: listed, not exported
};

// A named attribute with its value as text, as MindSpore prints values: `3`, `0.5`, `"same"`,
// `(1, 2)`, `[1, 2]`, `Tensor(shape=[2], dtype=INT64)`, `@graph`; an unknown form as
// `<AttributeType 41>`.
struct MindIRAttribute {
  std::string name;
  std::string text;
};

// One weight: GraphProto.parameter (mind_ir) or GraphProto.initializer (legacy).
struct MindIRWeight {
  std::string name;
  size_t graph = 0;        // index into MindIR::graphs
  uint64_t offset = 0;     // absolute offset of the TensorProto's tag in the file that holds it
  uint64_t data_type = 0;  // the DataType value as found
  // spelling: the DataType name as MindIR spells it ("FLOAT", "FLOAT16", "QINT4X2"), or the number
  // when unknown; dtype: FLOAT64 and DOUBLE both Float64, QINT4X2 Int4 (two per byte); segments:
  // raw_data or the external range (absolute in data_file), or each typed field's payload.
  Content content;
  MindIRStorage storage = MindIRStorage::None;
  // The data file (External, GraphChunk) as written: "Net_variables/data_0", relative to the
  // directory of the model file.
  std::string data_file;
  // External: external_data as written (offset and length in data_file; length is also the one
  // segment's length).
  int64_t external_offset = 0;
  int64_t external_length = 0;
  // Typed fields: how many values they hold (a complex element takes two).
  uint64_t values = 0;
  uint64_t compression = 0;               // CompressionType; not 0: encoded bytes (spec §4.7)
  std::vector<std::string> quantization;  // quant_params' quant_algo_name, in order
  std::string ref_key;                    // TensorProto.ref_key (1.6+)
  // The TensorProto's payload in the file that holds it (typed fields are decoded from it again)
  // and its schema.
  Segment message;
  bool legacy = false;
  // "raw_data", "external", "graph_chunk", "float_data", …, "none"; "compressed" when compression
  // is not 0 and "quantized" when quant_params are present, whatever holds the bytes.
  std::string storage_word() const;
};

// "raw_data", "external", "graph_chunk", "float_data", "int32_data", "int64_data", "double_data",
// "uint64_data", "string_data", "none".
std::string_view mindir_storage_name(MindIRStorage storage);

// A value read from a ValueInfoProto (mind_ir: its first tensor; legacy: its TypeProto).
struct MindIRValueInfo {
  std::string name;
  std::optional<uint64_t> data_type;
  std::vector<int64_t> dims;  // -1 for a dynamic dimension
};

struct MindIRNode {
  std::string name;
  std::string op_type;  // as written: "REF::Conv2D:1", "REF::✓_graph", "Add", "Constant"
  std::string domain;   // the exporter stores fullname_with_scope() here (spec §3.2)
  std::vector<std::string> inputs, outputs;
  std::vector<MindIRAttribute> attributes;  // attribute, then node_attr and primal_attr (2.0+)
  uint64_t offset = 0;                      // the NodeProto's tag
};

struct MindIRPrimitive {
  std::string name;     // the unique name "Conv2D:1" that `REF::` op types name
  std::string op_type;  // "Conv2D"
  std::string instance_name;
  std::optional<uint64_t> prim_type;  // 1 PRIMITIVE, 2 PRIMITIVE_FUNCTION (2.3+)
  std::vector<MindIRAttribute> attributes;
  uint64_t offset = 0;
};

struct MindIRGraph {
  std::string name;
  bool is_function = false;  // ModelProto.functions, not the main graph
  std::vector<MindIRNode> nodes;
  std::vector<size_t> weights;  // indexes into MindIR::weights
  std::vector<MindIRValueInfo> inputs, outputs;
  std::vector<MindIRAttribute> attributes;  // GraphProto.attribute (1.6+)
  uint64_t map_parameters = 0;              // MapTensorProto (2.0+), counted
  uint64_t offset = 0;
};

struct MindIR {
  MindIRGeneration generation = MindIRGeneration::MindIR;
  // §3.1 as found. ir_version and model_version are strings in mind_ir and integers in the legacy
  // ModelProto, which are shown in decimal.
  std::optional<std::string> ir_version, producer_name, producer_version, domain, model_version,
      doc_string;
  std::optional<bool> little_endian;                          // 1.6+
  std::optional<int64_t> mind_ir_version;                     // 1.7+
  std::vector<std::pair<std::string, int64_t>> opset_import;  // legacy: domain, version

  // ModelProto.preprocessor: absent, a PreprocessorProto (1.6+; its op count) or JSON text (1.5).
  bool has_preprocessor = false;
  bool preprocessor_is_text = false;
  uint64_t preprocessor_ops = 0;
  std::vector<std::pair<std::string, std::string>> user_info;  // 2.2+
  bool has_parallel = false;
  uint64_t parallel_layouts = 0;

  std::vector<MindIRGraph> graphs;  // `graph` first (when present), then `functions` in order
  std::vector<MindIRPrimitive> primitives;
  std::vector<MindIRWeight> weights;  // every graph's, in file order

  uint64_t file_size = 0;
  std::vector<Error> problems;  // in file order, each with its offset

  // The main graph (ModelProto.graph), nullptr when the file has none.
  const MindIRGraph* main_graph() const;
  // The data files the weights name, each once, in order of first use.
  std::vector<std::string> data_files() const;
};

// `file` is the whole model file (usually mapped). The generation is told apart by the first
// field: mind_ir's ir_version is a string, ONNX's a varint (spec §2).
MindIR read_mindir(Bytes file);

// {prefix}_variables for a model file name `{prefix}_graph.mindir` (spec §5.1, §5.2): the
// directory where the split weights lie, relative to the model's directory; empty when the name
// does not end in "_graph.mindir".
std::string mindir_variables_dir(std::string_view model_file_name);

// A 1.2-1.5 `data_N` (spec §5.2): a GraphProto whose parameters carry raw_data. Its weights are
// appended to `model` with storage GraphChunk, data_file `relative`, offsets in `chunk`, and
// graph index of the main graph (the parameters emptied from it; an empty one is added when the
// model has none); problems go to model.problems
// with "data file '<relative>'" in front.
void add_graph_chunk(MindIR& model, Bytes chunk, std::string_view relative);

// Maps a data file named relative to the model's directory (the caller's choice of how).
using MindIRFileSource = std::function<Expected<Bytes>(std::string_view relative)>;

// One weight's elements: a view into `file` (raw_data) or into the data file (External,
// GraphChunk, obtained from `source`), or decoded into an owned buffer (typed fields). Errors:
// compressed or string weights, an unknown dtype, a length that does not match the dims, a
// missing data file, a range past its end, a 1.6+ data file written by a big-endian host.
Expected<TensorData> mindir_tensor_data(Bytes file, const MindIRWeight& weight,
                                        const MindIRFileSource& source = {});

// The name of a DataType value ("FLOAT", "BFLOAT16") or its number; its msdt dtype.
std::string mindir_data_type_name(uint64_t value);
std::optional<DType> mindir_dtype(uint64_t value);

}  // namespace msdt::model
