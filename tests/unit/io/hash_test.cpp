// io/hash against published values: RFC 1321's MD5 test suite and Python's uuid.uuid3.
#include "io/hash.h"

#include <gtest/gtest.h>

#include <string>

namespace msdt {
namespace {

Bytes bytes_of(std::string_view text) {
  return {reinterpret_cast<const std::byte*>(text.data()), text.size()};
}

TEST(Md5, Rfc1321Suite) {
  EXPECT_EQ(md5_hex(bytes_of("")), "d41d8cd98f00b204e9800998ecf8427e");
  EXPECT_EQ(md5_hex(bytes_of("abc")), "900150983cd24fb0d6963f7d28e17f72");
  EXPECT_EQ(md5_hex(bytes_of("message digest")), "f96b697d7cb7938d525a2f31aaf161d0");
  EXPECT_EQ(
      md5_hex(bytes_of(
          "12345678901234567890123456789012345678901234567890123456789012345678901234567890")),
      "57edf4a22be3c955ac49da2e2107b67a");
}

TEST(Md5, PiecesEqualTheWhole) {
  Md5 md5;
  md5.update(std::string_view("message ")).update(std::string_view("digest"));
  EXPECT_EQ(hex_digits(md5.finish()), "f96b697d7cb7938d525a2f31aaf161d0");
  // finish() starts over.
  EXPECT_EQ(hex_digits(md5.finish()), "d41d8cd98f00b204e9800998ecf8427e");
}

TEST(Uuid3, MatchesPython) {
  // python3 -c 'import uuid; print(uuid.uuid3(uuid.NAMESPACE_DNS, "python.org").hex)'
  EXPECT_EQ(uuid3_hex(kUuidNamespaceDns, "python.org"), "6fa459eaee8a3ca4894edb77e160355e");
}

}  // namespace
}  // namespace msdt
