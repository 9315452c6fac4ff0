#include "dump/ascend_dump.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstring>
#include <nlohmann/json.hpp>
#include <string>

#include "support/ascend_dump_writer.h"
#include "support/proto_writer.h"
#include "tensor/layout.h"

namespace msdt::dump {
namespace {

using msdt::testing::AscendDumpSpec;
using msdt::testing::AscendTensorSpec;
using msdt::testing::ProtoWriter;
using msdt::testing::write_ascend_dump;

std::vector<std::byte> floats(std::initializer_list<float> values) {
  std::vector<std::byte> out(values.size() * 4);
  size_t i = 0;
  for (float v : values) {
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    for (int b = 0; b < 4; ++b) out[i++] = static_cast<std::byte>(bits >> (8 * b));
  }
  return out;
}

std::vector<std::byte> filled(size_t n, uint8_t first = 0) {
  std::vector<std::byte> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<std::byte>(first + i);
  return out;
}

std::vector<std::byte> with_length_prefix(const std::vector<std::byte>& message,
                                          const std::vector<std::byte>& payloads = {}) {
  std::vector<std::byte> file;
  const uint64_t n = message.size();
  for (int i = 0; i < 8; ++i) file.push_back(static_cast<std::byte>(n >> (8 * i)));
  file.insert(file.end(), message.begin(), message.end());
  file.insert(file.end(), payloads.begin(), payloads.end());
  return file;
}

std::vector<std::byte> concat(std::initializer_list<std::vector<std::byte>> parts) {
  std::vector<std::byte> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

std::string parse_error(const std::vector<std::byte>& file) {
  auto dump = parse_ascend_dump(file);
  if (dump) return "no error";
  return dump.error().describe();
}

AscendDumpSpec full_spec() {
  AscendDumpSpec spec;
  spec.dump_time = 1690000000123456;
  spec.op_name = "Default/network/Conv2D-op12";
  spec.attrs = {{"threadMode", "0"}, {"k", "v"}};
  spec.dfx_message = "dfx";
  AscendTensorSpec in0;
  in0.data_type = 2;  // DT_FLOAT16
  in0.format = 3;     // NC1HWC0
  in0.shape = {1, 1, 2, 2, 16};
  in0.original_shape = std::vector<uint64_t>{1, 3, 2, 2};
  in0.sub_format = -2;
  in0.address = 0x12340000;
  in0.payload = filled(256, 1);
  AscendTensorSpec in1;
  in1.shape = {3};
  in1.payload = floats({1.5f, -2.0f, 0.25f});
  AscendTensorSpec out0;
  out0.shape = {2};
  out0.original_op_name = "orig/op";
  out0.payload = floats({7.0f, 8.0f});
  out0.unpacked_shape = true;
  AscendTensorSpec buf0;
  buf0.payload = filled(5, 0x50);
  AscendTensorSpec space0;
  space0.buffer_type = 0;
  space0.payload = filled(3, 0x70);
  spec.inputs = {in0, in1};
  spec.outputs = {out0};
  spec.buffers = {buf0};
  spec.workspaces = {space0};
  return spec;
}

TEST(AscendDump, ParsesEveryWrittenField) {
  const AscendDumpSpec spec = full_spec();
  const auto file = write_ascend_dump(spec);
  auto dump = parse_ascend_dump(file);
  ASSERT_TRUE(dump) << dump.error().describe();
  EXPECT_FALSE(dump->whole_protobuf);
  EXPECT_EQ(dump->version, "2.0");
  EXPECT_EQ(dump->dump_time, 1690000000123456u);
  EXPECT_EQ(dump->op_name, "Default/network/Conv2D-op12");
  ASSERT_EQ(dump->attrs.size(), 2u);
  EXPECT_EQ(dump->attrs[0], (std::pair<std::string, std::string>{"threadMode", "0"}));
  EXPECT_EQ(dump->attrs[1], (std::pair<std::string, std::string>{"k", "v"}));
  EXPECT_EQ(dump->dfx_message, "dfx");
  const uint64_t header_length = load_u64le(file.data());
  EXPECT_EQ(dump->header_length, header_length);

  ASSERT_EQ(dump->inputs.size(), 2u);
  const AscendTensor& in0 = dump->inputs[0];
  EXPECT_EQ(in0.kind, AscendTensorKind::Input);
  EXPECT_EQ(in0.index, 0u);
  EXPECT_EQ(in0.data_type, 2u);
  EXPECT_EQ(in0.format, 3u);
  EXPECT_EQ(in0.shape, (std::vector<uint64_t>{1, 1, 2, 2, 16}));
  EXPECT_TRUE(in0.has_original_shape);
  EXPECT_EQ(in0.original_shape, (std::vector<uint64_t>{1, 3, 2, 2}));
  EXPECT_EQ(in0.sub_format, -2);
  EXPECT_EQ(in0.address, 0x12340000u);
  EXPECT_EQ(in0.size, 256u);
  // Payloads follow the header in the order inputs, outputs, buffers, workspaces.
  const uint64_t start = 8 + header_length;
  EXPECT_EQ(in0.payload_offset, start);
  ASSERT_EQ(in0.payload.size(), 256u);
  EXPECT_EQ(in0.payload[0], std::byte{1});
  EXPECT_EQ(in0.payload.data(), file.data() + start);

  const AscendTensor& in1 = dump->inputs[1];
  EXPECT_EQ(in1.index, 1u);
  EXPECT_EQ(in1.data_type, 1u);
  EXPECT_EQ(in1.format, 2u);
  EXPECT_FALSE(in1.has_original_shape);
  EXPECT_EQ(in1.sub_format, 0);
  EXPECT_EQ(in1.payload_offset, start + 256);
  EXPECT_EQ(in1.size, 12u);

  ASSERT_EQ(dump->outputs.size(), 1u);
  const AscendTensor& out0 = dump->outputs[0];
  EXPECT_EQ(out0.kind, AscendTensorKind::Output);
  EXPECT_EQ(out0.shape, (std::vector<uint64_t>{2}));
  ASSERT_TRUE(out0.original_op);
  EXPECT_EQ(out0.original_op->name, "orig/op");
  EXPECT_EQ(out0.payload_offset, start + 268);
  EXPECT_EQ(out0.size, 8u);

  ASSERT_EQ(dump->buffers.size(), 1u);
  EXPECT_EQ(dump->buffers[0].kind, AscendTensorKind::Buffer);
  EXPECT_EQ(dump->buffers[0].payload_offset, start + 276);
  EXPECT_EQ(dump->buffers[0].payload[0], std::byte{0x50});
  ASSERT_EQ(dump->workspaces.size(), 1u);
  EXPECT_EQ(dump->workspaces[0].kind, AscendTensorKind::Workspace);
  EXPECT_EQ(dump->workspaces[0].payload_offset, start + 281);
  EXPECT_EQ(dump->workspaces[0].size, 3u);
  EXPECT_EQ(dump->workspaces[0].payload[2], std::byte{0x72});
  EXPECT_EQ(start + 284, file.size());
}

TEST(AscendDump, EmptyContainer) {
  AscendDumpSpec spec;
  auto dump = parse_ascend_dump(write_ascend_dump(spec));
  ASSERT_TRUE(dump) << dump.error().describe();
  EXPECT_EQ(dump->version, "2.0");
  EXPECT_TRUE(dump->inputs.empty());
  EXPECT_TRUE(dump->outputs.empty());
}

// Fields the writer does not produce: the 2025 additions and full OriginalOp/DimRange messages.
TEST(AscendDump, ParsesNewerFields) {
  ProtoWriter shape;
  shape.packed_varints(1, std::vector<uint64_t>{4});
  ProtoWriter original_op;
  original_op.string(1, "fused").varint(2, 3).varint(3, 27).varint(4, 29);
  ProtoWriter range0, range1;
  range0.varint(1, 0).varint(2, 4);
  range1.varint(1, 1).varint(2, 5);
  ProtoWriter output;
  output.varint(1, 4).varint(2, 0x1002).message(3, shape).message(4, original_op).varint(6, 4);
  output.message(10, range0).message(10, range1).varint(11, 0x40).varint(12, 6);
  ProtoWriter input;
  input.varint(1, 4).message(3, shape).varint(5, 4).varint(9, 0x80).varint(10, 2).varint(11, 1);
  ProtoWriter workspace;
  workspace.varint(1, 0).varint(3, 2).varint(4, 9);
  ProtoWriter dump_data;
  dump_data.string(1, "2.0").message(3, output).message(4, input).message(8, workspace);
  const auto file = with_length_prefix(dump_data.data(), filled(10));

  auto dump = parse_ascend_dump(file);
  ASSERT_TRUE(dump) << dump.error().describe();
  const AscendTensor& out = dump->outputs.at(0);
  EXPECT_EQ(out.data_type, 4u);
  EXPECT_EQ(out.format, 0x1002u);  // stored unmasked
  ASSERT_TRUE(out.original_op);
  EXPECT_EQ(out.original_op->name, "fused");
  EXPECT_EQ(out.original_op->output_index, 3u);
  EXPECT_EQ(out.original_op->data_type, 27u);
  EXPECT_EQ(out.original_op->format, 29u);
  ASSERT_EQ(out.dim_range.size(), 2u);
  EXPECT_EQ(out.dim_range[1].dim_start, 1u);
  EXPECT_EQ(out.dim_range[1].dim_end, 5u);
  EXPECT_EQ(out.offset, 0x40u);
  EXPECT_EQ(out.arg_index, 6u);
  const AscendTensor& in = dump->inputs.at(0);
  EXPECT_EQ(in.size, 4u);
  EXPECT_EQ(in.offset, 0x80u);
  EXPECT_EQ(in.arg_index, 2u);
  EXPECT_EQ(in.input_type, 1u);
  EXPECT_FALSE(in.original_op);
  EXPECT_EQ(dump->workspaces.at(0).arg_index, 9u);
  // Input payload first even though the output comes first in the message.
  EXPECT_EQ(in.payload_offset, 8 + dump->header_length);
  EXPECT_EQ(out.payload_offset, 8 + dump->header_length + 4);
  EXPECT_EQ(dump->workspaces[0].payload_offset, 8 + dump->header_length + 8);
}

TEST(AscendDump, OpInputNumbersDifferFromOpOutput) {
  // Field 4 is `data` in OpInput but OriginalOp in OpOutput; field 8 is address vs sub_format.
  ProtoWriter input;
  input.varint(7, 5).varint(8, 0x99);
  ProtoWriter output;
  output.varint(8, 5).varint(9, 0x99);
  ProtoWriter dump_data;
  dump_data.message(4, input).message(3, output);
  auto dump = parse_ascend_dump(with_length_prefix(dump_data.data()));
  ASSERT_TRUE(dump) << dump.error().describe();
  EXPECT_EQ(dump->inputs[0].sub_format, 5);
  EXPECT_EQ(dump->inputs[0].address, 0x99u);
  EXPECT_EQ(dump->outputs[0].sub_format, 5);
  EXPECT_EQ(dump->outputs[0].address, 0x99u);
}

TEST(AscendDump, SkipsUnknownFieldsAtEveryLevel) {
  ProtoWriter shape;
  shape.varint(1, 2).fixed32(2, 7).varint(1, 3);
  ProtoWriter output;
  output.varint(1, 1).message(3, shape).fixed64(50, 1).string(51, "x").varint(6, 24);
  output.tag(52, 3).varint(1, 1).tag(52, 4);
  ProtoWriter dump_data;
  dump_data.string(1, "2.0").fixed32(99, 1).message(3, output).string(100, "future");
  auto dump = parse_ascend_dump(with_length_prefix(dump_data.data(), filled(24)));
  ASSERT_TRUE(dump) << dump.error().describe();
  EXPECT_EQ(dump->outputs[0].shape, (std::vector<uint64_t>{2, 3}));
  EXPECT_EQ(dump->outputs[0].size, 24u);
}

TEST(AscendDump, MixedPackedAndUnpackedDims) {
  ProtoWriter shape;
  shape.packed_varints(1, std::vector<uint64_t>{2, 3}).varint(1, 4);
  ProtoWriter input;
  input.message(3, shape);
  ProtoWriter dump_data;
  dump_data.message(4, input);
  auto dump = parse_ascend_dump(with_length_prefix(dump_data.data()));
  ASSERT_TRUE(dump) << dump.error().describe();
  EXPECT_EQ(dump->inputs[0].shape, (std::vector<uint64_t>{2, 3, 4}));
}

TEST(AscendDump, UnpackedShapeFromWriter) {
  AscendDumpSpec spec;
  AscendTensorSpec t;
  t.shape = {2, 3};
  t.original_shape = std::vector<uint64_t>{3, 2};
  t.unpacked_shape = true;
  t.payload = filled(24);
  spec.outputs = {t};
  auto dump = parse_ascend_dump(write_ascend_dump(spec));
  ASSERT_TRUE(dump) << dump.error().describe();
  EXPECT_EQ(dump->outputs[0].shape, (std::vector<uint64_t>{2, 3}));
  EXPECT_EQ(dump->outputs[0].original_shape, (std::vector<uint64_t>{3, 2}));
}

TEST(AscendDumpErrors, TruncatedHeaderLength) {
  EXPECT_EQ(parse_error(filled(5)),
            "offset 0x0: file of 5 bytes is too short for the 8-byte header length");
  EXPECT_EQ(parse_error({}),
            "offset 0x0: file of 0 bytes is too short for the 8-byte header length");
}

TEST(AscendDumpErrors, HeaderLengthTooLarge) {
  AscendDumpSpec spec;
  spec.header_length_override = 100;
  const auto file = write_ascend_dump(spec);
  ASSERT_EQ(file.size(), 13u);
  EXPECT_EQ(parse_error(file),
            "offset 0x0: header length 100 exceeds the 5 bytes after the length field");
  spec.header_length_override = ~uint64_t{0};
  EXPECT_EQ(parse_error(write_ascend_dump(spec)),
            "offset 0x0: header length 18446744073709551615 exceeds the 5 bytes after the length "
            "field");
}

TEST(AscendDumpErrors, HeaderLengthCutsTheMessage) {
  AscendDumpSpec spec;
  AscendTensorSpec t;
  t.shape = {1};
  t.payload = filled(4);
  spec.inputs = {t};
  const auto message = msdt::testing::encode_dump_data(spec);
  spec.header_length_override = message.size() - 2;
  // The message ends inside the input: its length runs past the header.
  EXPECT_EQ(parse_error(write_ascend_dump(spec)),
            "offset 0xe: DumpData: field 4: length 11 exceeds the 9 bytes left in the message");
}

AscendDumpSpec one_input(std::vector<std::byte> payload, std::optional<uint64_t> size) {
  AscendDumpSpec spec;
  AscendTensorSpec t;
  t.shape = {1};
  t.payload = std::move(payload);
  t.size_override = size;
  spec.inputs = {t};
  return spec;
}

TEST(AscendDumpErrors, PayloadSizesLargerThanFile) {
  const auto file = write_ascend_dump(one_input(filled(4), 6));
  const uint64_t h = load_u64le(file.data());
  EXPECT_EQ(parse_error(file),
            fmt::format("offset {:#x}: payload sizes do not match the file: 8 + header {} + "
                        "payloads 6 = {} bytes expected, file has {} bytes",
                        8 + h, h, 8 + h + 6, file.size()));
}

// The current msaccucmp accepts bytes after the last payload (dump spec §5.3): so do we, with a
// warning at the offset where they start.
TEST(AscendDumpErrors, PayloadSizesSmallerThanFileLeaveTrailingBytes) {
  const auto file = write_ascend_dump(one_input(filled(4), 3));
  const uint64_t h = load_u64le(file.data());
  auto dump = parse_ascend_dump(file);
  ASSERT_TRUE(dump) << dump.error().describe();
  EXPECT_EQ(dump->trailing_bytes, 1u);
  ASSERT_EQ(dump->inputs.size(), 1u);
  EXPECT_EQ(dump->inputs[0].payload.size(), 3u);
  ASSERT_EQ(dump->warnings.size(), 1u);
  EXPECT_EQ(
      dump->warnings[0].describe(),
      fmt::format("offset {:#x}: 1 trailing bytes after the last payload, ignored", 8 + h + 3));
}

TEST(AscendDumpErrors, TrailingBytesAfterPayloads) {
  auto file = write_ascend_dump(one_input(filled(4), std::nullopt));
  auto exact = parse_ascend_dump(file);
  ASSERT_TRUE(exact);
  EXPECT_TRUE(exact->warnings.empty());
  EXPECT_EQ(exact->trailing_bytes, 0u);
  for (int i = 0; i < 5; ++i) file.push_back(std::byte{0xAB});
  auto dump = parse_ascend_dump(file);
  ASSERT_TRUE(dump) << dump.error().describe();
  EXPECT_EQ(dump->trailing_bytes, 5u);
  ASSERT_EQ(dump->warnings.size(), 1u);
  EXPECT_EQ(*dump->warnings[0].offset, file.size() - 5);
  // Named by content only, the "2.0" version still marks it as a container.
  EXPECT_TRUE(looks_like_ascend_dump(file));
}

// A tiny file cannot make us build millions of tensors: past kMaxAscendTensors the container is
// refused at the offset of the first tensor too many.
TEST(AscendDumpErrors, TooManyTensors) {
  AscendDumpSpec spec;
  spec.inputs.resize(kMaxAscendTensors);
  ASSERT_TRUE(parse_ascend_dump(write_ascend_dump(spec)));
  spec.outputs.resize(1);
  const auto file = write_ascend_dump(spec);
  EXPECT_LT(file.size(), 200'000u);
  auto error = parse_error(file);
  EXPECT_NE(error.find(fmt::format("DumpData declares more than {} tensors", kMaxAscendTensors)),
            std::string::npos)
      << error;
  EXPECT_TRUE(error.starts_with("offset 0x")) << error;
}

TEST(AscendDumpErrors, TooManyAttrs) {
  AscendDumpSpec spec;
  spec.attrs.resize(kMaxAscendTensors + 1);
  auto error = parse_error(write_ascend_dump(spec));
  EXPECT_NE(error.find(fmt::format("DumpData declares more than {} attrs", kMaxAscendTensors)),
            std::string::npos)
      << error;
}

// Enum fields are varints; a value past 32 bits is kept as read, not cut to 4294967295.
TEST(AscendDump, EnumValuesPast32BitsKeptAsRead) {
  AscendDumpSpec spec;
  AscendTensorSpec t;
  t.data_type = ~uint64_t{0};
  t.format = (uint64_t{1} << 32) | 2;
  t.payload = filled(4);
  spec.outputs = {t};
  auto dump = parse_ascend_dump(write_ascend_dump(spec));
  ASSERT_TRUE(dump) << dump.error().describe();
  EXPECT_EQ(dump->outputs[0].data_type, ~uint64_t{0});
  EXPECT_EQ(dump->outputs[0].format, (uint64_t{1} << 32) | 2);
  EXPECT_FALSE(dtype_from_ascend(dump->outputs[0].data_type));
  EXPECT_TRUE(ascend_format_name(dump->outputs[0].format).empty());
  auto j = ascend_dump_to_json(*dump);
  EXPECT_EQ(j["outputs"][0]["data_type"].dump(), "18446744073709551615");
  EXPECT_EQ(j["outputs"][0]["format"].dump(), "4294967298");
}

TEST(AscendDumpErrors, PayloadSizesOverflow) {
  AscendDumpSpec spec;
  AscendTensorSpec a, b;
  a.size_override = ~uint64_t{0} - 100;
  b.size_override = 200;
  spec.inputs = {a};
  spec.outputs = {b};
  const auto file = write_ascend_dump(spec);
  const uint64_t h = load_u64le(file.data());
  EXPECT_EQ(parse_error(file),
            fmt::format("offset {:#x}: output 0: size 200 makes the payload sizes "
                        "overflow 64 bits",
                        8 + h));
  // A single size that overflows with the header alone.
  a.size_override = ~uint64_t{0};
  spec.inputs = {a};
  spec.outputs = {};
  EXPECT_NE(parse_error(write_ascend_dump(spec)).find("overflow 64 bits"), std::string::npos);
}

TEST(AscendDumpErrors, BadWireTypeInDumpData) {
  ProtoWriter m;
  m.string(1, "2.0").tag(2, 7);
  EXPECT_EQ(parse_error(with_length_prefix(m.data())),
            "offset 0xd: DumpData: field 2: invalid wire type 7");
}

TEST(AscendDumpErrors, WrongWireTypeForKnownField) {
  ProtoWriter m;
  m.varint(1, 2);
  EXPECT_EQ(parse_error(with_length_prefix(m.data())),
            "offset 0x8: DumpData: field 1: expected length-delimited, found varint");
  ProtoWriter output;
  output.string(6, "big");
  ProtoWriter m2;
  m2.message(3, output);
  EXPECT_EQ(parse_error(with_length_prefix(m2.data())),
            "offset 0xa: DumpData field 3 (output 0): field 6: expected varint, found "
            "length-delimited");
}

TEST(AscendDumpErrors, TruncatedVarint) {
  ProtoWriter m;
  m.string(1, "2.0").tag(2, 0).varint_raw(0x80);
  auto message = m.take();
  message.pop_back();  // drop the last byte of the dump_time varint
  message.push_back(std::byte{0x80});
  EXPECT_EQ(parse_error(with_length_prefix(message)),
            "offset 0xe: DumpData: field 2: truncated varint: input ends after 2 bytes");
}

TEST(AscendDumpErrors, NestedErrorsNameTheirMessage) {
  ProtoWriter shape;
  shape.tag(1, 0).varint_raw(0x80);
  auto shape_bytes = shape.take();
  shape_bytes.pop_back();
  shape_bytes.back() = std::byte{0x80};  // dim varint cut short inside the Shape
  ProtoWriter output;
  output.varint(1, 1).bytes(3, shape_bytes);
  ProtoWriter m;
  m.message(3, output);
  const auto file = with_length_prefix(m.data());
  EXPECT_EQ(parse_error(file),
            "offset 0xf: DumpData field 3 (output 0): Shape: field 1: truncated varint: input ends "
            "after 1 bytes");

  ProtoWriter bad_original_shape;
  bad_original_shape.fixed32(1, 5);
  ProtoWriter input;
  input.message(6, bad_original_shape);
  ProtoWriter m2;
  m2.message(4, ProtoWriter{}).message(4, input);
  EXPECT_EQ(parse_error(with_length_prefix(m2.data())),
            "offset 0xe: DumpData field 4 (input 1): original_shape: Shape: field 1: expected "
            "varint or packed varints, found fixed32");

  ProtoWriter op;
  op.varint(1, 5);
  ProtoWriter output2;
  output2.message(4, op);
  ProtoWriter m3;
  m3.message(3, output2);
  EXPECT_EQ(parse_error(with_length_prefix(m3.data())),
            "offset 0xc: DumpData field 3 (output 0): OriginalOp: field 1: expected "
            "length-delimited, found varint");

  ProtoWriter attr;
  attr.varint(2, 1);
  ProtoWriter m4;
  m4.message(7, attr);
  EXPECT_EQ(parse_error(with_length_prefix(m4.data())),
            "offset 0xa: DumpData field 7 (attr 0): field 2: expected length-delimited, found "
            "varint");
}

TEST(AscendDumpWholeProtobuf, PayloadsInsideData) {
  AscendDumpSpec spec;
  spec.version = "1.0";
  spec.whole_protobuf = true;
  spec.op_name = "conv";
  AscendTensorSpec in;
  in.shape = {2};
  in.payload = floats({1.0f, 2.0f});
  AscendTensorSpec out;
  out.shape = {1};
  out.payload = floats({3.0f});
  AscendTensorSpec buf;
  buf.payload = filled(3, 9);
  spec.inputs = {in};
  spec.outputs = {out};
  spec.buffers = {buf};
  const auto file = write_ascend_dump(spec);
  EXPECT_EQ(file, msdt::testing::encode_dump_data(spec));  // no length prefix

  auto dump = parse_ascend_dump(file);
  ASSERT_TRUE(dump) << dump.error().describe();
  EXPECT_TRUE(dump->whole_protobuf);
  EXPECT_EQ(dump->header_length, 0u);
  EXPECT_EQ(dump->version, "1.0");
  EXPECT_EQ(dump->op_name, "conv");
  const AscendTensor& t = dump->inputs.at(0);
  EXPECT_EQ(t.size, 8u);
  ASSERT_EQ(t.payload.size(), 8u);
  EXPECT_EQ(t.payload.data(), file.data() + t.payload_offset);
  EXPECT_TRUE(std::equal(t.payload.begin(), t.payload.end(), in.payload.begin()));
  const AscendTensor& o = dump->outputs.at(0);
  EXPECT_TRUE(std::equal(o.payload.begin(), o.payload.end(), out.payload.begin()));
  EXPECT_EQ(dump->buffers.at(0).payload.size(), 3u);
  EXPECT_EQ(dump->buffers[0].payload[0], std::byte{9});
  EXPECT_TRUE(looks_like_ascend_dump(file));
}

TEST(AscendDumpWholeProtobuf, Version20IsNotAWholeProtobuf) {
  AscendDumpSpec spec;
  spec.whole_protobuf = true;  // version stays "2.0"
  AscendTensorSpec in;
  in.shape = {1};
  in.payload = filled(4);
  spec.inputs = {in};
  const auto file = write_ascend_dump(spec);
  // The 2.0 parser's error is reported: the first 8 bytes read as a huge header length.
  EXPECT_NE(parse_error(file).find("exceeds the"), std::string::npos) << parse_error(file);
}

TEST(AscendDumpWholeProtobuf, NeedsTensors) {
  ProtoWriter m;
  m.string(1, "1.0").string(6, "x");
  EXPECT_FALSE(parse_ascend_dump(m.data()));
}

TEST(LooksLikeAscendDump, AcceptsOnlyContainers) {
  EXPECT_TRUE(looks_like_ascend_dump(write_ascend_dump(full_spec())));
  const std::string npy =
      "\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }";
  EXPECT_FALSE(looks_like_ascend_dump(std::as_bytes(std::span(npy.data(), npy.size()))));
  const std::string text = "Op Type,Op Name,Task ID,Stream ID,Timestamp\nConv2D,conv,1,2,3\n";
  EXPECT_FALSE(looks_like_ascend_dump(std::as_bytes(std::span(text.data(), text.size()))));
  EXPECT_FALSE(looks_like_ascend_dump(std::vector<std::byte>(8)));
  EXPECT_FALSE(looks_like_ascend_dump(std::vector<std::byte>(3)));
  EXPECT_FALSE(looks_like_ascend_dump({}));
  auto file = write_ascend_dump(full_spec());
  file.pop_back();
  EXPECT_FALSE(looks_like_ascend_dump(file));
}

AscendTensor tensor_of(uint32_t data_type, std::vector<uint64_t> shape, Bytes payload) {
  AscendTensor t;
  t.kind = AscendTensorKind::Output;
  t.index = 2;
  t.data_type = data_type;
  t.shape = std::move(shape);
  t.payload = payload;
  t.size = payload.size();
  t.payload_offset = 0x100;
  return t;
}

TEST(AscendTensorView, CutsPaddingAfterTheShape) {
  const auto bytes = concat({floats({1, 2, 3, 4}), filled(16)});
  auto view = ascend_tensor_view(tensor_of(1, {2, 2}, bytes));
  ASSERT_TRUE(view) << view.error().describe();
  EXPECT_EQ(view->dtype, DType::Float32);
  EXPECT_EQ(view->shape, (std::vector<uint64_t>{2, 2}));
  EXPECT_EQ(view->data.size(), 16u);
  EXPECT_EQ(view->data.data(), bytes.data());
}

TEST(AscendTensorView, UndefinedTypeIsBytes) {
  const auto bytes = filled(7);
  auto view = ascend_tensor_view(tensor_of(0, {3, 3}, bytes));
  ASSERT_TRUE(view) << view.error().describe();
  EXPECT_EQ(view->dtype, DType::Int8);
  EXPECT_EQ(view->shape, (std::vector<uint64_t>{7}));
  EXPECT_EQ(view->data.size(), 7u);
}

TEST(AscendTensorView, EmptyShapeWithPayloadIsOneDimensional) {
  const auto bytes = floats({1, 2, 3});
  auto view = ascend_tensor_view(tensor_of(1, {}, bytes));
  ASSERT_TRUE(view) << view.error().describe();
  EXPECT_EQ(view->shape, (std::vector<uint64_t>{3}));
  EXPECT_EQ(view->data.size(), 12u);
}

TEST(AscendTensorView, EmptyShapeWithoutPayloadNeedsOneElement) {
  auto view = ascend_tensor_view(tensor_of(1, {}, {}));
  ASSERT_FALSE(view);
  EXPECT_EQ(view.error().describe(),
            "offset 0x100: output 2: payload has 0 bytes, shape () of float32 needs 4");
}

TEST(AscendTensorView, ZeroDimensionIsEmpty) {
  auto view = ascend_tensor_view(tensor_of(1, {3, 0}, {}));
  ASSERT_TRUE(view) << view.error().describe();
  EXPECT_EQ(view->data.size(), 0u);
}

TEST(AscendTensorView, PackedTypesRoundUp) {
  const auto bytes = filled(3);
  auto view = ascend_tensor_view(tensor_of(28, {5}, bytes));  // DT_INT4: 5 nibbles = 3 bytes
  ASSERT_TRUE(view) << view.error().describe();
  EXPECT_EQ(view->dtype, DType::Int4);
  EXPECT_EQ(view->data.size(), 3u);
  auto short_view = ascend_tensor_view(tensor_of(28, {7}, filled(3)));
  ASSERT_FALSE(short_view);
  EXPECT_EQ(short_view.error().message, "output 2: payload has 3 bytes, shape (7) of int4 needs 4");
}

TEST(AscendTensorView, PayloadTooSmall) {
  const auto bytes = filled(10);
  auto view = ascend_tensor_view(tensor_of(2, {2, 3}, bytes));
  ASSERT_FALSE(view);
  EXPECT_EQ(view.error().describe(),
            "offset 0x100: output 2: payload has 10 bytes, shape (2,3) of float16 needs 12");
}

TEST(AscendTensorView, ShapeOverflow) {
  auto view = ascend_tensor_view(tensor_of(1, {1ull << 40, 1ull << 40}, {}));
  ASSERT_FALSE(view);
  EXPECT_EQ(view.error().describe(),
            "offset 0x100: output 2: shape (1099511627776, 1099511627776) has more than 2^64 "
            "elements");
  auto bytes_overflow = ascend_tensor_view(tensor_of(12, {1ull << 62}, {}));
  ASSERT_FALSE(bytes_overflow);
  EXPECT_EQ(bytes_overflow.error().message,
            "output 2: 4611686018427387904 elements of float64 overflow 64 bits");
}

TEST(AscendTensorView, TypesWithoutLayout) {
  auto view = ascend_tensor_view(tensor_of(13, {1}, filled(8)));
  ASSERT_FALSE(view);
  EXPECT_EQ(view.error().describe(),
            "offset 0x100: output 2: data type 13 (DT_STRING) has no element layout");
  auto unknown = ascend_tensor_view(tensor_of(200, {1}, filled(8)));
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().message, "output 2: data type 200 (unknown) has no element layout");
}

std::vector<std::byte> u64s(std::initializer_list<uint64_t> values) {
  std::vector<std::byte> out;
  for (uint64_t v : values)
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::byte>(v >> (8 * i)));
  return out;
}

std::vector<std::byte> u32s(std::initializer_list<uint32_t> values) {
  std::vector<std::byte> out;
  for (uint32_t v : values)
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::byte>(v >> (8 * i)));
  return out;
}

void put(std::vector<std::byte>& out, size_t at, const std::vector<std::byte>& what) {
  std::copy(what.begin(), what.end(), out.begin() + static_cast<ptrdiff_t>(at));
}

TEST(DecodeOverflow, OldLayout) {
  std::vector<std::byte> payload(2048);
  put(payload, 0, u64s({1, 2, 3, 4, 0xABC, 0xDEF}));
  put(payload, 128, u64s({5, 6, 7, 8, 0x10, 0x20}));
  put(payload, 256, u64s({9, 10, 11, 12, 0x30, 0x40}));
  put(payload, 512, u64s({0x11}));
  put(payload, 768, u64s({0x22}));
  put(payload, 1024, u64s({0xC0DE, 3, 0x33}));
  auto json = decode_overflow(payload, 0x200);
  ASSERT_TRUE(json) << json.error().describe();
  EXPECT_EQ(*json, nlohmann::ordered_json::parse(R"({
    "DHA Atomic Add": {"model_id": 1, "stream_id": 2, "task_id": 3, "task_type": 4,
                       "pc_start": "0xabc", "para_base": "0xdef", "status": 17},
    "L2 Atomic Add": {"model_id": 5, "stream_id": 6, "task_id": 7, "task_type": 8,
                      "pc_start": "0x10", "para_base": "0x20", "status": 34},
    "AI Core": {"model_id": 9, "stream_id": 10, "task_id": 11, "task_type": 12,
                "pc_start": "0x30", "para_base": "0x40", "kernel_code": "0xc0de",
                "block_idx": 3, "status": 51}})"));
}

TEST(DecodeOverflow, OldLayoutWrongSize) {
  auto json = decode_overflow(filled(100), 0x200);
  ASSERT_FALSE(json);
  EXPECT_EQ(json.error().describe(),
            "offset 0x200: overflow record of the old layout must be 2048 bytes, found 100 (and no "
            "0x5a5a5a5a magic)");
  EXPECT_FALSE(decode_overflow({}, 0));
}

TEST(DecodeOverflow, NewLayoutAiCoreVersion1HasWideStatus) {
  const auto payload = concat({u32s({0x5A5A5A5A, 1, 1, 0, 0, 14 * 8}),
                               u64s({1, 2, 3, 4, 5, 6, 0x1000, 0x2000, 7, 8, 9, 10, 11, 12})});
  auto json = decode_overflow(payload, 0);
  ASSERT_TRUE(json) << json.error().describe();
  EXPECT_EQ(*json, nlohmann::ordered_json::parse(R"({
    "magic": "0x5a5a5a5a", "version": 1,
    "acc_list": {"valid": 1, "acc_type": "AIC", "rsv": 0, "data_len": 112,
      "data": {"model_id": 1, "stream_id": 2, "task_id": 3, "task_type": 4, "context_id": 5,
               "thread_id": 6, "pc_start": "0x1000", "para_base": "0x2000", "core_id": 7,
               "block_id": 8, "status": [9, 10, 11, 12]}}})"));
}

TEST(DecodeOverflow, NewLayoutSdmaAndAiCpu) {
  const auto sdma =
      concat({u32s({0x5A5A5A5A, 0, 1, 3, 0, 80}), u64s({1, 2, 3, 4, 5, 6, 0xA0, 0xB0, 9, 10})});
  auto json = decode_overflow(sdma, 0);
  ASSERT_TRUE(json) << json.error().describe();
  EXPECT_EQ((*json)["acc_list"]["acc_type"], "SDMA");
  EXPECT_EQ((*json)["acc_list"]["data"]["src_addr"], "0xa0");
  EXPECT_EQ((*json)["acc_list"]["data"]["dst_addr"], "0xb0");
  EXPECT_EQ((*json)["acc_list"]["data"]["channel_id"], 9);
  EXPECT_EQ((*json)["acc_list"]["data"]["status"], 10);
  EXPECT_FALSE(json->contains("warnings"));

  const auto aicpu = concat({u32s({0x5A5A5A5A, 0, 1, 2, 0, 64}), u64s({1, 2, 3, 4, 5, 6, 7, 8})});
  json = decode_overflow(aicpu, 0);
  ASSERT_TRUE(json) << json.error().describe();
  EXPECT_EQ((*json)["acc_list"]["acc_type"], "AICPU");
  EXPECT_EQ((*json)["acc_list"]["data"]["cpu_id"], 6);
  EXPECT_EQ((*json)["acc_list"]["data"]["status"], 8);

  // AIV in version 0 has a one-word status.
  const auto aiv =
      concat({u32s({0x5A5A5A5A, 0, 1, 1, 0, 88}), u64s({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})});
  json = decode_overflow(aiv, 0);
  ASSERT_TRUE(json) << json.error().describe();
  EXPECT_EQ((*json)["acc_list"]["acc_type"], "AIV");
  EXPECT_EQ((*json)["acc_list"]["data"]["status"], 11);
}

TEST(DecodeOverflow, NewLayoutReportsOddHeaders) {
  const auto payload = concat({u32s({0x5A5A5A5A, 0, 0, 2, 0, 8}), u64s({1, 2, 3, 4, 5, 6, 7, 8})});
  auto json = decode_overflow(payload, 0);
  ASSERT_TRUE(json) << json.error().describe();
  EXPECT_EQ((*json)["warnings"], nlohmann::ordered_json::parse(R"(["valid is 0, expected 1",
      "data_len is 8, expected 64 for AICPU version 0"])"));
}

TEST(DecodeOverflow, NewLayoutUnknownAccType) {
  const auto payload = concat({u32s({0x5A5A5A5A, 0, 1, 7, 0, 16}), u64s({0x11, 0x22})});
  auto json = decode_overflow(payload, 0);
  ASSERT_TRUE(json) << json.error().describe();
  EXPECT_EQ((*json)["acc_list"]["acc_type"], 7);
  EXPECT_EQ((*json)["acc_list"]["data"], nlohmann::ordered_json::parse("[17, 34]"));
  EXPECT_EQ((*json)["warnings"],
            nlohmann::ordered_json::parse(
                R"x(["unknown acc_type 7 (expected 0 AIC, 1 AIV, 2 AICPU, 3 SDMA)"])x"));
}

TEST(DecodeOverflow, NewLayoutTruncated) {
  auto json = decode_overflow(u32s({0x5A5A5A5A}), 0x40);
  ASSERT_FALSE(json);
  EXPECT_EQ(json.error().describe(),
            "offset 0x44: overflow record version: need 4 bytes, only 0 left");
  json = decode_overflow(u32s({0x5A5A5A5A, 0, 1}), 0x40);
  ASSERT_FALSE(json);
  EXPECT_EQ(json.error().describe(), "offset 0x4c: acc_list acc_type: need 4 bytes, only 0 left");
  const auto cut = concat({u32s({0x5A5A5A5A, 1, 1, 0, 0, 104}), u64s({1, 2, 3})});
  json = decode_overflow(cut, 0x40);
  ASSERT_FALSE(json);
  EXPECT_EQ(json.error().describe(), "offset 0x70: AIC task_type: need 8 bytes, only 0 left");
  const auto cut_status =
      concat({u32s({0x5A5A5A5A, 1, 1, 1, 0, 104}), u64s({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})});
  json = decode_overflow(cut_status, 0);
  ASSERT_FALSE(json);
  EXPECT_EQ(json.error().describe(), "offset 0x78: AIV status: need 8 bytes, only 0 left");
}

TEST(AscendDumpJson, HasEveryField) {
  auto spec = full_spec();
  const auto file = write_ascend_dump(spec);
  auto dump = parse_ascend_dump(file);
  ASSERT_TRUE(dump) << dump.error().describe();
  const nlohmann::json j = ascend_dump_to_json(*dump);
  const uint64_t h = dump->header_length;
  EXPECT_EQ(j["whole_protobuf"], false);
  EXPECT_EQ(j["header_length"], h);
  EXPECT_EQ(j["version"], "2.0");
  EXPECT_EQ(j["dump_time"], 1690000000123456u);
  EXPECT_EQ(j["op_name"], "Default/network/Conv2D-op12");
  EXPECT_EQ(j["attrs"],
            nlohmann::json::parse(
                R"([{"name": "threadMode", "value": "0"}, {"name": "k", "value": "v"}])"));
  EXPECT_EQ(j["dfx_message"], "dfx");
  nlohmann::json in0 = nlohmann::json::parse(R"({
    "kind": "input", "index": 0, "data_type": 2, "data_type_name": "DT_FLOAT16", "format": 3,
    "format_name": "NC1HWC0", "shape": [1, 1, 2, 2, 16], "original_shape": [1, 3, 2, 2],
    "sub_format": -2, "address": 305397760, "offset": 0, "arg_index": 0, "input_type": 0,
    "size": 256})");
  in0["payload_offset"] = 8 + h;
  EXPECT_EQ(j["inputs"][0], in0);
  EXPECT_EQ(j["inputs"][1]["original_shape"], nullptr);
  nlohmann::json out0 = nlohmann::json::parse(R"({
    "kind": "output", "index": 0, "data_type": 1, "data_type_name": "DT_FLOAT", "format": 2,
    "format_name": "ND", "shape": [2], "original_shape": null, "sub_format": 0, "address": 0,
    "offset": 0, "arg_index": 0,
    "original_op": {"name": "orig/op", "output_index": 0, "data_type": 0, "format": 0},
    "dim_range": [], "size": 8})");
  out0["payload_offset"] = 8 + h + 268;
  EXPECT_EQ(j["outputs"][0], out0);
  nlohmann::json buf0 =
      nlohmann::json::parse(R"({"kind": "buffer", "index": 0, "buffer_type": 0, "size": 5})");
  buf0["payload_offset"] = 8 + h + 276;
  EXPECT_EQ(j["buffers"][0], buf0);
  nlohmann::json ws0 = nlohmann::json::parse(
      R"({"kind": "workspace", "index": 0, "buffer_type": 0, "arg_index": 0, "size": 3})");
  ws0["payload_offset"] = 8 + h + 281;
  EXPECT_EQ(j["workspaces"][0], ws0);
}

