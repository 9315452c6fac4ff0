#include "model/checkpoint.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "model/sniff.h"
#include "support/proto_writer.h"

namespace msdt::model {
namespace {

using msdt::testing::ProtoWriter;
using File = std::vector<std::byte>;

File raw(std::initializer_list<int> values) {
  File out;
  for (int v : values) out.push_back(static_cast<std::byte>(v));
  return out;
}

File text_bytes(std::string_view s) {
  File out;
  for (char c : s) out.push_back(static_cast<std::byte>(c));
  return out;
}

// Content bytes 0, 1, 2, … (mod 251), so a joined slice shows where its bytes came from.
File pattern(size_t n, size_t start = 0) {
  File out(n);
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<std::byte>((start + i) % 251);
  return out;
}

void append(File& to, const File& from) { to.insert(to.end(), from.begin(), from.end()); }

ProtoWriter tensor(std::initializer_list<uint64_t> dims, std::string_view type, const File& content,
                   bool packed = false) {
  ProtoWriter t;
  if (packed) {
    std::vector<uint64_t> d(dims);
    t.packed_varints(1, d);
  } else {
    for (uint64_t d : dims) t.varint(1, d);
  }
  t.string(2, type).bytes(3, content);
  return t;
}

// One Checkpoint message holding one Value, as save_checkpoint writes each parameter (§4.1).
File value(std::string_view tag, const ProtoWriter& t) {
  ProtoWriter v;
  v.string(1, tag).message(2, t);
  ProtoWriter c;
  c.message(1, v);
  return c.take();
}

File map_value(std::string_view tag, const ProtoWriter& keys, const ProtoWriter& values,
               const ProtoWriter& status) {
  ProtoWriter m;
  m.message(1, keys).message(1, values).message(1, status);
  ProtoWriter v;
  v.string(1, tag).message(3, m);
  ProtoWriter c;
  c.message(1, v);
  return c.take();
}

// A bitwise CRC-32 (zlib's), independent of the ISA-L one under test.
uint32_t reference_crc32(Bytes data) {
  uint32_t crc = 0xFFFFFFFFu;
  for (std::byte b : data) {
    crc ^= static_cast<uint8_t>(b);
    for (int i = 0; i < 8; ++i) crc = (crc & 1) ? (crc >> 1) ^ 0xEDB88320u : crc >> 1;
  }
  return ~crc;
}

File with_trailer(File body, uint64_t crc) {
  append(body, text_bytes("crc_num"));
  for (int i = 9; i >= 0; --i) body.push_back(static_cast<std::byte>(i < 8 ? crc >> (8 * i) : 0));
  return body;
}

std::vector<std::string> problems_of(const Checkpoint& c) {
  std::vector<std::string> out;
  for (const Error& e : c.problems) out.push_back(e.describe());
  return out;
}

using Strings = std::vector<std::string>;

// --- the reader
// -----------------------------------------------------------------------------------

TEST(ReadCheckpoint, WireExampleOfTheSpecExactly) {
  // checkpoint spec §3.3, byte by byte.
  File file = raw({0x0a, 0x40, 0x0a, 0x07});
  append(file, text_bytes("fc.bias"));
  append(file, raw({0x12, 0x35, 0x08, 0x0a, 0x12, 0x07}));
  append(file, text_bytes("Float32"));
  append(file, raw({0x1a, 0x28}));
  append(file, pattern(40));
  ASSERT_EQ(file.size(), 66u);
  EXPECT_EQ(file, value("fc.bias", tensor({10}, "Float32", pattern(40))));

  Checkpoint c = read_checkpoint(file);
  EXPECT_EQ(problems_of(c), Strings{});
  EXPECT_EQ(c.file_size, 66u);
  EXPECT_EQ(c.body_size, 66u);
  EXPECT_EQ(c.values, 1u);
  EXPECT_EQ(c.crc.status, CrcStatus::Absent);
  ASSERT_EQ(c.parameters.size(), 1u);
  const Parameter& p = c.parameters[0];
  EXPECT_EQ(p.name, "fc.bias");
  EXPECT_EQ(p.kind, ParameterKind::Tensor);
  EXPECT_EQ(p.offset(), 0u);
  EXPECT_EQ(p.content.spelling, "Float32");
  EXPECT_EQ(p.content.dtype, DType::Float32);
  EXPECT_EQ(p.content.dims, (std::vector<uint64_t>{10}));
  EXPECT_EQ(p.content.shape, (std::vector<uint64_t>{10}));
  ASSERT_EQ(p.content.segments.size(), 1u);
  EXPECT_EQ(p.content.segments[0].offset, 26u);
  EXPECT_EQ(p.content.segments[0].length, 40u);
  EXPECT_EQ(p.content.expected_bytes, 40u);
  EXPECT_EQ(p.content.elements(), 10u);
  EXPECT_TRUE(p.content.consistent());

  auto data = tensor_data(file, p.content);
  ASSERT_TRUE(data) << data.error().describe();
  EXPECT_FALSE(data->copied());  // one slice: a view into the file
  EXPECT_EQ(data->view().data.data(), file.data() + 26);
  EXPECT_EQ(data->view().data.size(), 40u);
  EXPECT_EQ(data->view().dtype, DType::Float32);
  EXPECT_EQ(data->view().shape, (std::vector<uint64_t>{10}));
}

TEST(ReadCheckpoint, UnpackedAndPackedDims) {
  // A 16x3x3x3 weight: `08 10 08 03 08 03 08 03`, content `1a c0 0d` (spec §3.3).
  File file = value("conv.weight", tensor({16, 3, 3, 3}, "Float32", pattern(1728)));
  append(file, value("packed", tensor({2, 3}, "Int16", pattern(12), /*packed=*/true)));
  Checkpoint c = read_checkpoint(file);
  EXPECT_EQ(problems_of(c), Strings{});
  ASSERT_EQ(c.parameters.size(), 2u);
  EXPECT_EQ(c.parameters[0].content.shape, (std::vector<uint64_t>{16, 3, 3, 3}));
  EXPECT_EQ(c.parameters[0].content.bytes(), 1728u);
  EXPECT_EQ(c.parameters[1].content.shape, (std::vector<uint64_t>{2, 3}));
  EXPECT_EQ(c.parameters[1].content.dtype, DType::Int16);
  EXPECT_TRUE(c.parameters[1].content.consistent());
  EXPECT_EQ(c.parameters[1].offset(), c.parameters[0].content.segments[0].offset + 1728);
}

TEST(ReadCheckpoint, ConsecutiveEqualTagsAreOneParameter) {
  // A parameter over 512 MiB is written as several Values with the full dims (spec §4.2).
  File file = value("big", tensor({6}, "Float32", pattern(8, 0)));
  const size_t second = file.size();
  append(file, value("big", tensor({6}, "Float32", pattern(8, 8))));
  const size_t third = file.size();
  append(file, value("big", tensor({6}, "Float32", pattern(8, 16))));
  append(file, value("after", tensor({}, "Int32", pattern(4))));
  append(file, value("big", tensor({1}, "Float32", pattern(4))));  // not consecutive: its own

  Checkpoint c = read_checkpoint(file);
  EXPECT_EQ(problems_of(c), Strings{});
  EXPECT_EQ(c.values, 5u);
  ASSERT_EQ(c.parameters.size(), 3u);
  const Parameter& p = c.parameters[0];
  EXPECT_EQ(p.value_offsets, (std::vector<uint64_t>{0, second, third}));
  ASSERT_EQ(p.content.segments.size(), 3u);
  EXPECT_EQ(p.content.segments[1].offset, second + (p.content.segments[0].offset));
  EXPECT_EQ(p.content.bytes(), 24u);
  EXPECT_EQ(p.content.expected_bytes, 24u);
  EXPECT_EQ(c.parameters[1].name, "after");
  EXPECT_EQ(c.parameters[2].name, "big");

  auto data = tensor_data(file, p.content);
  ASSERT_TRUE(data) << data.error().describe();
  EXPECT_TRUE(data->copied());
  EXPECT_EQ(File(data->view().data.begin(), data->view().data.end()), pattern(24));
  // Moving keeps the view valid (the buffer moves with it).
  TensorData moved = std::move(*data);
  EXPECT_EQ(File(moved.view().data.begin(), moved.view().data.end()), pattern(24));
}

TEST(ReadCheckpoint, MergedLengthThatDoesNotMatchTheShape) {
  File file = value("w", tensor({6}, "Float32", pattern(8)));
  append(file, value("w", tensor({6}, "Float32", pattern(8))));
  append(file, value("w", tensor({6}, "Float32", pattern(4))));
  Checkpoint c = read_checkpoint(file);
  const auto& s = c.parameters.at(0).content.segments;
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(problems_of(c),
            Strings{fmt::format("offset 0x0: Value 0 'w': content holds 20 bytes in 3 slices (at "
                                "{:#x}, {:#x}, {:#x}), dims [6] Float32 need 24",
                                s[0].offset, s[1].offset, s[2].offset)});
  EXPECT_FALSE(c.parameters[0].content.consistent());
  auto data = tensor_data(file, c.parameters[0].content);
  ASSERT_FALSE(data);
  EXPECT_EQ(data.error().describe(), fmt::format("offset {:#x}: content holds 20 bytes, dims [6] "
                                                 "Float32 need 24",
                                                 s[0].offset));
  // One slice too short.
  Checkpoint one = read_checkpoint(value("b", tensor({10}, "Float32", pattern(36))));
  EXPECT_EQ(problems_of(one), Strings{"offset 0x0: Value 0 'b': content holds 36 bytes (at 0x14), "
                                      "dims [10] Float32 need 40"});
}

TEST(ReadCheckpoint, SliceWithOtherDimsIsReportedAndMerged) {
  File file = value("w", tensor({4}, "Float32", pattern(8)));
  const size_t second = file.size();
  append(file, value("w", tensor({4}, "Float16", pattern(8))));
  Checkpoint c = read_checkpoint(file);
  ASSERT_EQ(c.parameters.size(), 1u);
  EXPECT_EQ(problems_of(c),
            Strings{fmt::format("offset {:#x}: Value 1 'w': slice dims [4] Float16 differ from "
                                "dims [4] Float32 of the first slice at 0x0",
                                second)});
  EXPECT_EQ(c.parameters[0].content.segments.size(), 2u);
}

TEST(ReadCheckpoint, ScalarsWithEmptyDimsAndDimsZero) {
  File file = value("epoch_num", tensor({}, "Int64", pattern(8)));
  append(file, value("step_num", tensor({0}, "Int32",
                                        pattern(4))));  // dims [0]: a scalar (§4.3)
  Checkpoint c = read_checkpoint(file);
  EXPECT_EQ(problems_of(c), Strings{});
  ASSERT_EQ(c.parameters.size(), 2u);
  EXPECT_TRUE(c.parameters[0].content.shape.empty());
  EXPECT_EQ(c.parameters[0].content.elements(), 1u);
  EXPECT_EQ(c.parameters[1].content.dims, (std::vector<uint64_t>{0}));
  EXPECT_TRUE(c.parameters[1].content.shape.empty());
  EXPECT_EQ(c.parameters[1].content.expected_bytes, 4u);
  auto data = tensor_data(file, c.parameters[1].content);
  ASSERT_TRUE(data);
  EXPECT_TRUE(data->view().shape.empty());
}

File utf32(std::initializer_list<uint32_t> code_points) {
  File out;
  for (uint32_t c : code_points)
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::byte>(c >> (8 * i)));
  return out;
}

TEST(ReadCheckpoint, StringsAreUtf32) {
  // "hé€😀" as NumPy U bytes, padded with a NUL.
  File file = value("name", tensor({0}, "str", utf32({'h', 0xE9, 0x20AC, 0x1F600, 0})));
  const size_t bad_at = file.size();
  append(file, value("bad", tensor({0}, "str", utf32({'o', 'k', 0xD800}))));
  append(file, value("odd", tensor({0}, "str", pattern(6))));
  Checkpoint c = read_checkpoint(file);
  ASSERT_EQ(c.parameters.size(), 3u);
  const Parameter& s = c.parameters[0];
  EXPECT_EQ(s.kind, ParameterKind::String);
  EXPECT_EQ(s.content.dtype, DType::String);
  EXPECT_EQ(s.content.elements(), 5u);
  EXPECT_FALSE(s.content.expected_bytes);
  auto text = string_value(file, s.content);
  ASSERT_TRUE(text) << text.error().describe();
  EXPECT_EQ(*text, "h\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");

  const Parameter& bad = c.parameters[1];
  auto invalid = string_value(file, bad.content);
  ASSERT_FALSE(invalid);
  EXPECT_EQ(invalid.error().describe(),
            fmt::format("offset {:#x}: str content: invalid code point 0xd800",
                        bad.content.segments[0].offset + 8));
  EXPECT_GT(bad.content.segments[0].offset, bad_at);
  auto tensor_of_string = tensor_data(file, s.content);
  ASSERT_FALSE(tensor_of_string);
  EXPECT_NE(tensor_of_string.error().message.find("tensor_type 'str' has no element layout"),
            std::string::npos);

  // The odd length is found while listing (no bytes read) and again when decoding.
  EXPECT_EQ(problems_of(c),
            Strings{fmt::format("offset {:#x}: Value 2 'odd': str content of 6 bytes is not whole "
                                "UTF-32 characters",
                                c.parameters[2].offset())});
  EXPECT_FALSE(string_value(file, c.parameters[2].content));
  const File above = value("x", tensor({0}, "str", utf32({0x110000})));
  EXPECT_FALSE(string_value(above, read_checkpoint(above).parameters.at(0).content));
}

TEST(ReadCheckpoint, RandomOpIsOpaque) {
  File file = value("random_op", tensor({5}, "random_op", pattern(13)));
  Checkpoint c = read_checkpoint(file);
  EXPECT_EQ(problems_of(c), Strings{});
  ASSERT_EQ(c.parameters.size(), 1u);
  const Parameter& p = c.parameters[0];
  EXPECT_EQ(p.kind, ParameterKind::RandomOp);
  EXPECT_FALSE(p.content.dtype);
  EXPECT_FALSE(p.content.expected_bytes);
  EXPECT_FALSE(tensor_data(file, p.content));
  auto bytes = raw_data(file, p.content);
  ASSERT_TRUE(bytes);
  EXPECT_EQ(bytes->view().dtype, DType::UInt8);
  EXPECT_EQ(bytes->view().shape, (std::vector<uint64_t>{13}));
  EXPECT_EQ(File(bytes->view().data.begin(), bytes->view().data.end()), pattern(13));
}

TEST(ReadCheckpoint, MapTensorWithNumpyNamesOverTwoSlices) {
  File file = map_value("table", tensor({3}, "int64", pattern(24)),
                        tensor({3, 2}, "float32", pattern(24)), tensor({3}, "bool", pattern(3)));
  append(file, map_value("table", tensor({2}, "int64", pattern(16)),
                         tensor({2, 2}, "float32", pattern(16)), tensor({2}, "bool", pattern(2))));
  Checkpoint c = read_checkpoint(file);
  EXPECT_EQ(problems_of(c), Strings{});
  ASSERT_EQ(c.parameters.size(), 1u);
  const Parameter& p = c.parameters[0];
  EXPECT_EQ(p.kind, ParameterKind::MapTensor);
  ASSERT_EQ(p.map.size(), 3u);
  EXPECT_EQ(p.map[0].dtype, DType::Int64);
  EXPECT_EQ(p.map[0].shape, (std::vector<uint64_t>{5}));
  EXPECT_EQ(p.map[1].dtype, DType::Float32);
  EXPECT_EQ(p.map[1].shape, (std::vector<uint64_t>{5, 2}));
  EXPECT_EQ(p.map[2].dtype, DType::Bool);
  EXPECT_EQ(p.map[2].segments.size(), 2u);
  EXPECT_EQ(p.map[1].expected_bytes, 40u);
  auto values = tensor_data(file, p.map[1]);
  ASSERT_TRUE(values) << values.error().describe();
  EXPECT_EQ(values->view().data.size(), 40u);

  // A maptensor must hold keys, values and status.
  ProtoWriter m;
  m.message(1, tensor({1}, "int64", pattern(8)));
  ProtoWriter v;
  v.string(1, "short").message(3, m);
  ProtoWriter top;
  top.message(1, v);
  EXPECT_EQ(problems_of(read_checkpoint(top.data())),
            Strings{"offset 0x0: Value 0 'short': maptensor holds 1 tensors, "
                    "expected 3 (keys, "
                    "values, status)"});
}

TEST(ReadCheckpoint, EveryDtypeSpelling) {
  struct Case {
    std::string_view spelling;
    DType dtype;
    size_t bytes_for_4;
  };
  for (const Case& k : std::initializer_list<Case>{{"Int8", DType::Int8, 4},
                                                   {"Int16", DType::Int16, 8},
                                                   {"Int32", DType::Int32, 16},
                                                   {"Int64", DType::Int64, 32},
                                                   {"Float16", DType::Float16, 8},
                                                   {"Float32", DType::Float32, 16},
                                                   {"Float64", DType::Float64, 32},
                                                   {"UInt8", DType::UInt8, 4},
                                                   {"UInt16", DType::UInt16, 8},
                                                   {"UInt32", DType::UInt32, 16},
                                                   {"UInt64", DType::UInt64, 32},
                                                   {"Uint8", DType::UInt8, 4},
                                                   {"Uint16", DType::UInt16, 8},
                                                   {"Uint32", DType::UInt32, 16},
                                                   {"Uint64", DType::UInt64, 32},
                                                   {"Bool", DType::Bool, 4},
                                                   {"BFloat16", DType::BFloat16, 8},
                                                   {"Int4", DType::Int4, 2}}) {
    SCOPED_TRACE(k.spelling);
    EXPECT_EQ(checkpoint_dtype(k.spelling), k.dtype);
    File file = value("p", tensor({2, 2}, k.spelling, pattern(k.bytes_for_4)));
    Checkpoint c = read_checkpoint(file);
    EXPECT_EQ(problems_of(c), Strings{});
    ASSERT_EQ(c.parameters.size(), 1u);
    EXPECT_EQ(c.parameters[0].content.spelling, k.spelling);
    EXPECT_EQ(c.parameters[0].content.dtype, k.dtype);
    EXPECT_EQ(c.parameters[0].content.expected_bytes, k.bytes_for_4);
    auto data = tensor_data(file, c.parameters[0].content);
    ASSERT_TRUE(data) << data.error().describe();
    EXPECT_EQ(data->view().dtype, k.dtype);
  }
  EXPECT_EQ(checkpoint_dtype("str"), DType::String);
  EXPECT_FALSE(checkpoint_dtype("random_op"));
  EXPECT_FALSE(checkpoint_dtype("float32"));  // NumPy names are for map components only
  EXPECT_FALSE(checkpoint_dtype("FLOAT"));
}

TEST(ReadCheckpoint, Int4IsTwoPerByte) {
  EXPECT_EQ(problems_of(read_checkpoint(value("q", tensor({3}, "Int4", pattern(2))))), Strings{});
  EXPECT_EQ(problems_of(read_checkpoint(value("q", tensor({3}, "Int4", pattern(3))))),
            Strings{"offset 0x0: Value 0 'q': content holds 3 bytes (at 0x11), dims [3] "
                    "Int4 need "
                    "2"});
}

TEST(ReadCheckpoint, UnknownSpellingIsListedAsFound) {
  File file = value("c", tensor({2}, "Complex64", pattern(16)));
  Checkpoint c = read_checkpoint(file);
  EXPECT_EQ(problems_of(c), Strings{});
  ASSERT_EQ(c.parameters.size(), 1u);
  EXPECT_EQ(c.parameters[0].kind, ParameterKind::Tensor);
  EXPECT_EQ(c.parameters[0].content.spelling, "Complex64");
  EXPECT_FALSE(c.parameters[0].content.dtype);
  EXPECT_EQ(c.parameters[0].content.elements(), 2u);
  auto data = tensor_data(file, c.parameters[0].content);
  ASSERT_FALSE(data);
  EXPECT_EQ(data.error().describe(), "offset 0x16: tensor_type 'Complex64' has no element layout");
  EXPECT_TRUE(raw_data(file, c.parameters[0].content));
}

TEST(ReadCheckpoint, NegativeDimIsRejectedAndTheWalkGoesOn) {
  ProtoWriter t;
  t.varint(1, 2)
      .varint(1, static_cast<uint64_t>(int64_t{-1}))
      .string(2, "Float32")
      .bytes(3, pattern(8));
  File file = value("neg", t);
  append(file, value("ok", tensor({2}, "Float32", pattern(8))));
  Checkpoint c = read_checkpoint(file);
  // The second dim's tag: 0a len 0a 03 "neg" 12 len 08 02 -> offset 0x0b.
  EXPECT_EQ(problems_of(c), Strings{"offset 0xb: Value 0 'neg': tensor: dims[1] is negative (-1)"});
  ASSERT_EQ(c.parameters.size(), 1u);
  EXPECT_EQ(c.parameters[0].name, "ok");
  EXPECT_EQ(c.values, 2u);
  // Packed too.
  ProtoWriter packed;
  const std::vector<uint64_t> dims{static_cast<uint64_t>(int64_t{-5})};
  packed.packed_varints(1, dims).string(2, "Float32").bytes(3, pattern(4));
  EXPECT_EQ(problems_of(read_checkpoint(value("p", packed))),
            Strings{"offset 0x7: Value 0 'p': tensor: dims[0] is negative (-5)"});
}

TEST(ReadCheckpoint, UnknownFieldsAreSkipped) {
  // v0.5.0-beta's Checkpoint.model_type (field 2) after each Value, and unknown
  // fields inside.
  File file = value("a", tensor({1}, "Float32", pattern(4)));
  ProtoWriter model_type;
  model_type.string(2, "normal");
  append(file, model_type.data());
  ProtoWriter t = tensor({1}, "Float32", pattern(4));
  t.varint(9, 7);
  ProtoWriter v;
  v.string(1, "b").message(2, t).fixed32(6, 1);
  ProtoWriter top;
  top.message(1, v);
  append(file, top.data());
  Checkpoint c = read_checkpoint(file);
  EXPECT_EQ(problems_of(c), Strings{});
  ASSERT_EQ(c.parameters.size(), 2u);
  EXPECT_EQ(c.parameters[1].name, "b");
}

TEST(ReadCheckpoint, DamagedValuesSayWhatIsWrong) {
  ProtoWriter no_tag;
  no_tag.message(2, tensor({1}, "Float32", pattern(4)));
  ProtoWriter no_tensor;
  no_tensor.string(1, "lonely");
  ProtoWriter no_type;
  no_type.string(1, "t").message(2, ProtoWriter().varint(1, 1).bytes(3, pattern(4)));
  File file;
  for (const ProtoWriter* v : {&no_tag, &no_tensor, &no_type})
    append(file, ProtoWriter().message(1, *v).data());
  Checkpoint c = read_checkpoint(file);
  EXPECT_TRUE(c.parameters.empty());
  ASSERT_EQ(c.problems.size(), 3u);
  EXPECT_EQ(c.problems[0].message, "Value 0: no tag");
  EXPECT_EQ(c.problems[1].message, "Value 1 'lonely': neither a tensor nor a maptensor");
  EXPECT_EQ(c.problems[2].message, "Value 2 't': no tensor_type");
}

// --- CRC trailer
// ----------------------------------------------------------------------------------

TEST(Crc32, KnownVectorAndChaining) {
  const File digits = text_bytes("123456789");
  EXPECT_EQ(crc32(digits), 0xCBF43926u);
  EXPECT_EQ(crc32(Bytes(digits).subspan(4), crc32(Bytes(digits).first(4))), 0xCBF43926u);
  EXPECT_EQ(crc32({}), 0u);
  const File long_input = pattern(100000);
  EXPECT_EQ(crc32(long_input), reference_crc32(long_input));
}

TEST(ReadCheckpoint, CrcTrailerOkMismatchAbsent) {
  File body = value("fc.bias", tensor({10}, "Float32", pattern(40)));
  append(body, value("fc.weight", tensor({2, 10}, "Float32", pattern(80))));
  const uint32_t good = reference_crc32(body);

  Checkpoint ok = read_checkpoint(with_trailer(body, good),
                                  {.verify_crc = true, .walked = {}, .parameter = {}});
  EXPECT_EQ(problems_of(ok), Strings{});
  EXPECT_EQ(ok.body_size, body.size());
  EXPECT_EQ(ok.file_size, body.size() + 17);
  EXPECT_EQ(ok.crc.status, CrcStatus::Ok);
  EXPECT_EQ(ok.crc.stored, good);
  EXPECT_EQ(ok.crc.computed, good);
  EXPECT_EQ(ok.crc.describe(), "CRC ok");
  EXPECT_EQ(ok.parameters.size(), 2u);

  Checkpoint unchecked = read_checkpoint(with_trailer(body, good));
  EXPECT_EQ(unchecked.crc.status, CrcStatus::NotChecked);
  EXPECT_EQ(unchecked.crc.stored, good);
  EXPECT_EQ(unchecked.parameters.size(), 2u);

  Checkpoint bad = read_checkpoint(with_trailer(body, 0x12345678),
                                   {.verify_crc = true, .walked = {}, .parameter = {}});
  EXPECT_EQ(bad.crc.status, CrcStatus::Mismatch);
  const std::string expected =
      fmt::format("CRC mismatch (stored 0x12345678, computed {:#010x})", good);
  EXPECT_EQ(bad.crc.describe(), expected);
  EXPECT_EQ(problems_of(bad),
            Strings{fmt::format("offset {:#x}: crc_num trailer: {}", body.size(), expected)});
  EXPECT_EQ(bad.parameters.size(), 2u);

  Checkpoint absent = read_checkpoint(body, {.verify_crc = true, .walked = {}, .parameter = {}});
  EXPECT_EQ(absent.crc.status, CrcStatus::Absent);
  EXPECT_EQ(absent.crc.describe(), "CRC absent");
  EXPECT_EQ(problems_of(absent), Strings{});
}

// --- damage
// ----------------------------------------------------------------------------------------

TEST(ReadCheckpoint, TruncationAtEveryByteNeverCrashesAndSaysWhere) {
  File file = value("fc.bias", tensor({3}, "Float32", pattern(12)));
  std::vector<size_t> boundaries{0, file.size()};
  append(file, value("s", tensor({0}, "str", utf32({'a'}))));
  boundaries.push_back(file.size());
  append(file, value("w", tensor({2}, "Float16", pattern(4))));
  boundaries.push_back(file.size());  // a cut between two slices leaves a shorter, valid file
  append(file, value("w", tensor({2}, "Float16", pattern(0))));
  boundaries.push_back(file.size());
  for (size_t n = 0; n <= file.size(); ++n) {
    SCOPED_TRACE(n);
    Checkpoint c = read_checkpoint(Bytes(file).first(n));
    for (const Error& e : c.problems) {
      ASSERT_TRUE(e.offset);
      EXPECT_LE(*e.offset, n);
    }
    const bool at_boundary = std::find(boundaries.begin(), boundaries.end(), n) != boundaries.end();
    if (!at_boundary) {
      EXPECT_FALSE(c.problems.empty());
    }
    for (const Parameter& p : c.parameters) {
      if (p.kind == ParameterKind::Tensor && p.content.consistent()) {
        EXPECT_TRUE(tensor_data(Bytes(file).first(n), p.content));
      }
      (void)raw_data(Bytes(file).first(n), p.content);
    }
  }
}

// ReadOptions::parameter hands each parameter over as it is complete: the same parameters (slices
// merged), the same problems in the same order and the same count as the kept vector, at every
// truncation of a file with slices, a string and a parameter cut short.
TEST(ReadCheckpoint, HandsOverEachParameterAsTheVectorWouldHoldIt) {
  File file = value("fc.bias", tensor({3}, "Float32", pattern(12)));
  append(file, value("w", tensor({2}, "Float16", pattern(4))));
  append(file, value("w", tensor({2}, "Float16", pattern(4))));
  append(file, value("s", tensor({0}, "str", utf32({'a'}))));
  append(file, value("short", tensor({4}, "Float32", pattern(12))));  // 12 of 16 bytes
  append(file, value("w", tensor({2}, "Float16", pattern(0))));       // not a slice: w again
  for (size_t n = 0; n <= file.size(); ++n) {
    SCOPED_TRACE(n);
    const Bytes part = Bytes(file).first(n);
    const Checkpoint kept = read_checkpoint(part);
    std::vector<Parameter> handed;
    ReadOptions options;
    options.parameter = [&](Parameter&& p) { handed.push_back(std::move(p)); };
    const Checkpoint streamed = read_checkpoint(part, options);
    EXPECT_TRUE(streamed.parameters.empty());
    EXPECT_EQ(streamed.parameter_count, kept.parameters.size());
    EXPECT_EQ(kept.parameter_count, kept.parameters.size());
    EXPECT_EQ(problems_of(streamed), problems_of(kept));
    ASSERT_EQ(handed.size(), kept.parameters.size());
    for (size_t i = 0; i < handed.size(); ++i) {
      EXPECT_EQ(handed[i].name, kept.parameters[i].name);
      EXPECT_EQ(handed[i].kind, kept.parameters[i].kind);
      EXPECT_EQ(handed[i].value_offsets, kept.parameters[i].value_offsets);
      EXPECT_EQ(handed[i].content.segments.size(), kept.parameters[i].content.segments.size());
      EXPECT_EQ(handed[i].content.expected_bytes, kept.parameters[i].content.expected_bytes);
    }
  }
  // The whole file: "w" twice (two slices whose dims each say the whole, then a parameter of its
  // own), each size problem at its parameter's first Value.
  const Checkpoint whole = read_checkpoint(file);
  ASSERT_EQ(whole.parameters.size(), 5u);
  EXPECT_EQ(whole.parameters[1].content.segments.size(), 2u);
  EXPECT_EQ(whole.parameters[4].name, "w");
  EXPECT_EQ(problems_of(whole),
            (Strings{"offset 0x26: Value 1 'w': content holds 8 bytes in 2 slices (at 0x3a, 0x52), "
                     "dims [2] Float16 need 4",
                     "offset 0x6a: Value 4 'short': content holds 12 bytes (at 0x82), dims [4] "
                     "Float32 need 16",
                     "offset 0x8e: Value 5 'w': content holds 0 bytes (at 0xa2), dims [2] Float16 "
                     "need 4"}));
}

TEST(ReadCheckpoint, DeclaredLengthBeyondTheFile) {
  File file = value("fc.bias", tensor({10}, "Float32", pattern(40)));
  const File whole = file;
  append(file, whole);
  file.resize(whole.size() + 30);  // the second Value is cut after 30 bytes
  Checkpoint c = read_checkpoint(file);
  ASSERT_EQ(c.parameters.size(), 1u);  // the good part is still there
  EXPECT_EQ(problems_of(c), Strings{"offset 0x42: Value 1 'fc.bias': length 64 goes past the end "
                                    "of the file (28 bytes left)"});

  // A tensor_content longer than its Value: the Value is intact at top level, its
  // inside is not.
  ProtoWriter inner;
  inner.varint(1, 1).string(2, "Float32").tag(3, 2).varint_raw(100);
  File inner_bytes = inner.take();
  append(inner_bytes, pattern(4));
  ProtoWriter v;
  v.string(1, "x").bytes(2, inner_bytes);
  ProtoWriter top;
  top.message(1, v);
  Checkpoint d = read_checkpoint(top.data());
  EXPECT_EQ(problems_of(d), Strings{"offset 0x13: Value 0 'x': tensor: field 3: length 100 "
                                    "exceeds the 4 bytes left in the message"});
}

// Listing must not touch tensor bytes: the content pages are made unreadable, and
// reading the file still lists both parameters.
TEST(ReadCheckpoint, ListingDoesNotReadTensorContent) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t content = 3 * page + 100;
  File first = value("big", tensor({content}, "UInt8", pattern(content)));
  const size_t header = first.size() - content;
  File second = value("small", tensor({4}, "UInt8", pattern(4)));
  const size_t total = first.size() + second.size();

