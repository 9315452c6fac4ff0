// The selectors shared by every tool that walks dump trees: id lists, dtype lists and the
// Selector built from --rank/--iteration/--graph/--op/--dtype/--io.
#include "dump/select.h"

#include <gtest/gtest.h>

#include <limits>

namespace msdt::dump {
namespace {

TEST(ParseIdList, NumbersAndInclusiveRanges) {
  auto list = parse_id_list("0,3,5-8");
  ASSERT_TRUE(list) << list.error().message;
  for (uint64_t id : {0, 3, 5, 6, 7, 8}) EXPECT_TRUE(list->contains(id)) << id;
  for (uint64_t id : {1, 2, 4, 9, 100}) EXPECT_FALSE(list->contains(id)) << id;
  ASSERT_EQ(list->ranges().size(), 3u);
  EXPECT_EQ(list->ranges()[2], (std::pair<uint64_t, uint64_t>{5, 8}));
}

TEST(ParseIdList, SpacesSingleRangeAndLargestValue) {
  auto list = parse_id_list(" 2 - 2 , 18446744073709551615");
  ASSERT_TRUE(list) << list.error().message;
  EXPECT_TRUE(list->contains(2));
  EXPECT_FALSE(list->contains(3));
  EXPECT_TRUE(list->contains(std::numeric_limits<uint64_t>::max()));
}

TEST(ParseIdList, Errors) {
  struct Case {
    const char* text;
    const char* message;
  };
  for (auto [text, message] : std::initializer_list<Case>{
           {"", "empty item in list ''"},
           {"1,,2", "empty item in list '1,,2'"},
           {"1,", "empty item in list '1,'"},
           {"a", "'a': expected a non-negative integer or a range like 5-8"},
           {"+1", "'+1': expected a non-negative integer or a range like 5-8"},
           {"18446744073709551616",
            "'18446744073709551616': expected a non-negative integer or a range like 5-8"},
           {"5-3", "'5-3': range end 3 is before its start 5"},
           {"-3", "'-3': expected a range of two non-negative integers like 5-8"},
           {"3-", "'3-': expected a range of two non-negative integers like 5-8"},
           {"1-2-3", "'1-2-3': expected a range of two non-negative integers like 5-8"},
       }) {
    auto list = parse_id_list(text);
    ASSERT_FALSE(list) << text;
    EXPECT_EQ(list.error().message, message) << text;
  }
}

TEST(ParseDtypeList, AnySpellingBecomesOneDtype) {
  auto dtypes = parse_dtype_list("float32,BF16,kNumberTypeInt32,FLOAT16");
  ASSERT_TRUE(dtypes) << dtypes.error().message;
  EXPECT_EQ(*dtypes,
            (std::vector<DType>{DType::Float32, DType::BFloat16, DType::Int32, DType::Float16}));
  auto bad = parse_dtype_list("float32,floaty");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "'floaty': unknown dtype");
}

struct Sample {
  DumpLocation where;
  DumpFile file;
  DumpTensor tensor;
};

Sample sample() {
  Sample s;
  s.where.rank = 0;
  s.where.net = "Net";
  s.where.graph = 0;
  s.where.iteration = 3;
  s.file.display = "d/rank_0/Net/0/3/Add.Default_Add-op1.0.0.1.output.0.DefaultFormat.npy";
  s.tensor.op_type = "Add";
  s.tensor.op_name = "Default_Add-op1";
  s.tensor.io = "output";
  s.tensor.dtype = DType::Float32;
  return s;
}

Selector selector_for(const Selection& selection) {
  auto selector = Selector::create(selection);
  EXPECT_TRUE(selector) << selector.error().message;
  return std::move(*selector);
}

bool accepts(const Selection& selection, const Sample& s) {
  return selector_for(selection).accepts(s.where, s.file, s.tensor);
}

TEST(Selector, EmptySelectionAcceptsEverything) {
  EXPECT_TRUE(accepts({}, Sample{}));
  EXPECT_TRUE(accepts({}, sample()));
}

TEST(Selector, EachOption) {
  Sample s = sample();
  Selection o;
  o.op = "Add-op[0-9]$";
  EXPECT_TRUE(accepts(o, s));
  o.op = "^Add";  // searched in op_name, not op_type
  EXPECT_FALSE(accepts(o, s));

  o = {};
  o.iterations = "0-2,4";
  EXPECT_FALSE(accepts(o, s));
  o.iterations = "1,3";
  EXPECT_TRUE(accepts(o, s));

  o = {};
  o.ranks = "1";
  EXPECT_FALSE(accepts(o, s));
  o.ranks = "0";
  EXPECT_TRUE(accepts(o, s));

  o = {};
  o.graphs = "1-5";
  EXPECT_FALSE(accepts(o, s));
  o.graphs = "0";
  EXPECT_TRUE(accepts(o, s));

  o = {};
  o.io = "input";
  EXPECT_FALSE(accepts(o, s));
  o.io = "output";
  EXPECT_TRUE(accepts(o, s));

  o = {};
  o.dtypes = "float16,BF16";
  EXPECT_FALSE(accepts(o, s));
  o.dtypes = "FLOAT";  // CANN spelling of float32
  EXPECT_TRUE(accepts(o, s));
}

TEST(Selector, DtypeMatchesTheStoredDtypeOrTheNames) {
  Sample s = sample();  // stored as float32
  s.file.name.dtype_label = "bfloat16";
  s.file.name.dtype = DType::BFloat16;
  Selection o;
  o.dtypes = "bf16";
  EXPECT_TRUE(accepts(o, s));
  o.dtypes = "float32";
  EXPECT_TRUE(accepts(o, s));
  o.dtypes = "float16";
  EXPECT_FALSE(accepts(o, s));
}

TEST(ParseDtypeList, EverySpellingAUserMayType) {
  auto dtypes = parse_dtype_list("bf16,fp16,half,<f4,f8,|b1,>i2,Float16,BFLOAT16,int64,DT_INT8");
  ASSERT_TRUE(dtypes) << dtypes.error().message;
  EXPECT_EQ(*dtypes,
            (std::vector<DType>{DType::BFloat16, DType::Float16, DType::Float16, DType::Float32,
                                DType::Float64, DType::Bool, DType::Int16, DType::Float16,
                                DType::BFloat16, DType::Int64, DType::Int8}));
  for (const char* bad : {"f32", "float", "<x4", "bf", ""}) {
    if (std::string_view(bad) == "float") continue;  // width-less Float is Float32 in MindSpore
    EXPECT_FALSE(parse_dtype_list(bad)) << bad;
  }
}

TEST(Selector, AbsentFieldNeverMatchesASelectionOnIt) {
  for (auto set :
       {+[](Selection& o) { o.iterations = "0-100"; }, +[](Selection& o) { o.ranks = "0"; },
        +[](Selection& o) { o.graphs = "0"; }, +[](Selection& o) { o.io = "input"; },
        +[](Selection& o) { o.dtypes = "float32"; }}) {
    Selection o;
    set(o);
    EXPECT_FALSE(accepts(o, Sample{}));
  }
  Selection o;
  o.op = "^$";  // empty op_name matches an empty-matching regex
  EXPECT_TRUE(accepts(o, Sample{}));
}

TEST(Selector, LocationOnly) {
  Selection o;
  o.ranks = "1";
  o.iterations = "2-4";
  Selector f = selector_for(o);
  DumpLocation where;
  EXPECT_FALSE(f.accepts_location(where));
  where.rank = 1;
  where.iteration = 4;
  EXPECT_TRUE(f.accepts_location(where));
  where.iteration = 5;
  EXPECT_FALSE(f.accepts_location(where));
}

TEST(Selector, BadOptionValues) {
  struct Case {
    void (*set)(Selection&);
    const char* prefix;
  };
  for (auto [set, prefix] : std::initializer_list<Case>{
           {+[](Selection& o) { o.op = "(unclosed"; }, "--op: '(unclosed': invalid regular"},
           {+[](Selection& o) { o.iterations = "x"; }, "--iteration: 'x': expected"},
           {+[](Selection& o) { o.ranks = "3-1"; }, "--rank: '3-1': range end 1"},
           {+[](Selection& o) { o.graphs = ","; }, "--graph: empty item"},
           {+[](Selection& o) { o.io = "inputs"; }, "--io: 'inputs': expected input or output"},
           {+[](Selection& o) { o.dtypes = "f32"; }, "--dtype: 'f32': unknown dtype"},
       }) {
    Selection o;
    set(o);
    auto selector = Selector::create(o);
    ASSERT_FALSE(selector) << prefix;
    EXPECT_EQ(selector.error().message.rfind(prefix, 0), 0u) << selector.error().message;
  }
}

}  // namespace
}  // namespace msdt::dump
