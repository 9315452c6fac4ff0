#include "io/cli.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace msdt {
namespace {

// Parses `args` (after the program name) with one option --n of type T checked by `check`; the
// value, or the one-line usage error the tools print.
template <class T>
struct Parsed {
  std::optional<T> value;
  std::string error;
};

template <class T>
Parsed<T> parse(CLI::Validator check, std::vector<std::string> args) {
  CLI::App app{"test", "test"};
  T value{};
  app.add_option("--n", value, "a number")->transform(check);
  std::vector<const char*> argv{"test"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  Parsed<T> out;
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
    out.value = value;
  } catch (const CLI::ParseError& e) {
    out.error = e.what();
  }
  return out;
}

TEST(InRange, WholeNumbersInsideAreTaken) {
  auto p = parse<uint64_t>(in_range<uint64_t>(1, 10000), {"--n", "10000"});
  EXPECT_EQ(p.value, 10000u);
  p = parse<uint64_t>(in_range<uint64_t>(1, 10000), {"--n", "+7"});
  EXPECT_EQ(p.value, 7u);
  // Decimal, whatever CLI11 alone would make of a leading 0 (octal) or 0x.
  p = parse<uint64_t>(in_range<uint64_t>(1, 10000), {"--n", "010"});
  EXPECT_EQ(p.value, 10u);
  p = parse<uint64_t>(at_least<uint64_t>(0), {"--n", "18446744073709551615"});
  EXPECT_EQ(p.value, UINT64_MAX);
}

TEST(InRange, NegativeOverflowingOrMalformedCountsAreUsageErrors) {
  auto range = [] { return in_range<uint64_t>(1, 10000); };
  EXPECT_EQ(parse<uint64_t>(range(), {"--n", "0"}).error,
            "--n: '0' is out of range: expected a whole number in [1, 10000]");
  EXPECT_EQ(parse<uint64_t>(range(), {"--n", "-1"}).error,
            "--n: expected a whole number in [1, 10000], not '-1'");
  EXPECT_EQ(parse<uint64_t>(range(), {"--n", "10001"}).error,
            "--n: '10001' is out of range: expected a whole number in [1, 10000]");
  EXPECT_EQ(parse<uint64_t>(at_least<uint64_t>(0), {"--n", "18446744073709551616"}).error,
            "--n: '18446744073709551616' is out of range: expected a whole number in [0, "
            "18446744073709551615]");
  for (const char* bad : {"", "0x10", "1.5", "1e3", "nan", "+-1", "--1", " 1", "1 "})
    EXPECT_NE(parse<uint64_t>(range(), {"--n", bad}).error, "") << bad;
  // A 32-bit option takes what uint32_t holds, no more.
  EXPECT_EQ(parse<uint32_t>(at_least<uint32_t>(0), {"--n", "4294967295"}).value, UINT32_MAX);
  EXPECT_NE(parse<uint32_t>(at_least<uint32_t>(0), {"--n", "4294967296"}).error, "");
}

TEST(InRange, SignedWholeNumbers) {
  EXPECT_EQ(parse<int>(in_range(-5, 5), {"--n", "-5"}).value, -5);
  EXPECT_NE(parse<int>(in_range(-5, 5), {"--n", "-6"}).error, "");
  EXPECT_NE(parse<int>(in_range(-5, 5), {"--n", "+-5"}).error, "");
}

TEST(InRange, NumbersRefuseNanInfinityAndOverflow) {
  auto smooth = [] { return in_range(0.0, 0.999); };
  EXPECT_EQ(parse<double>(smooth(), {"--n", "0.6"}).value, 0.6);
  EXPECT_EQ(parse<double>(smooth(), {"--n", "6e-1"}).value, 0.6);
  EXPECT_EQ(parse<double>(smooth(), {"--n", "nan"}).error,
            "--n: expected a number in [0, 0.999], not 'nan'");
  EXPECT_EQ(parse<double>(smooth(), {"--n", "1"}).error,
            "--n: '1' is out of range: expected a number in [0, 0.999]");
  for (const char* bad : {"NaN", "-nan", "inf", "-inf", "infinity", "-0.1", "0x0.1", "", "0.5x"})
    EXPECT_NE(parse<double>(smooth(), {"--n", bad}).error, "") << bad;
  auto finite = [] { return in_range(0.0, std::numeric_limits<double>::max()); };
  EXPECT_EQ(parse<double>(finite(), {"--n", "65500"}).value, 65500.0);
  EXPECT_EQ(parse<double>(finite(), {"--n", "1e999"}).error,
            "--n: '1e999' is out of range: expected a number in [0, 1.7976931348623157e+308]");
  EXPECT_NE(parse<double>(finite(), {"--n", "inf"}).error, "");
}

TEST(NonEmpty, RefusesAnEmptyValue) {
  CLI::App app{"test", "test"};
  std::string list;
  app.add_option("--iteration", list, "a list")->check(non_empty());
  const char* argv[] = {"test", "--iteration", ""};
  try {
    app.parse(3, argv);
    ADD_FAILURE() << "an empty --iteration was taken";
  } catch (const CLI::ParseError& e) {
    EXPECT_STREQ(e.what(), "--iteration: expected a value, not an empty string");
  }
}

}  // namespace
}  // namespace msdt
