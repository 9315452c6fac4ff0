// npy-mode overflow records (dump spec §5.8): JSON objects with the DHA Atomic Add, L2 Atomic Add
// and AI Core blocks. Bad records are one-line errors with an offset, never exceptions.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "dump/ascend_dump.h"

namespace msdt::dump {
namespace {

std::string error_of(std::string_view text) {
  auto record = parse_overflow_json(text);
  return record ? "no error" : record.error().describe();
}

TEST(OverflowJson, RecordAsMindSporeWritesIt) {
  auto record = parse_overflow_json(
      R"({"AI Core": {"model_id": 1, "pc_start": "0x12c0", "status": 0}, "DHA Atomic Add": {}})");
  ASSERT_TRUE(record) << record.error().describe();
  EXPECT_EQ((*record)["AI Core"]["pc_start"], "0x12c0");
  EXPECT_TRUE((*record)["DHA Atomic Add"].is_object());
}

TEST(OverflowJson, InvalidJsonNamesTheOffsetAndEscapesTheBytes) {
  EXPECT_EQ(error_of("{\"AI Core\": {}}\n\x1b[31m"),
            "offset 0x10: overflow record is not valid JSON (near '\\x1b[31m')");
  EXPECT_EQ(error_of(""), "offset 0x0: overflow record is not valid JSON (near '')");
}

// Found by fuzz_overflow: nlohmann throws out_of_range, not parse_error, for such a number.
TEST(OverflowJson, NumberPastDoubleIsAnErrorNotAnException) {
  EXPECT_EQ(error_of(R"({"AI Core": {"status": 8888E880888888}})"),
            "offset 0x0: overflow record is not valid JSON (a number out of range)");
}

TEST(OverflowJson, WrongShapes) {
  EXPECT_EQ(error_of("[1, 2]"), "offset 0x0: overflow record is not a JSON object");
  EXPECT_EQ(error_of(R"({"AI Core": 3})"),
            "offset 0x0: overflow record: 'AI Core' is not an object");
  EXPECT_EQ(error_of(R"({"other": {}})"),
            "offset 0x0: overflow record has none of the blocks 'DHA Atomic Add', 'L2 Atomic "
            "Add', 'AI Core'");
  EXPECT_NE(error_of(std::string(kMaxOverflowJsonBytes + 1, ' ')).find("is larger than"),
            std::string::npos);
}

}  // namespace
}  // namespace msdt::dump
