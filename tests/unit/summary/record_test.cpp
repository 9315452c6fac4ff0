// The record framing (spec summary.md §3): CRC-32C and its mask against the spec's test vectors,
// records read whole, damaged ones told apart (length CRC, data CRC, over-long, truncated) and
// the reader resynchronised to the next good record.
#include "summary/record.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "summary/crc32c.h"
#include "support/summary_frame.h"

namespace msdt::summary {
namespace {

using msdt::testing::bytes_of;
using msdt::testing::frame;
using msdt::testing::le32;
using msdt::testing::le64;

TEST(Crc32c, SpecTestVectors) {
  EXPECT_EQ(crc32c(bytes_of("123456789")), 0xE3069283u);
  EXPECT_EQ(crc32c(bytes_of(std::string(32, '\0'))), 0x8A9136AAu);
  EXPECT_EQ(masked_crc32c(bytes_of("\x1a\x11"
                                   "CRC test, one two")),
            0x5794d08au);
  EXPECT_EQ(masked_crc32c(bytes_of(le64(24))), 0x224b7fa3u);
  EXPECT_EQ(masked_crc32c(bytes_of(le64(28))), 0x1d95c1c8u);
  EXPECT_EQ(crc32c({}), 0u);
}

TEST(Crc32c, LongInputsAgreeWithPiecewiseBytes) {
  // A buffer of 3 MiB: the same CRC however it is fed to ISA-L (the length is chunked).
  std::string big(3 << 20, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 131 + 7);
  uint32_t whole = crc32c(bytes_of(big));
  // Bitwise reference over the same bytes.
  uint32_t crc = 0xFFFFFFFFu;
  for (unsigned char c : big) {
    crc ^= c;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
  }
  EXPECT_EQ(whole, crc ^ 0xFFFFFFFFu);
}

// Every length from 0 to 2 KiB, at every alignment of 0-7: short inputs take the instruction
// path, longer ones ISA-L; both agree with the bitwise definition.
TEST(Crc32c, EveryShortLengthAndAlignmentAgreesWithTheBitwiseDefinition) {
  std::string bytes(2048 + 8, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 37 + (i >> 3));
  for (size_t align = 0; align < 8; ++align) {
    for (size_t n = 0; n <= 2048; n += (n < 600 ? 1 : 61)) {
      std::string_view piece(bytes.data() + align, n);
      uint32_t crc = 0xFFFFFFFFu;
      for (unsigned char c : piece) {
        crc ^= c;
        for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
      }
      ASSERT_EQ(crc32c(bytes_of(piece)), crc ^ 0xFFFFFFFFu) << "length " << n << " at +" << align;
    }
  }
}

TEST(Record, VersionRecordStartsWithTheSpecMagic) {
  std::string payload =
      std::string("\x09", 1) + std::string(8, '\x01') + "\x1a\x11" + "MindSpore.Event:1";
  ASSERT_EQ(payload.size(), 28u);
  std::string file = frame(payload);
  EXPECT_EQ(file.substr(0, 12), std::string("\x1c\0\0\0\0\0\0\0\xc8\xc1\x95\x1d", 12));
  Record r = read_record(bytes_of(file), 0, {});
  EXPECT_EQ(r.problem, RecordProblem::None);
  EXPECT_EQ(r.length, 28u);
  EXPECT_EQ(r.next, file.size());
  EXPECT_EQ(r.payload_offset(), 12u);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(r.payload.data()), r.payload.size()),
            payload);
}

TEST(Record, DamageIsToldApart) {
  std::string a = frame("first"), b = frame("second payload"), file = a + b;
  // Data CRC: the next record is still where the length says.
  std::string bad_data = file;
  bad_data[12] ^= 1;
  Record r = read_record(bytes_of(bad_data), 0, {});
  EXPECT_EQ(r.problem, RecordProblem::BadDataCrc);
  EXPECT_EQ(r.next, a.size());
  // Unverified, the same record reads as good.
  RecordOptions no_crc;
  no_crc.verify = false;
  EXPECT_EQ(read_record(bytes_of(bad_data), 0, no_crc).problem, RecordProblem::None);

  // Length CRC: resync finds the second record.
  std::string bad_length = file;
  bad_length[9] ^= 0x40;
  EXPECT_EQ(read_record(bytes_of(bad_length), 0, {}).problem, RecordProblem::BadLengthCrc);
  EXPECT_EQ(resync(bytes_of(bad_length), 0, {}), a.size());
  // Nothing good after it: the end.
  std::string only = a;
  only[0] ^= 1;
  EXPECT_EQ(resync(bytes_of(only), 0, {}), only.size());

  // Over-long: refused before anything is read.
  RecordOptions small;
  small.max_length = 10;
  Record big = read_record(bytes_of(file), a.size(), small);
  EXPECT_EQ(big.problem, RecordProblem::TooLarge);
  EXPECT_EQ(big.length, 14u);
}

TEST(Record, TruncationAtEveryByteIsATruncatedRecord) {
  std::string file = frame("payload of a record");
  for (size_t cut = 1; cut < file.size(); ++cut) {
    Record r = read_record(bytes_of(file).first(cut), 0, {});
    EXPECT_EQ(r.problem, RecordProblem::Truncated) << "cut at " << cut;
  }
  // A length beyond the file (but under the cap) is a truncated record too, however large.
  std::string huge = le64(uint64_t{1} << 30);
  huge += le32(masked_crc32c(bytes_of(huge))) + "xx";
  EXPECT_EQ(read_record(bytes_of(huge), 0, {}).problem, RecordProblem::Truncated);
  std::string absurd = le64(~uint64_t{0});
  absurd += le32(masked_crc32c(bytes_of(absurd)));
  EXPECT_EQ(read_record(bytes_of(absurd), 0, {}).problem, RecordProblem::TooLarge);
}

}  // namespace
}  // namespace msdt::summary