  void* region =
      mmap(nullptr, 6 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(region, MAP_FAILED);
  auto* base = static_cast<std::byte*>(region);
  // The content starts 50 bytes before page 1 and ends 50 bytes into page 4.
  std::byte* start = base + page - 50 - header;
  std::memcpy(start, first.data(), first.size());
  std::memcpy(start + first.size(), second.data(), second.size());
  ASSERT_EQ(mprotect(base + page, 3 * page, PROT_NONE), 0);

  Checkpoint c = read_checkpoint(Bytes(start, total));
  EXPECT_EQ(problems_of(c), Strings{});
  ASSERT_EQ(c.parameters.size(), 2u);
  EXPECT_EQ(c.parameters[0].content.bytes(), content);
  EXPECT_EQ(c.parameters[1].name, "small");
  munmap(region, 6 * page);
}

// --- sniffing
// -------------------------------------------------------------------------------------

Sniff sniff_of(const File& file) { return sniff(file); }

TEST(Sniff, EveryKind) {
  const File ckpt = value("fc.bias", tensor({10}, "Float32", pattern(40)));
  EXPECT_EQ(sniff_of(ckpt).kind, FileKind::Checkpoint);
  EXPECT_EQ(sniff_of(ckpt).description, "a MindSpore checkpoint");
  EXPECT_EQ(sniff_of(File(ckpt.begin(), ckpt.begin() + 1)).kind, FileKind::Checkpoint);
  EXPECT_EQ(sniff_of(File(ckpt.begin(), ckpt.begin() + 7)).kind, FileKind::Checkpoint);
  EXPECT_EQ(sniff_of(with_trailer(ckpt, 0)).kind, FileKind::CheckpointWithCrc);
  EXPECT_EQ(sniff_of(with_trailer({}, 0)).kind, FileKind::CheckpointWithCrc);
  EXPECT_TRUE(sniff_of(ckpt).is_checkpoint());

  // Encrypted, current layout: GCM magic, tag, block_len, iv_len 16, IV,
  // cipher_len, ciphertext.
  auto block = [](int magic, bool gcm, size_t cipher) {
    File b = raw({magic, 0x5E, 0x3A, 0x7F});
    if (gcm) append(b, pattern(16));
    const uint32_t block_len = static_cast<uint32_t>(4 + 16 + 4 + cipher);
    for (uint32_t v : {block_len, 16u})
      append(b, raw({int(v & 0xFF), int(v >> 8 & 0xFF), int(v >> 16 & 0xFF), int(v >> 24)}));
    append(b, pattern(16));
    const auto c = static_cast<uint32_t>(cipher);
    append(b, raw({int(c & 0xFF), int(c >> 8 & 0xFF), int(c >> 16 & 0xFF), int(c >> 24)}));
    append(b, pattern(cipher, 7));
    return b;
  };
  File gcm = block(0xD8, true, 64);
  append(gcm, block(0xD8, true, 10));
  Sniff s = sniff_of(gcm);
  EXPECT_EQ(s.kind, FileKind::Encrypted);
  EXPECT_EQ(s.cipher, CipherMode::AesGcm);
  EXPECT_EQ(s.layout, CipherLayout::Current);
  EXPECT_EQ(s.description, "an encrypted checkpoint or MindIR (AES-GCM)");
  EXPECT_EQ(not_a_checkpoint(s).describe(),
            "not a checkpoint: looks like an encrypted checkpoint or MindIR (AES-GCM)");
  s = sniff_of(block(0xD9, false, 32));
  EXPECT_EQ(s.cipher, CipherMode::AesCbc);
  EXPECT_EQ(s.layout, CipherLayout::Current);
  s = sniff_of(with_trailer(block(0xDA, false, 32), 0));
  EXPECT_EQ(s.cipher, CipherMode::Sm4Cbc);
  EXPECT_EQ(s.layout, CipherLayout::Current);
  s = sniff_of(block(0xD8, false, 48));  // 1.3-1.6: GCM magic, no tag
  EXPECT_EQ(s.layout, CipherLayout::Old);
  EXPECT_EQ(s.cipher, CipherMode::NotRecorded);
  EXPECT_EQ(s.description,
            "an encrypted checkpoint or MindIR (MindSpore 1.3-1.6 layout, mode not "
            "recorded)");
  File cut = block(0xD9, false, 32);
  cut.resize(cut.size() - 1);
  s = sniff_of(cut);
  EXPECT_EQ(s.kind, FileKind::Encrypted);
  EXPECT_EQ(s.layout, CipherLayout::Unverified);
  EXPECT_EQ(s.description,
            "an encrypted checkpoint or MindIR (AES-CBC, blocks do not tile the file)");

  File safetensors = raw({14, 0, 0, 0, 0, 0, 0, 0});
  append(safetensors, text_bytes("{\"__metadata__\":{}}"));
  EXPECT_EQ(sniff_of(safetensors).kind, FileKind::Safetensors);

  File mindir = raw({0x0a, 0x05});
  append(mindir, text_bytes("0.1.1"));
  append(mindir, raw({0x12, 0x09}));
  append(mindir, text_bytes("MindSpore"));
  EXPECT_EQ(sniff_of(mindir).kind, FileKind::MindIR);
  EXPECT_EQ(not_a_checkpoint(sniff_of(mindir)).describe(),
            "not a checkpoint: looks like a MindIR model (MindSpore 1.1+)");
  File legacy = raw({0x08, 0x04, 0x12, 0x09});
  append(legacy, text_bytes("MindSpore"));
  append(legacy, raw({0x28, 0x01, 0x3a, 0x00}));
  EXPECT_EQ(sniff_of(legacy).kind, FileKind::MindIRLegacy);
  File onnx = raw({0x08, 0x04, 0x12, 0x09});
  append(onnx, text_bytes("MindSpore"));
  append(onnx, raw({0x1a, 0x03}));
  append(onnx, text_bytes("1.0"));
  EXPECT_EQ(sniff_of(onnx).kind, FileKind::Unknown);
  EXPECT_EQ(sniff_of(onnx).description, "an ONNX model exported by MindSpore 0.7-1.0");

  EXPECT_EQ(sniff_of(raw({0x08, 0x01, 0x22, 0x10, 0x0a})).kind, FileKind::GraphMeta);
  File lite = raw({0x1c, 0, 0, 0});
  append(lite, text_bytes("MSL2"));
  append(lite, pattern(24));
  s = sniff_of(lite);
  EXPECT_EQ(s.kind, FileKind::MsLite);
  EXPECT_EQ(s.lite_identifier, "MSL2");
  EXPECT_EQ(s.description, "a MindSpore Lite model (MSL2)");
  lite[7] = std::byte{'1'};
  EXPECT_EQ(sniff_of(lite).lite_identifier, "MSL1");

  EXPECT_EQ(sniff_of({}).description, "an empty file");
  File npy = text_bytes("\x93NUMPY\x01");
  EXPECT_EQ(sniff_of(npy).description, "a NumPy .npy file");
  EXPECT_EQ(sniff_of(text_bytes("PK\x03\x04rest")).description,
            "a ZIP archive (a PyTorch .pt or a NumPy .npz?)");
  EXPECT_EQ(sniff_of(text_bytes("name,value\n")).description, "text");
  EXPECT_EQ(sniff_of(raw({0xff, 0x00, 0x01})).description,
            "unrecognised data (first bytes ff 00 01)");
  // `0A` then something other than a Value's tag: another protobuf message.
  EXPECT_EQ(sniff_of(raw({0x0a, 0x02, 0x08, 0x01})).kind, FileKind::Unknown);
  // A Value whose tag is followed by neither tensor nor maptensor.
  EXPECT_EQ(sniff_of(raw({0x0a, 0x05, 0x0a, 0x01, 'a', 0x20, 0x01})).kind, FileKind::Unknown);
  EXPECT_EQ(file_kind_name(FileKind::CheckpointWithCrc), "checkpoint-crc");
  EXPECT_EQ(cipher_mode_name(CipherMode::Sm4Cbc), "SM4-CBC");
}

}  // namespace
}  // namespace msdt::model
