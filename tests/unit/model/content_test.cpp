#include "model/content.h"

#include <gtest/gtest.h>

namespace msdt::model {
namespace {

Content content(DType dtype, std::vector<uint64_t> shape, std::string spelling = "") {
  Content c;
  c.dtype = dtype;
  c.spelling = std::move(spelling);
  c.dims = shape;
  c.shape = std::move(shape);
  return c;
}

TEST(Content, ExpectedBytesFromDtypeAndShape) {
  Content c = content(DType::Float32, {2, 3}, "Float32");
  EXPECT_FALSE(set_expected_bytes(c));
  EXPECT_EQ(c.expected_bytes, 24u);
  c = content(DType::Int4, {3}, "Int4");  // two per byte, rounded up
  EXPECT_FALSE(set_expected_bytes(c));
  EXPECT_EQ(c.expected_bytes, 2u);
  c = content(DType::Float64, {}, "Float64");  // a scalar
  EXPECT_FALSE(set_expected_bytes(c));
  EXPECT_EQ(c.expected_bytes, 8u);
  c = content(DType::Float32, {0, uint64_t{1} << 40, uint64_t{1} << 40});
  EXPECT_FALSE(set_expected_bytes(c));
  EXPECT_EQ(c.expected_bytes, 0u);
}

TEST(Content, ExpectedBytesOverflowSaysWhich) {
  Content c = content(DType::Float32, {uint64_t{1} << 32, uint64_t{1} << 32}, "Float32");
  c.expected_bytes = 7;  // a stale value is cleared
  Status count = set_expected_bytes(c);
  ASSERT_TRUE(count);
  EXPECT_EQ(count->message, "shape (4294967296, 4294967296) has more than 2^64 elements");
  EXPECT_FALSE(c.expected_bytes);
  c = content(DType::Float64, {uint64_t{1} << 62}, "Float64");
  Status bytes = set_expected_bytes(c);
  ASSERT_TRUE(bytes);
  EXPECT_EQ(bytes->message, "4611686018427387904 elements of Float64 need more than 2^64 bytes");
  c = content(DType::Float64, {uint64_t{1} << 62});  // no spelling: the dtype's name
  bytes = set_expected_bytes(c);
  ASSERT_TRUE(bytes);
  EXPECT_EQ(bytes->message, "4611686018427387904 elements of float64 need more than 2^64 bytes");
}

}  // namespace
}  // namespace msdt::model