TEST(AscendDumpJson, UnknownEnumsAreNull) {
  AscendTensor t = tensor_of(200, {1}, {});
  t.format = 0x77;
  AscendDump dump;
  dump.outputs = {t};
  const nlohmann::json j = ascend_dump_to_json(dump);
  EXPECT_EQ(j["outputs"][0]["data_type_name"], nullptr);
  EXPECT_EQ(j["outputs"][0]["format_name"], nullptr);
  EXPECT_EQ(j["outputs"][0]["original_op"], nullptr);
}

TEST(AscendDumpJson, NonUtf8BytesAreEscaped) {
  AscendDump dump;
  dump.op_name = std::string(
      "a\x94"
      "b\xc3\xa9\xed\xa0\x80",
      8);  // stray byte, é, a surrogate
  dump.attrs = {{"k\xff", "v"}};
  const nlohmann::json j = ascend_dump_to_json(dump);
  EXPECT_EQ(j["op_name"], "a\\x94b\xc3\xa9\\xed\\xa0\\x80");
  EXPECT_EQ(j["attrs"][0]["name"], "k\\xff");
  EXPECT_NO_THROW((void)j.dump());
}

TEST(KindName, AllKinds) {
  EXPECT_EQ(kind_name(AscendTensorKind::Input), "input");
  EXPECT_EQ(kind_name(AscendTensorKind::Output), "output");
  EXPECT_EQ(kind_name(AscendTensorKind::Buffer), "buffer");
  EXPECT_EQ(kind_name(AscendTensorKind::Workspace), "workspace");
}

}  // namespace
}  // namespace msdt::dump
