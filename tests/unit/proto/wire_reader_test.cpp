#include "proto/wire_reader.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

#include "support/proto_writer.h"

namespace msdt::proto {
namespace {

using msdt::testing::ProtoWriter;

std::vector<std::byte> raw(std::initializer_list<int> values) {
  std::vector<std::byte> out;
  for (int v : values) out.push_back(static_cast<std::byte>(v));
  return out;
}

// Reads every field, or the first error.
Expected<std::vector<Field>> read_all(Bytes message, uint64_t base = 0) {
  WireReader reader(message, base);
  std::vector<Field> fields;
  while (true) {
    MSDT_TRY(std::optional<Field> field, reader.next());
    if (!field) return fields;
    fields.push_back(*field);
  }
}

std::string error_of(Bytes message, uint64_t base = 0) {
  auto result = read_all(message, base);
  if (result) return "no error";
  return result.error().describe();
}

TEST(ReadVarint, DecodesOneToTenBytes) {
  for (uint64_t value : {uint64_t{0}, uint64_t{1}, uint64_t{127}, uint64_t{128}, uint64_t{300},
                         uint64_t{1} << 35, ~uint64_t{0}}) {
    ProtoWriter w;
    w.varint_raw(value);
    ByteReader in(w.data());
    auto decoded = read_varint(in);
    ASSERT_TRUE(decoded) << decoded.error().describe();
    EXPECT_EQ(*decoded, value);
    EXPECT_TRUE(in.at_end());
  }
}

TEST(ReadVarint, MaxValueTakesTenBytes) {
  ProtoWriter w;
  w.varint_raw(~uint64_t{0});
  EXPECT_EQ(w.data().size(), 10u);
  EXPECT_EQ(w.data().back(), std::byte{1});
}

TEST(ReadVarint, AcceptsRedundantContinuationBytes) {
  // 0 encoded in 3 bytes is valid protobuf (non-minimal encoding).
  auto bytes = raw({0x80, 0x80, 0x00});
  ByteReader in(bytes);
  auto decoded = read_varint(in);
  ASSERT_TRUE(decoded);
  EXPECT_EQ(*decoded, 0u);
}

TEST(ReadVarint, RejectsTruncated) {
  auto bytes = raw({0x01, 0x80, 0x80});
  ByteReader in(bytes, 0x100);
  ASSERT_TRUE(in.skip(1) == std::nullopt);
  auto decoded = read_varint(in);
  ASSERT_FALSE(decoded);
  EXPECT_EQ(decoded.error().describe(), "offset 0x101: truncated varint: input ends after 2 bytes");
}

TEST(ReadVarint, RejectsEmpty) {
  ByteReader in(Bytes{});
  auto decoded = read_varint(in);
  ASSERT_FALSE(decoded);
  EXPECT_EQ(decoded.error().describe(), "offset 0x0: truncated varint: input ends after 0 bytes");
}

TEST(ReadVarint, RejectsTenthByteAboveOne) {
  auto bytes = raw({0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02});
  ByteReader in(bytes);
  auto decoded = read_varint(in);
  ASSERT_FALSE(decoded);
  EXPECT_EQ(decoded.error().describe(), "offset 0x0: varint overflows 64 bits (tenth byte 0x02)");
}

TEST(ReadVarint, RejectsElevenBytes) {
  auto bytes = raw({0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x81, 0x00});
  ByteReader in(bytes);
  auto decoded = read_varint(in);
  ASSERT_FALSE(decoded);
  EXPECT_EQ(decoded.error().describe(), "offset 0x0: varint longer than 10 bytes");
}

TEST(WireReader, ReadsEveryWireType) {
  ProtoWriter w;
  w.varint(1, 150).fixed64(2, 0x0102030405060708).string(3, "abc").fixed32(5, 0xDEADBEEF);
  auto fields = read_all(w.data(), 0x40);
  ASSERT_TRUE(fields) << fields.error().describe();
  ASSERT_EQ(fields->size(), 4u);
  const auto& f = *fields;
  EXPECT_EQ(f[0].number, 1u);
  EXPECT_EQ(f[0].type, WireType::Varint);
  EXPECT_EQ(f[0].value, 150u);
  EXPECT_EQ(f[0].offset, 0x40u);
  EXPECT_EQ(f[1].number, 2u);
  EXPECT_EQ(f[1].type, WireType::Fixed64);
  EXPECT_EQ(f[1].value, 0x0102030405060708u);
  EXPECT_EQ(f[1].offset, 0x43u);
  EXPECT_EQ(f[2].number, 3u);
  EXPECT_EQ(f[2].type, WireType::Len);
  EXPECT_EQ(f[2].offset, 0x4Cu);
  EXPECT_EQ(f[2].payload_offset, 0x4Eu);
  ASSERT_EQ(f[2].bytes.size(), 3u);
  EXPECT_EQ(f[2].bytes[0], std::byte{'a'});
  EXPECT_EQ(f[3].number, 5u);
  EXPECT_EQ(f[3].type, WireType::Fixed32);
  EXPECT_EQ(f[3].value, 0xDEADBEEFu);
}

TEST(WireReader, EmptyMessageHasNoFields) {
  auto fields = read_all(Bytes{});
  ASSERT_TRUE(fields);
  EXPECT_TRUE(fields->empty());
}

TEST(WireReader, LargeFieldNumbers) {
  ProtoWriter w;
  w.varint(0x1FFFFFFF, 7);
  auto fields = read_all(w.data());
  ASSERT_TRUE(fields) << fields.error().describe();
  EXPECT_EQ((*fields)[0].number, 0x1FFFFFFFu);
  ProtoWriter too_big;
  too_big.varint_raw((uint64_t{0x20000000} << 3) | 0).varint_raw(1);
  EXPECT_EQ(error_of(too_big.data()),
            "offset 0x0: invalid field number 536870912 (tag 0x100000000)");
}

TEST(WireReader, RejectsFieldNumberZero) {
  auto bytes = raw({0x08, 0x01, 0x00, 0x01});
  EXPECT_EQ(error_of(bytes, 0x10), "offset 0x12: invalid field number 0 (tag 0x0)");
}

TEST(WireReader, RejectsWireTypesSixAndSeven) {
  EXPECT_EQ(error_of(raw({0x0E})), "offset 0x0: field 1: invalid wire type 6");
  EXPECT_EQ(error_of(raw({0x08, 0x00, 0x17})), "offset 0x2: field 2: invalid wire type 7");
}

TEST(WireReader, RejectsTruncatedValues) {
  EXPECT_EQ(error_of(raw({0x08})),
            "offset 0x1: field 1: truncated varint: input ends after 0 bytes");
  EXPECT_EQ(error_of(raw({0x08, 0x80})),
            "offset 0x1: field 1: truncated varint: input ends after 1 bytes");
  EXPECT_EQ(error_of(raw({0x09, 1, 2, 3})), "offset 0x1: field 1: need 8 bytes, only 3 left");
  EXPECT_EQ(error_of(raw({0x0D, 1, 2})), "offset 0x1: field 1: need 4 bytes, only 2 left");
  EXPECT_EQ(error_of(raw({0x80})), "offset 0x0: truncated varint: input ends after 1 bytes");
}

TEST(WireReader, RejectsLengthPastTheEnd) {
  EXPECT_EQ(error_of(raw({0x1A, 0x05, 'a', 'b'}), 0x20),
            "offset 0x21: field 3: length 5 exceeds the 2 bytes left in the message");
  // A length near 2^64 must not wrap the bounds check.
  ProtoWriter w;
  w.tag(3, 2).varint_raw(~uint64_t{0});
  EXPECT_EQ(error_of(w.data()),
            "offset 0x1: field 3: length 18446744073709551615 exceeds the 0 bytes left in the "
            "message");
}

TEST(WireReader, ZeroLengthField) {
  const auto bytes = raw({0x1A, 0x00});
  auto fields = read_all(bytes);
  ASSERT_TRUE(fields);
  EXPECT_TRUE((*fields)[0].bytes.empty());
  EXPECT_EQ((*fields)[0].payload_offset, 2u);
}

TEST(WireReader, SkipsGroupsWhole) {
  ProtoWriter w;
  w.tag(4, 3).varint(1, 5).tag(6, 3).fixed32(2, 1).string(3, "x").tag(6, 4).fixed64(7, 9).tag(4, 4);
  w.varint(2, 42);
  auto fields = read_all(w.data(), 0x100);
  ASSERT_TRUE(fields) << fields.error().describe();
  ASSERT_EQ(fields->size(), 2u);
  const Field& group = (*fields)[0];
  EXPECT_EQ(group.number, 4u);
  EXPECT_EQ(group.type, WireType::StartGroup);
  EXPECT_EQ(group.payload_offset, 0x101u);
  // Contents: varint(2) + start(1) + fixed32(5) + string(3) + end(1) + fixed64(9) = 21 bytes.
  EXPECT_EQ(group.bytes.size(), 21u);
  EXPECT_EQ((*fields)[1].number, 2u);
  EXPECT_EQ((*fields)[1].value, 42u);
}

TEST(WireReader, EmptyGroup) {
  ProtoWriter w;
  w.tag(4, 3).tag(4, 4);
  auto fields = read_all(w.data());
  ASSERT_TRUE(fields);
  EXPECT_TRUE((*fields)[0].bytes.empty());
}

TEST(WireReader, RejectsMismatchedEndGroup) {
  ProtoWriter w;
  w.tag(4, 3).tag(5, 4);
  EXPECT_EQ(error_of(w.data()), "offset 0x1: end-group for field 5 inside the group of field 4");
}

TEST(WireReader, RejectsUnclosedGroup) {
  ProtoWriter w;
  w.tag(4, 3).varint(1, 1);
  EXPECT_EQ(error_of(w.data(), 0x10),
            "offset 0x13: field 4: group opened at offset 0x10 is not closed before the end of the "
            "message");
}

TEST(WireReader, RejectsStrayEndGroup) {
  ProtoWriter w;
  w.varint(1, 1).tag(4, 4);
  EXPECT_EQ(error_of(w.data()), "offset 0x2: field 4: end-group without a matching start-group");
}

TEST(WireReader, RejectsBadContentInsideGroup) {
  EXPECT_EQ(error_of(raw({0x23, 0x0F})), "offset 0x1: field 1: invalid wire type 7");
  EXPECT_EQ(error_of(raw({0x23, 0x0A, 0x09, 0x00})),
            "offset 0x2: field 1: length 9 exceeds the 1 bytes left in the message");
}

TEST(WireReader, LimitsGroupNesting) {
  ProtoWriter ok;
  for (int i = 0; i < 64; ++i) ok.tag(1, 3);
  for (int i = 0; i < 64; ++i) ok.tag(1, 4);
  EXPECT_TRUE(read_all(ok.data()));
  ProtoWriter deep;
  for (int i = 0; i < 65; ++i) deep.tag(1, 3);
  for (int i = 0; i < 65; ++i) deep.tag(1, 4);
  EXPECT_EQ(error_of(deep.data()), "offset 0x40: groups nested deeper than 64 levels");
}

TEST(AppendVarints, AcceptsPackedAndUnpacked) {
  const std::vector<uint64_t> values{1, 300, 0, ~uint64_t{0}};
  ProtoWriter w;
  w.packed_varints(1, values).varint(1, 7).varint(1, 8);
  auto fields = read_all(w.data());
  ASSERT_TRUE(fields);
  std::vector<uint64_t> out;
  for (const Field& f : *fields) ASSERT_EQ(append_varints(f, out), std::nullopt);
  EXPECT_EQ(out, (std::vector<uint64_t>{1, 300, 0, ~uint64_t{0}, 7, 8}));
}

TEST(AppendVarints, EmptyPackedField) {
  const auto bytes = raw({0x0A, 0x00});
  auto fields = read_all(bytes);
  ASSERT_TRUE(fields);
  std::vector<uint64_t> out;
  EXPECT_EQ(append_varints((*fields)[0], out), std::nullopt);
  EXPECT_TRUE(out.empty());
}

TEST(AppendVarints, RejectsTruncatedPackedVarint) {
  const auto bytes = raw({0x0A, 0x02, 0x01, 0x80});
  auto fields = read_all(bytes, 0x30);
  ASSERT_TRUE(fields);
  std::vector<uint64_t> out;
  auto status = append_varints((*fields)[0], out);
  ASSERT_TRUE(status);
  EXPECT_EQ(status->describe(), "offset 0x33: field 1: truncated varint: input ends after 1 bytes");
}

TEST(AppendVarints, RejectsFixedTypes) {
  ProtoWriter w;
  w.fixed32(2, 1);
  auto fields = read_all(w.data());
  ASSERT_TRUE(fields);
  std::vector<uint64_t> out;
  auto status = append_varints((*fields)[0], out);
  ASSERT_TRUE(status);
  EXPECT_EQ(status->describe(),
            "offset 0x0: field 2: expected varint or packed varints, found fixed32");
}

TEST(ExpectType, NamesBothTypes) {
  ProtoWriter w;
  w.varint(3, 1).fixed64(4, 0).tag(5, 3).tag(5, 4);
  auto fields = read_all(w.data(), 0x8);
  ASSERT_TRUE(fields);
  const auto& f = *fields;
  EXPECT_EQ(expect_type(f[0], WireType::Varint), std::nullopt);
  auto status = expect_type(f[0], WireType::Len);
  ASSERT_TRUE(status);
  EXPECT_EQ(status->describe(), "offset 0x8: field 3: expected length-delimited, found varint");
  EXPECT_EQ(expect_type(f[1], WireType::Fixed32)->message,
            "field 4: expected fixed32, found fixed64");
  EXPECT_EQ(expect_type(f[2], WireType::Varint)->message,
            "field 5: expected varint, found start-group");
}

}  // namespace
}  // namespace msdt::proto
