#include "tensor/value_printer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numeric>
#include <sstream>

#include "support/tensor_builder.h"

namespace msdt {
namespace {

using Owned = testing::OwnedTensor;
using testing::tensor_of;

std::string print(const Owned& t, uint64_t max_elements = 1000) {
  std::ostringstream out;
  print_values(out, t.view, max_elements);
  return out.str();
}

template <class T>
Owned arange(DType dtype, std::vector<uint64_t> shape, T start = 0) {
  uint64_t n = 1;
  for (auto d : shape) n *= d;
  std::vector<T> v(n);
  std::iota(v.begin(), v.end(), start);
  return tensor_of(dtype, v, std::move(shape));
}

// Expected strings are NumPy 1.24's np.array2string with threshold=10 (golden/dump-parse/
// value-printer checks many more against NumPy itself).
TEST(ValuePrinter, MatchesNumpyLayoutForIntegers) {
  EXPECT_EQ(print(arange<int32_t>(DType::Int32, {2, 3, 4})),
            "[[[ 0  1  2  3]\n  [ 4  5  6  7]\n  [ 8  9 10 11]]\n\n"
            " [[12 13 14 15]\n  [16 17 18 19]\n  [20 21 22 23]]]");
  EXPECT_EQ(print(arange<int64_t>(DType::Int64, {20}), 10), "[ 0  1  2 ... 17 18 19]");
  EXPECT_EQ(print(arange<int64_t>(DType::Int64, {20}), 20),
            "[ 0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19]");
  EXPECT_EQ(print(arange<uint8_t>(DType::UInt8, {10, 10}), 10),
            "[[ 0  1  2 ...  7  8  9]\n [10 11 12 ... 17 18 19]\n [20 21 22 ... 27 28 29]\n ...\n"
            " [70 71 72 ... 77 78 79]\n [80 81 82 ... 87 88 89]\n [90 91 92 ... 97 98 99]]");
  EXPECT_EQ(
      print(arange<int16_t>(DType::Int16, {8, 8, 8}, -100), 10),
      "[[[-100  -99  -98 ...  -95  -94  -93]\n  [ -92  -91  -90 ...  -87  -86  -85]\n  [ -84  "
      "-83  -82 ...  -79  -78  -77]\n  ...\n  [ -60  -59  -58 ...  -55  -54  -53]\n  [ -52  -51  "
      "-50 ...  -47  -46  -45]\n  [ -44  -43  -42 ...  -39  -38  -37]]\n\n [[ -36  -35  -34 ...  "
      "-31  -30  -29]\n  [ -28  -27  -26 ...  -23  -22  -21]\n  [ -20  -19  -18 ...  -15  -14  "
      "-13]\n  ...\n  [   4    5    6 ...    9   10   11]\n  [  12   13   14 ...   17   18   "
      "19]\n  [  20   21   22 ...   25   26   27]]\n\n [[  28   29   30 ...   33   34   35]\n  [  "
      "36   37   38 ...   41   42   43]\n  [  44   45   46 ...   49   50   51]\n  ...\n  [  68   "
      "69   70 ...   73   74   75]\n  [  76   77   78 ...   81   82   83]\n  [  84   85   86 ...  "
      " 89   90   91]]\n\n ...\n\n [[ 220  221  222 ...  225  226  227]\n  [ 228  229  230 ...  "
      "233  234  235]\n  [ 236  237  238 ...  241  242  243]\n  ...\n  [ 260  261  262 ...  265  "
      "266  267]\n  [ 268  269  270 ...  273  274  275]\n  [ 276  277  278 ...  281  282  "
      "283]]\n\n [[ 284  285  286 ...  289  290  291]\n  [ 292  293  294 ...  297  298  299]\n  [ "
      "300  301  302 ...  305  306  307]\n  ...\n  [ 324  325  326 ...  329  330  331]\n  [ 332  "
      "333  334 ...  337  338  339]\n  [ 340  341  342 ...  345  346  347]]\n\n [[ 348  349  350 "
      "...  353  354  355]\n  [ 356  357  358 ...  361  362  363]\n  [ 364  365  366 ...  369  "
      "370  371]\n  ...\n  [ 388  389  390 ...  393  394  395]\n  [ 396  397  398 ...  401  402  "
      "403]\n  [ 404  405  406 ...  409  410  411]]]");
}

TEST(ValuePrinter, ShortAxesAreNotSummarised) {
  // Only axes longer than 2 * 3 edge items get "...".
  EXPECT_EQ(print(arange<int32_t>(DType::Int32, {2, 7}), 5),
            "[[ 0  1  2 ...  4  5  6]\n [ 7  8  9 ... 11 12 13]]");
  EXPECT_EQ(print(arange<int32_t>(DType::Int32, {6}), 5), "[0 1 2 3 4 5]");
}

TEST(ValuePrinter, BoolEmptyAndScalar) {
  EXPECT_EQ(print(tensor_of<uint8_t>(DType::Bool, {1, 0}, {2})), "[ True False]");
  EXPECT_EQ(print(tensor_of<float>(DType::Float32, {}, {2, 0})), "[]");
  EXPECT_EQ(print(tensor_of<float>(DType::Float32, {2.5f}, {})), "2.5");
  EXPECT_EQ(print(tensor_of<int64_t>(DType::Int64, {-7}, {})), "-7");
  EXPECT_EQ(print(tensor_of<uint64_t>(DType::UInt64, {18446744073709551615u}, {1})),
            "[18446744073709551615]");
}

TEST(ValuePrinter, Floats) {
  std::vector<float> v = {1.0f, -2.5f, NAN, INFINITY, -INFINITY, 0.1f, 1e20f, -0.0f, 1e-7f};
  EXPECT_EQ(print(tensor_of(DType::Float32, v, {3, 3})),
            "[[ 1.0e+00 -2.5e+00      nan]\n [     inf     -inf  1.0e-01]\n"
            " [ 1.0e+20 -0.0e+00  1.0e-07]]");  // np.array2string of the same float32 array
  // Shortest form of the float32 value, not of its double widening.
  EXPECT_EQ(print(tensor_of<float>(DType::Float32, {0.1f, 16777216.0f}, {2})),
            "[1.0000000e-01 1.6777216e+07]");
  EXPECT_EQ(print(tensor_of<double>(DType::Float64, {0.1, -NAN}, {2})), "[0.1 nan]");
}

TEST(ValuePrinter, NarrowFloatsAndPackedTypes) {
  EXPECT_EQ(print(tensor_of<uint16_t>(DType::Float16, {0x3C00, 0x3555, 0xFC00}, {3})),
            "[1.     0.3333   -inf]");  // float16's own shortest digits, as NumPy
  EXPECT_EQ(print(tensor_of<uint16_t>(DType::BFloat16, {0x3F8D, 0x7FC0}, {2})), "[1.1 nan]");
  EXPECT_EQ(print(tensor_of<uint8_t>(DType::Float8E4M3FN, {0x38, 0x7E}, {2})), "[  1. 448.]");
  EXPECT_EQ(print(tensor_of<uint8_t>(DType::Float8E5M2, {0x3C, 0xC0}, {2})), "[ 1. -2.]");
  EXPECT_EQ(print(tensor_of<uint8_t>(DType::Int4, {0xF7, 0x08, 0x03}, {5})), "[ 7 -1 -8  0  3]");
  EXPECT_EQ(print(tensor_of<uint8_t>(DType::UInt1, {0xA0, 0x80}, {2, 5})),
            "[[1 0 1 0 0]\n [0 0 0 1 0]]");
}

TEST(ValuePrinter, Complex) {
  EXPECT_EQ(print(tensor_of<float>(DType::Complex64, {1, 2, 3, -1.5f}, {2})), "[ 1.+2.j 3.-1.5j]");
  EXPECT_EQ(print(tensor_of<double>(DType::Complex128, {0, -0.0}, {1})), "[0.-0.j]");
}

TEST(ValuePrinter, RefusesWhatItCannotShow) {
  EXPECT_EQ(print(tensor_of<uint8_t>(DType::HiFloat4, {1, 2}, {2})),
            "(hifloat4 values are not decoded)");
  EXPECT_EQ(print(tensor_of<uint8_t>(DType::HiFloat8, {0x08, 0xEF, 0x6E}, {3})),
            "[1.0000e+00       -inf 3.2768e+04]");  // as NumPy prints float32 [1, -inf, 32768]
  EXPECT_EQ(print(tensor_of<float>(DType::Float32, {1, 2}, {3})),
            "(data holds 8 bytes, fewer than 3 float32 elements need)");
  EXPECT_EQ(print(tensor_of<float>(DType::Float32, {}, {4294967296, 4294967296})),
            "(shape (4294967296, 4294967296) has more than 2^64 elements)");
}

// NumPy wraps rows at 75 columns, continuing under the first element (np.array2string of
// np.arange(30) * 1001).
TEST(ValuePrinter, WrapsAt75Columns) {
  std::vector<int64_t> v(30);
  for (int64_t k = 0; k < 30; ++k) v[k] = k * 1001;
  EXPECT_EQ(print(tensor_of(DType::Int64, v, {30})),
            "[    0  1001  2002  3003  4004  5005  6006  7007  8008  9009 10010 11011\n"
            " 12012 13013 14014 15015 16016 17017 18018 19019 20020 21021 22022 23023\n"
            " 24024 25025 26026 27027 28028 29029]");
}

// Deep tensors: 64 dimensions (NumPy's most) print as NumPy does; more are refused in one line,
// in time and memory linear in the rank (20 000 dimensions crashed the recursive printer).
TEST(ValuePrinter, DeepTensors) {
  std::vector<uint64_t> shape(64, 1);
  EXPECT_EQ(print(tensor_of<float>(DType::Float32, {1.5f}, shape)),
            std::string(64, '[') + "1.5" + std::string(64, ']'));
  shape.assign(20000, 1);
  EXPECT_EQ(print(tensor_of<float>(DType::Float32, {1.5f}, shape)),
            "(values not shown: 20000 dimensions, more than the 64 NumPy allows)");
}

}  // namespace
}  // namespace msdt
