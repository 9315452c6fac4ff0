// io/safe_name: the one file naming of every exporter, from raw name bytes.
#include "io/safe_name.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "io/hash.h"

namespace msdt {
namespace {

TEST(SafeFileName, QuotesLikeMindInsight) {
  EXPECT_EQ(safe_file_name("loss/auto"), "loss%2Fauto");
  EXPECT_EQ(safe_file_name("conv1.weight/auto", "_1.npy"), "conv1.weight%2Fauto_1.npy");
  EXPECT_EQ(safe_file_name("a b~c-d_e"), "a%20b~c-d_e");
  EXPECT_EQ(safe_file_name("\xff"), "%FF");
  EXPECT_EQ(safe_file_name(".."), "%2E%2E");
  EXPECT_EQ(safe_file_name("."), "%2E");
  EXPECT_EQ(safe_file_name("../../etc/passwd"), "..%2F..%2Fetc%2Fpasswd");
  EXPECT_EQ(safe_file_name(std::string("a\0b\x1b\r", 5), ".bin"), "a%00b%1B%0D.bin");
}

TEST(SafeFileName, RawBytesNotTheirEscapedSpelling) {
  // The tag x\xff (one byte 0xff) and the tag x\\xff (a backslash and "xff") are two files.
  std::string invalid = "x\xff";
  std::string backslash = "x\\xff";
  EXPECT_EQ(safe_file_name(invalid, "_1.npy"), "x%FF_1.npy");
  EXPECT_EQ(safe_file_name(backslash, "_1.npy"), "x%5Cxff_1.npy");
}

TEST(SafeFileName, LongNamesAreCutWithTheirDigest) {
  std::string a(300, 'a');
  std::string name = safe_file_name(a, "_1.npy");
  EXPECT_EQ(name.size(), kMaxFileNameBytes);
  std::string digest = md5_hex({reinterpret_cast<const std::byte*>(a.data()), a.size()});
  EXPECT_EQ(name, std::string(255 - 34 - 6, 'a') + "%~" + digest + "_1.npy");
  // Two names that agree on their first 300 bytes stay apart.
  std::set<std::string> names;
  for (char last : {'x', 'y', 'z'}) names.insert(safe_file_name(a + last, "_1.npy"));
  names.insert(name);
  EXPECT_EQ(names.size(), 4u);
  for (const std::string& n : names) EXPECT_LE(n.size(), kMaxFileNameBytes);
  // Exactly at the limit: not cut.
  EXPECT_EQ(safe_file_name(std::string(249, 'b'), "_1.npy"), std::string(249, 'b') + "_1.npy");
  EXPECT_EQ(safe_file_name(std::string(250, 'b'), "_1.npy").size(), kMaxFileNameBytes);
  EXPECT_NE(safe_file_name(std::string(250, 'b'), "_1.npy").find("%~"), std::string::npos);
}

TEST(SafeFileName, NeverCutsInsideAnEscape) {
  // 73 slashes spell 219 bytes; the cut at 255 - 34 - 4 = 217 would split the last %2F.
  std::string slashes(100, '/');
  std::string name = safe_file_name(slashes, ".npy");
  EXPECT_LE(name.size(), kMaxFileNameBytes);
  size_t marker = name.find("%~");
  ASSERT_NE(marker, std::string::npos);
  EXPECT_EQ(marker % 3, 0u);
  for (size_t i = 0; i < marker; i += 3) EXPECT_EQ(name.substr(i, 3), "%2F");
}

}  // namespace
}  // namespace msdt
