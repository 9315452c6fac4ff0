// The graph protobuf of MindSpore (anf_ir.proto, package mindspore.irpb; spec summary.md §6):
// `ms_output_*.pb` dumps, RDR graphs, the `ModelProto` of `-graph.meta` and the `graph_def` that
// summary files carry, decoded on the zero-copy wire reader into the same graph model as the .ir
// text. Types are spelled in the text notation (`<Tensor[Float32], (2, 3)>`) so that
// ir/type_spec.h reads both alike; constants and attribute values as MindSpore prints them
// (`I64(3)`, `Tensor(shape=[2], dtype=Float32)`, `(1, 2)`).
#pragma once

#include "io/byte_reader.h"
#include "io/error.h"
#include "ir/graph.h"

namespace msdt::ir {

// A GraphProto message. Errors name the byte offset and the field path.
Expected<Module> parse_graph_proto(Bytes message, uint64_t base_offset = 0);
// A ModelProto (field 4 is its graph); a file holding a bare GraphProto is read as one too.
Expected<Module> parse_model_proto(Bytes message, uint64_t base_offset = 0);

// The DataType enum's name ("DT_FLOAT32") or its number when unknown.
std::string proto_data_type_name(uint64_t value);

}  // namespace msdt::ir
