// io/crlf: the line-ending damage found, undone losslessly, and explained only when the repaired
// copy parses.
#include "io/crlf.h"

#include <gtest/gtest.h>

#include <string>

namespace msdt {
namespace {

std::vector<std::byte> bytes_of(std::string_view text) {
  std::vector<std::byte> out;
  for (char c : text) out.push_back(static_cast<std::byte>(c));
  return out;
}

std::string text_of(const std::vector<std::byte>& bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

TEST(CrlfDamage, CountsOnlyWhenEveryLfHasItsCr) {
  EXPECT_EQ(crlf_damaged_lf_count(bytes_of("a\r\nb\r\n")), 2u);
  EXPECT_EQ(crlf_damaged_lf_count(bytes_of("\r\n")), 1u);
  EXPECT_EQ(crlf_damaged_lf_count(bytes_of("a\r\nb\nc\r\n")), 0u);  // one bare LF
  EXPECT_EQ(crlf_damaged_lf_count(bytes_of("\n")), 0u);             // LF first: no CR possible
  EXPECT_EQ(crlf_damaged_lf_count(bytes_of("no line feed\r")), 0u);
  EXPECT_EQ(crlf_damaged_lf_count(bytes_of("")), 0u);
  EXPECT_EQ(crlf_damaged_lf_count(bytes_of("\r\r\n\r\n")), 2u);
}

TEST(CrlfDamage, UndoIsPerlsSubstitution) {
  EXPECT_EQ(text_of(undo_crlf(bytes_of("a\r\nb\r\r\nc\n\r"))), "a\nb\r\nc\n\r");
  EXPECT_EQ(text_of(undo_crlf(bytes_of("\r\n\r\n"))), "\n\n");
  EXPECT_EQ(text_of(undo_crlf(bytes_of(""))), "");
  EXPECT_EQ(text_of(apply_crlf(bytes_of("a\nb\r\n\n"))), "a\r\nb\r\r\n\r\n");
}

// Every byte string comes back exactly: an original CR LF became CR CR LF, a lone CR stays.
TEST(CrlfDamage, RoundTripIsLossless) {
  uint32_t state = 12345;
  for (int round = 0; round < 200; ++round) {
    std::vector<std::byte> original(static_cast<size_t>(round * 7));
    for (auto& b : original) {
      state = state * 1103515245u + 12345u;
      // Mostly CR and LF, so that every arrangement of them occurs.
      const uint32_t pick = (state >> 16) % 4;
      b = pick == 0   ? std::byte{'\r'}
          : pick == 1 ? std::byte{'\n'}
                      : static_cast<std::byte>(state >> 24);
    }
    const std::vector<std::byte> damaged = apply_crlf(original);
    EXPECT_EQ(undo_crlf(damaged), original) << "round " << round;
    uint64_t lf = 0;
    for (std::byte b : original) lf += b == std::byte{'\n'};
    EXPECT_EQ(crlf_damaged_lf_count(damaged), lf) << "round " << round;
  }
}

// A stand-in format: valid when it is "GOOD\n" followed by anything without a CR.
std::optional<std::string> parse_good(Bytes repaired) {
  std::string_view text(reinterpret_cast<const char*>(repaired.data()), repaired.size());
  if (!text.starts_with("GOOD\n") || text.find('\r') != std::string_view::npos) return std::nullopt;
  return "test format";
}

TEST(CrlfDamage, ExplainsWhenTheRepairedCopyParses) {
  const auto damaged = apply_crlf(bytes_of("GOOD\nrest\n"));
  Error error = Error::at_offset(4, "bad magic");
  ASSERT_TRUE(explain_line_ending_damage(error, damaged, "dir/x.pb", parse_good));
  EXPECT_EQ(error.describe(),
            "damaged by a line-ending conversion: each of its 2 LF bytes has a CR before it (a "
            "text-mode copy: git's autocrlf or text=auto, FTP ASCII mode); with them undone it is "
            "a valid test format; get a binary copy (git: mark the file -text in .gitattributes "
            "and check it out again; FTP: binary mode) or repair it with: perl -0777 -pe "
            "'s/\\r\\n/\\n/g' < dir/x.pb > FIXED");
}

TEST(CrlfDamage, OneLfIsSaidSo) {
  const auto damaged = apply_crlf(bytes_of("GOOD\n"));
  Error error("bad");
  ASSERT_TRUE(explain_line_ending_damage(error, damaged, "x", parse_good));
  EXPECT_NE(error.message.find("its one LF byte has a CR before it"), std::string::npos);
}

TEST(CrlfDamage, KeepsTheErrorWithoutAClaim) {
  Error error = Error::at_offset(2, "bad");
  // CR LF pairs, but the repaired copy is broken too.
  EXPECT_FALSE(explain_line_ending_damage(error, bytes_of("BAD\r\n"), "x", parse_good));
  // A bare LF: not the damage (the parse is not even tried).
  bool tried = false;
  auto spy = [&](Bytes) -> std::optional<std::string> {
    tried = true;
    return "x";
  };
  EXPECT_FALSE(explain_line_ending_damage(error, bytes_of("GOOD\r\n\n"), "x", spy));
  EXPECT_FALSE(explain_line_ending_damage(error, bytes_of("no LF at all\r"), "x", spy));
  EXPECT_FALSE(tried);
  EXPECT_EQ(error.describe(), "offset 0x2: bad");
}

// A reader inside another (an .npy inside a dump file) may have said it already: kept, not redone.
TEST(CrlfDamage, AnErrorThatSaysSoIsKept) {
  const auto damaged = apply_crlf(bytes_of("GOOD\n"));
  Error error("bad");
  ASSERT_TRUE(explain_line_ending_damage(error, damaged, "x", parse_good));
  const std::string said = error.message;
  bool tried = false;
  auto spy = [&](Bytes) -> std::optional<std::string> {
    tried = true;
    return std::nullopt;
  };
  EXPECT_TRUE(explain_line_ending_damage(error, damaged, "y", spy));
  EXPECT_FALSE(tried);
  EXPECT_EQ(error.message, said);
}

TEST(CrlfDamage, LargerThanTheLimitIsCalledLikely) {
  const auto damaged = apply_crlf(bytes_of("GOOD\nmore bytes\n"));
  Error error = Error::at_offset(6, "bad");
  bool tried = false;
  auto spy = [&](Bytes) -> std::optional<std::string> {
    tried = true;
    return "x";
  };
  ASSERT_TRUE(explain_line_ending_damage(error, damaged, "x", spy, 8));
  EXPECT_FALSE(tried);
  EXPECT_EQ(error.offset, 6u);
  EXPECT_EQ(error.message,
            "bad; likely damaged by a line-ending conversion: each of its 2 LF bytes has a CR "
            "before it (a text-mode copy: git's autocrlf or text=auto, FTP ASCII mode); at 18 "
            "bytes it is too large to check by reading a repaired copy (at most 8 bytes); get a "
            "binary copy (git: mark the file -text in .gitattributes and check it out again; FTP: "
            "binary mode) or repair it with: perl -0777 -pe 's/\\r\\n/\\n/g' < x > FIXED");
}

TEST(CrlfDamage, TheRepairCommandQuotesThePath) {
  const auto damaged = apply_crlf(bytes_of("GOOD\n"));
  auto command_for = [&](std::string_view path) {
    Error error("bad");
    EXPECT_TRUE(explain_line_ending_damage(error, damaged, path, parse_good));
    return error.message.substr(error.message.find(" < ") + 3);
  };
  EXPECT_EQ(command_for("a/b_c-1.pb"), "a/b_c-1.pb > FIXED");
  EXPECT_EQ(command_for("my file's.pb"), "'my file'\\''s.pb' > FIXED");
  EXPECT_EQ(command_for("bad\xff\n.pb"), "$'bad\\xff\\x0a.pb' > FIXED");
  EXPECT_EQ(command_for("-"), "FILE > FIXED");
}

}  // namespace
}  // namespace msdt
