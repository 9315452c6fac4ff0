#include "ascend_dump_writer.h"

#include "proto_writer.h"

namespace msdt::testing {
namespace {

// Field numbers of OpInput and OpOutput diverge after `shape` (dump spec §5.4: OpOutput has
// `original_op` at 4), so each message kind gets its own table.
struct TensorFields {
  uint32_t data = 0;
  uint32_t size = 0;
  uint32_t original_shape = 0;
  uint32_t sub_format = 0;
  uint32_t address = 0;
};
constexpr TensorFields kOutputFields{5, 6, 7, 8, 9};
constexpr TensorFields kInputFields{4, 5, 6, 7, 8};

ProtoWriter encode_shape(const std::vector<uint64_t>& dims, bool unpacked) {
  ProtoWriter shape;
  if (dims.empty()) return shape;
  if (unpacked) {
    for (uint64_t d : dims) shape.varint(1, d);
  } else {
    shape.packed_varints(1, dims);
  }
  return shape;
}

uint64_t size_field(const AscendTensorSpec& t) {
  return t.size_override.value_or(t.payload.size());
}

// Fields are written in field-number order, as protobuf's own serializer does, and zero scalars
// are omitted as proto3 does, so readers are exercised on absent fields too.
ProtoWriter encode_tensor(const AscendTensorSpec& t, const TensorFields& f, bool is_output,
                          bool whole_protobuf) {
  ProtoWriter m;
  if (t.data_type != 0) m.varint(1, t.data_type);
  if (t.format != 0) m.varint(2, t.format);
  m.message(3, encode_shape(t.shape, t.unpacked_shape));
  if (is_output && (t.original_op_name || t.original_op_format)) {
    ProtoWriter op;
    if (t.original_op_name) op.string(1, *t.original_op_name);
    if (t.original_op_format) op.varint(4, *t.original_op_format);
    m.message(4, op);
  }
  if (whole_protobuf && !t.payload.empty()) m.bytes(f.data, t.payload);
  if (uint64_t size = size_field(t); size != 0) m.varint(f.size, size);
  if (t.original_shape)
    m.message(f.original_shape, encode_shape(*t.original_shape, t.unpacked_shape));
  if (t.sub_format)
    m.varint(f.sub_format, static_cast<uint64_t>(static_cast<int64_t>(*t.sub_format)));
  if (t.address) m.varint(f.address, *t.address);
  return m;
}

// OpBuffer and Workspace share the layout type = 1, data = 2, size = 3.
ProtoWriter encode_blob(const AscendTensorSpec& t, bool whole_protobuf) {
  ProtoWriter m;
  if (t.buffer_type != 0) m.varint(1, t.buffer_type);
  if (whole_protobuf && !t.payload.empty()) m.bytes(2, t.payload);
  if (uint64_t size = size_field(t); size != 0) m.varint(3, size);
  return m;
}

}  // namespace

std::vector<std::byte> encode_dump_data(const AscendDumpSpec& spec) {
  ProtoWriter m;
  if (!spec.version.empty()) m.string(1, spec.version);
  if (spec.dump_time != 0) m.varint(2, spec.dump_time);
  for (const auto& t : spec.outputs)
    m.message(3, encode_tensor(t, kOutputFields, true, spec.whole_protobuf));
  for (const auto& t : spec.inputs)
    m.message(4, encode_tensor(t, kInputFields, false, spec.whole_protobuf));
  for (const auto& t : spec.buffers) m.message(5, encode_blob(t, spec.whole_protobuf));
  if (!spec.op_name.empty()) m.string(6, spec.op_name);
  for (const auto& [name, value] : spec.attrs) {
    ProtoWriter attr;
    attr.string(1, name).string(2, value);
    m.message(7, attr);
  }
  for (const auto& t : spec.workspaces) m.message(8, encode_blob(t, spec.whole_protobuf));
  if (!spec.dfx_message.empty()) m.string(9, spec.dfx_message);
  return m.take();
}

std::vector<std::byte> write_ascend_dump(const AscendDumpSpec& spec) {
  std::vector<std::byte> message = encode_dump_data(spec);
  // The old layout (dump spec §5.3) is the bare message with the payloads inside it.
  if (spec.whole_protobuf) return message;

  std::vector<std::byte> file;
  const uint64_t header_length = spec.header_length_override.value_or(message.size());
  for (int i = 0; i < 8; ++i) file.push_back(static_cast<std::byte>(header_length >> (8 * i)));
  file.insert(file.end(), message.begin(), message.end());
  // Payload order is inputs, outputs, buffers, workspaces (dump spec §5.3), unlike the message.
  for (const auto* group : {&spec.inputs, &spec.outputs, &spec.buffers, &spec.workspaces})
    for (const auto& t : *group) file.insert(file.end(), t.payload.begin(), t.payload.end());
  return file;
}

}  // namespace msdt::testing
