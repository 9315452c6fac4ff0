// io/regex.h: users' patterns in RE2, searched in linear time; what std::regex crashed or hung on
// (issue 25) now finishes at once, and what RE2 lacks is refused with its message.
#include "io/regex.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace msdt {
namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::StartsWith;

Regex compiled(std::string_view pattern) {
  auto re = compile_user_regex(pattern);
  EXPECT_TRUE(re) << pattern << ": " << re.error().message;
  return std::move(*re);
}

std::string error_of(std::string_view pattern) {
  auto re = compile_user_regex(pattern);
  return re ? std::string("(compiled)") : re.error().message;
}

TEST(Regex, SearchesUnanchoredAndAnchorsAtTheEndsOfTheText) {
  Regex fc = compiled("fc");
  EXPECT_TRUE(fc.search("fc1.weight"));
  EXPECT_TRUE(fc.search("moments.fc1.weight"));
  EXPECT_FALSE(fc.search("conv1.weight"));
  Regex start = compiled("^fc");
  EXPECT_TRUE(start.search("fc1.weight"));
  EXPECT_FALSE(start.search("moments.fc1.weight"));
  Regex whole = compiled("^loss$");
  EXPECT_TRUE(whole.search("loss"));
  EXPECT_FALSE(whole.search("loss/auto"));
  EXPECT_FALSE(whole.search("eval_loss"));
  // Without (?m), ^ and $ are the ends of the whole text, not of its lines.
  EXPECT_FALSE(whole.search("a\nloss\nb"));
  EXPECT_TRUE(compiled("(?m)^loss$").search("a\nloss\nb"));
  // An empty pattern matches every text.
  EXPECT_TRUE(compiled("").search("anything"));
  EXPECT_EQ(compiled("Conv2D-op[0-9]+$").pattern(), "Conv2D-op[0-9]+$");
}

TEST(Regex, PerlClassesLazinessCaseAndGroupsWork) {
  EXPECT_TRUE(compiled(R"(-op\d+$)").search("Default/Conv2D-op12"));
  EXPECT_TRUE(compiled(R"(\bfc\w*\.bias)").search("net.fc3.bias"));
  EXPECT_TRUE(compiled("(?i)RELU").search("Default/ReLU-op3"));
  EXPECT_TRUE(compiled("a.*?b").search("xaxxbx"));
  EXPECT_TRUE(compiled("^(MatMul|Conv2D)-op").search("Conv2D-op7"));
  EXPECT_TRUE(compiled("[[:digit:]]{2}").search("op17"));
  EXPECT_TRUE(compiled("网络").search("C:/work/网络.py"));
  EXPECT_TRUE(compiled("^.{2}$").search("网络"));  // characters, not bytes
}

TEST(Regex, TextsThatAreNotUtf8StillMatchTheirValidParts) {
  const std::string name =
      "bad\xff"
      "name";
  EXPECT_TRUE(compiled("^bad").search(name));
  EXPECT_TRUE(compiled("name$").search(name));
  EXPECT_FALSE(compiled("^bad.name$").search(name));  // '.' is a character; \xff is none
}

// The attack of issue 25: std::regex recursed once per character ('^(a|b)*$' on 100 KB ended in
// SIGSEGV) and backtracked exponentially ('(a+)+$' on 40 a's and a '!' ran until killed). RE2
// answers at once; a regression would crash or hit ctest's timeout.
TEST(Regex, HostilePatternsFinishOnLongTexts) {
  std::string ab(100000, 'a');
  for (size_t i = 1; i < ab.size(); i += 2) ab[i] = 'b';
  EXPECT_TRUE(compiled("^(a|b)*$").search(ab));
  EXPECT_FALSE(compiled("^(a|b)*$").search(ab + "!"));
  for (size_t n : {size_t{40}, size_t{1000000}}) {
    const std::string text = std::string(n, 'a') + "!";
    EXPECT_FALSE(compiled("(a+)+$").search(text)) << n;
    EXPECT_FALSE(compiled("(a|aa)+$").search(text)) << n;
    EXPECT_TRUE(compiled("(a|aa)+!$").search(text)) << n;
    EXPECT_FALSE(compiled("(.*a){20}$").search(text)) << n;
  }
  // Deep nesting compiles without recursion.
  const size_t depth = 20000;
  Regex deep = compiled(std::string(depth, '(') + "a" + std::string(depth, ')'));
  EXPECT_TRUE(deep.search("xay"));
}

TEST(Regex, WhatRe2LacksIsRefusedWithItsMessage) {
  EXPECT_EQ(error_of(R"((a)\1)"), R"(invalid regular expression: invalid escape sequence: \1)");
  EXPECT_EQ(error_of("(?=a)b"), "invalid regular expression: invalid perl operator: (?=");
  EXPECT_EQ(error_of("(?!a)b"), "invalid regular expression: invalid perl operator: (?!");
  EXPECT_EQ(error_of("(?<=a)b"), "invalid regular expression: invalid perl operator: (?<");
  EXPECT_EQ(error_of("(?<!a)b"), "invalid regular expression: invalid perl operator: (?<");
  EXPECT_EQ(error_of("a**"), "invalid regular expression: bad repetition operator: **");
  EXPECT_EQ(error_of("a++"), "invalid regular expression: bad repetition operator: ++");
  EXPECT_EQ(error_of("(unclosed"), "invalid regular expression: missing ): (unclosed");
  EXPECT_EQ(error_of("a)"), "invalid regular expression: unexpected ): a)");
  EXPECT_EQ(error_of("[a"), "invalid regular expression: missing ]: [a");
  EXPECT_EQ(error_of("a{2,1}"), "invalid regular expression: invalid repetition size: {2,1}");
  EXPECT_EQ(error_of("a{1001}"), "invalid regular expression: invalid repetition size: {1001}");
  EXPECT_EQ(error_of("bad\xff"), "invalid regular expression: invalid UTF-8");
}

TEST(Regex, PatternsBeyondTheMemoryBoundAreRefused) {
  EXPECT_EQ(error_of(R"(\pL{1000})"),
            "invalid regular expression: pattern too large - compile failed");
  // Nested counts multiply: RE2 refuses more than 1000 repetitions in all.
  EXPECT_THAT(error_of("((a{100}){100}){100}"), HasSubstr("invalid repetition size"));
}

TEST(Regex, TheFaultyPartIsShownShortAndPrintable) {
  // RE2 quotes the whole pattern for a missing ')': a long one is cut, a control escaped.
  const std::string long_message = error_of("(" + std::string(500, 'a'));
  EXPECT_THAT(long_message, StartsWith("invalid regular expression: missing ): '(aaa"));
  EXPECT_THAT(long_message, EndsWith("aaa...'"));
  EXPECT_LT(long_message.size(), 150u);
  EXPECT_EQ(error_of("(a\nb"), R"(invalid regular expression: missing ): '(a\x0ab')");
}

// One compiled pattern, any number of threads: -j workers share the --op or --node-regex.
TEST(Regex, OnePatternServesManyThreads) {
  const Regex re = compiled(R"(^Default/.*-op(\d+)$)");
  const Regex copy = re;  // copies share the compiled pattern
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        const std::string node = "Default/net/Conv2D-op" + std::to_string(i * 4 + t);
        if (!(t % 2 ? copy : re).search(node)) ++wrong;
        if ((t % 2 ? copy : re).search(node + "x")) ++wrong;
      }
    });
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
}  // namespace msdt
