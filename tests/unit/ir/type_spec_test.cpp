// The type notation of every era (spec ir.md §4) read into dtype, shape and format.
#include "ir/type_spec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace msdt::ir {
namespace {

using Dims = std::vector<int64_t>;

TEST(TypeSpec, TensorFormsOfEveryEra) {
  for (std::string_view text : {"<Tensor[Float32]x[const vector][2, 3]>",  // <= 1.3
                                "<Tensor[Float32]x(2, 3)>",                // 1.4
                                "<Tensor[Float32], (2, 3)>",               // >= 1.5
                                "<Tensor[Float32], (2, 3), value=...>"}) {
    TypeSpec t = parse_type_spec(text);
    EXPECT_EQ(t.kind, TypeSpec::Kind::Tensor) << text;
    EXPECT_EQ(t.dtype, "Float32") << text;
    EXPECT_EQ(t.shape, Dims({2, 3})) << text;
    EXPECT_EQ(t.label(), "Float32[2,3]") << text;
  }
  TypeSpec scalar = parse_type_spec("<Tensor[Int64], ()>");
  EXPECT_EQ(scalar.shape, Dims{});
  EXPECT_EQ(scalar.label(), "Int64[]");
  TypeSpec dynamic =
      parse_type_spec("<Tensor[Float32]x{shape:(-1, 3)|min shape:(1, 3)|max shape:(8, 3)}>");
  EXPECT_EQ(dynamic.shape, Dims({-1, 3}));
  EXPECT_EQ(dynamic.label(), "Float32[?,3]");
  EXPECT_EQ(parse_type_spec("<Tensor[Float32], (-2)>").label(), "Float32[*]");
}

TEST(TypeSpec, RefsOf1xAnd2x) {
  TypeSpec old = parse_type_spec("<Ref[Tensor(F32)], (6, 1, 5, 5)>");
  EXPECT_TRUE(old.ref);
  EXPECT_EQ(old.dtype, "Float32");
  EXPECT_EQ(old.shape, Dims({6, 1, 5, 5}));
  EXPECT_EQ(old.label(), "Ref Float32[6,1,5,5]");
  TypeSpec now = parse_type_spec("<Ref[Tensor[BFloat16]], (4), ref_key=conv.weight>");
  EXPECT_TRUE(now.ref);
  EXPECT_EQ(now.dtype, "BFloat16");
  EXPECT_EQ(now.shape, Dims({4}));
}

TEST(TypeSpec, DeviceForms) {
  TypeSpec old = parse_type_spec("<Float32xDefaultFormat[const vector][32, 1, 32, 32]>");
  EXPECT_EQ(old.kind, TypeSpec::Kind::Tensor);
  EXPECT_EQ(old.format, "DefaultFormat");
  EXPECT_EQ(old.shape, Dims({32, 1, 32, 32}));
  TypeSpec now = parse_type_spec("<Float32xNC1HWC0[const vector]{32, 12, 13, 13, 16}>");
  EXPECT_EQ(now.format, "NC1HWC0");
  EXPECT_EQ(now.shape, Dims({32, 12, 13, 13, 16}));
  // More than ten dims print as [i]:{v} items (2.2+).
  TypeSpec long_form = parse_type_spec(
      "<Int32xDefaultFormat[const vector]{[0]:{1}, [1]:{2}, [2]:{3}, [3]:{4}, [4]:{5}, [5]:{6}, "
      "[6]:{7}, [7]:{8}, [8]:{9}, [9]:{10}, [10]:{11}}>");
  EXPECT_EQ(long_form.shape, Dims({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
  EXPECT_EQ(parse_type_spec("<kTypeUnknownxDefaultFormat[const vector][6]>").dtype, "kTypeUnknown");
}

TEST(TypeSpec, OtherKinds) {
  EXPECT_EQ(parse_type_spec("<Int64, NoShape>").kind, TypeSpec::Kind::Scalar);
  EXPECT_EQ(parse_type_spec("<Int64, NoShape>").label(), "Int64");
  EXPECT_EQ(parse_type_spec("<UMonad>").label(), "UMonad");
  EXPECT_EQ(parse_type_spec("<IOMonad>").kind, TypeSpec::Kind::Monad);
  EXPECT_EQ(parse_type_spec("<Func>").kind, TypeSpec::Kind::Function);
  EXPECT_EQ(parse_type_spec("<null>").kind, TypeSpec::Kind::None);
  EXPECT_EQ(parse_type_spec("<Tuple[Tensor[Float32]*2,Int64], TupleShape((2), (2), NoShape)>").kind,
            TypeSpec::Kind::Tuple);
  TypeSpec odd = parse_type_spec("<Something(strange)[");
  EXPECT_EQ(odd.kind, TypeSpec::Kind::Other);
  EXPECT_EQ(odd.text, "<Something(strange)[");
}

}  // namespace
}  // namespace msdt::ir
