// io/json_depth.h: the nesting of a JSON text, counted without parsing it.
#include "io/json_depth.h"

#include <gtest/gtest.h>

#include <string>

namespace msdt {
namespace {

TEST(JsonNestingBeyond, CountsBracketsOutsideStrings) {
  EXPECT_FALSE(json_nesting_beyond(R"({"a": [1, {"b": [2]}]})", 4));
  EXPECT_EQ(json_nesting_beyond(R"({"a": [1, {"b": [2]}]})", 3), 16u);  // the last '['
  EXPECT_EQ(json_nesting_beyond("[[[", 2), 2u);
  // Closed levels give their depth back; brackets in strings (escaped quotes too) are text.
  EXPECT_FALSE(json_nesting_beyond("[[]] [[]] [[]]", 2));
  EXPECT_FALSE(json_nesting_beyond(R"(["[[[[", "\"[[[[", {"k": "{{{{"}])", 2));
  EXPECT_EQ(json_nesting_beyond(R"(["\\", [[0]]])", 2), 8u);  // "\\" ends the string
  // Invalid JSON is scanned alike: too many closing brackets do not go below zero.
  EXPECT_FALSE(json_nesting_beyond("]]]}}}[", 1));
  EXPECT_FALSE(json_nesting_beyond("", 0));
  EXPECT_EQ(json_nesting_beyond("{", 0), 0u);
  // 100 000 levels: one pass, no recursion.
  EXPECT_EQ(json_nesting_beyond(std::string(100000, '['), 64), 64u);
}

}  // namespace
}  // namespace msdt
