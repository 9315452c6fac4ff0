// Watch files, parameter resolution and node matching against watchpoints spec §1.2/§1.4
// (parameters and defaults), §4 (validation), §5 (recommended set) and the README's matching
// rules.
#include "watch/watchpoint.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace msdt::watch {
namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::StartsWith;

std::vector<Watchpoint> parse_ok(std::string_view text) {
  auto parsed = parse_watch_file(text);
  EXPECT_TRUE(parsed) << text << "\n -> " << parsed.error().describe();
  return parsed ? std::move(*parsed) : std::vector<Watchpoint>{};
}

// The whole message as a tool prints it (with "line N: " for JSON syntax errors).
std::string parse_error(std::string_view text) {
  auto parsed = parse_watch_file(text);
  EXPECT_FALSE(parsed) << text << " was accepted";
  return parsed ? std::string() : parsed.error().describe();
}

// One watchpoint wrapped into a file.
std::string one(std::string_view body) { return "{\"watchpoints\": [" + std::string(body) + "]}"; }

const Condition& cond(std::string_view name) {
  auto c = find_condition(name);
  EXPECT_TRUE(c) << name;
  return **c;
}

struct Expect {
  std::string name;
  bool enabled;
  double value = 0;
};

void expect_params(const std::vector<ParamValue>& got, const std::vector<Expect>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_NE(got[i].spec, nullptr);
    EXPECT_EQ(got[i].spec->name, want[i].name) << i;
    EXPECT_EQ(!got[i].disabled, want[i].enabled) << want[i].name;
    if (want[i].enabled) {
      EXPECT_EQ(got[i].value, want[i].value) << want[i].name;
    }
  }
}

Expected<std::vector<ParamValue>> resolve(std::string_view condition, const GivenParams& given) {
  return resolve_params(cond(condition), given, "p");
}

// ---- accepted watch files ----------------------------------------------------------------------

TEST(WatchFile, AcceptedForms) {
  auto wps = parse_ok(R"({"watchpoints": [
    {"condition": "tensor_too_large", "params": {"max_gt": 10, "abs_mean_gt": null}},
    {"id": 7, "name": "mine", "condition": "MIN_LT", "params": {"param": -1.5},
     "nodes": ["Default/network/conv1-Conv2d/Conv2D-op369", "fc2.bias"], "io": "input",
     "slots": [0, 1], "ranks": [0, 3], "graphs": [0, 4294967295]},
    {"condition": 20, "params": {"rtol": 0.001, "equal_nan": true},
     "node_regex": "^Default/.*Conv", "op_types": ["Conv2D", "MatMul"], "io": "output"},
    {"condition": "tz", "io": "any", "slots": [], "nodes": []}
  ]})");
  ASSERT_EQ(wps.size(), 4u);

  // Ids default to the position from 1.
  EXPECT_EQ(wps[0].id, 1u);
  EXPECT_EQ(wps[1].id, 7u);
  EXPECT_EQ(wps[2].id, 3u);
  EXPECT_EQ(wps[3].id, 4u);

  EXPECT_EQ(wps[0].condition->id, "tensor_too_large");
  expect_params(
      wps[0].params,
      {{"abs_mean_gt", false}, {"max_gt", true, 10}, {"min_gt", false}, {"mean_gt", false}});
  EXPECT_EQ(wps[0].param("max_gt"), 10.0);
  EXPECT_EQ(wps[0].param("abs_mean_gt"), std::nullopt);
  EXPECT_EQ(wps[0].param("no_such"), std::nullopt);
  EXPECT_TRUE(wps[0].nodes.empty());
  EXPECT_FALSE(wps[0].node_regex);
  EXPECT_EQ(wps[0].io, IoFilter::Any);
  EXPECT_TRUE(wps[0].slots.empty() && wps[0].ranks.empty() && wps[0].graphs.empty());
  EXPECT_TRUE(wps[0].name.empty());

  EXPECT_EQ(wps[1].name, "mine");
  EXPECT_EQ(wps[1].condition->backend, Backend::MinLt);
  expect_params(wps[1].params, {{"param", true, -1.5}});
  EXPECT_EQ(wps[1].nodes,
            (std::vector<std::string>{"Default/network/conv1-Conv2d/Conv2D-op369", "fc2.bias"}));
  EXPECT_EQ(wps[1].io, IoFilter::Input);
  EXPECT_EQ(wps[1].slots, (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(wps[1].ranks, (std::vector<uint32_t>{0, 3}));
  EXPECT_EQ(wps[1].graphs, (std::vector<uint32_t>{0, 4294967295u}));

  EXPECT_EQ(wps[2].condition->backend, Backend::NotChanged);
  // Booleans as 1/0; the hidden atol takes its default.
  expect_params(wps[2].params,
                {{"rtol", true, 0.001}, {"atol", true, 1e-8}, {"equal_nan", true, 1}});
  EXPECT_EQ(wps[2].node_regex_text, "^Default/.*Conv");
  ASSERT_TRUE(wps[2].node_regex);
  EXPECT_EQ(wps[2].op_types, (std::vector<std::string>{"Conv2D", "MatMul"}));
  EXPECT_EQ(wps[2].io, IoFilter::Output);

  EXPECT_EQ(wps[3].condition->id, "tensor_all_zero");
  expect_params(wps[3].params, {{"zero_percentage_ge", true, 100}});
  EXPECT_EQ(wps[3].io, IoFilter::Any);
}

TEST(WatchFile, ExplicitIdsAndDefaultIdsMix) {
  auto wps = parse_ok(R"({"watchpoints": [{"id": 0, "condition": "TO"}, {"condition": "TO"},
                                          {"id": 4294967295, "condition": "TO"}]})");
  ASSERT_EQ(wps.size(), 3u);
  EXPECT_EQ(wps[0].id, 0u);
  EXPECT_EQ(wps[1].id, 2u);
  EXPECT_EQ(wps[2].id, 4294967295u);
}

TEST(WatchFile, ValidatorBoundsAreInclusiveWhereTheSpecSaysSo) {
  // percentage: 0 <= v <= 100; abs: 0 <= v; normal: any finite number.
  parse_ok(one(R"({"condition": "TZ", "params": {"zero_percentage_ge": 0}})"));
  parse_ok(one(R"({"condition": "TZ", "params": {"zero_percentage_ge": 100}})"));
  parse_ok(one(R"({"condition": "TL", "params": {"abs_mean_gt": 0}})"));
  parse_ok(one(R"({"condition": "TL", "params": {"min_gt": -1e300}})"));
  parse_ok(one(R"({"condition": "TR", "params": {"max_min_gt": 0}})"));
  parse_ok(one(R"({"condition": "TR", "params": {"max_min_lt": 1e-300}})"));
  // A range whose start equals its end.
  parse_ok(one(R"({"condition": "TR", "params": {"range_start_inclusive": 1,
                   "range_end_inclusive": 1, "range_percentage_gt": 50}})"));
}

// ---- malformed watch files: the exact JSON path and what is accepted ---------------------------

TEST(WatchFile, UnknownKey) {
  std::string m =
      parse_error(R"({"watchpoints": [{"condition": "TO"}, {"condition": "TO", "nodez": []}]})");
  EXPECT_THAT(m, StartsWith("watchpoints[1]: unknown key "));
  EXPECT_THAT(m, HasSubstr("nodez"));
  EXPECT_THAT(m, EndsWith("expected id, name, condition, params, nodes, node_regex, op_types, io, "
                          "slots, ranks, graphs"));
  m = parse_error(R"({"watchpoints": [{"condition": "TO"}], "extra": 1})");
  EXPECT_THAT(m, HasSubstr("extra"));
  EXPECT_THAT(m, EndsWith("at the top level: expected only 'watchpoints'"));
}

// quote_for_message (io/text.h) already adds single quotes; several messages put another pair
// around it: "unknown key ''nodez''", "unknown condition ''bogus''", "takes no parameter
// ''abs_mean_gt''", "''x'': expected NAME=VALUE" (a defect, fixed).
TEST(WatchFile, NamesInMessagesAreQuotedOnce) {
  EXPECT_THAT(parse_error(one(R"({"condition": "TO", "nodez": []})")),
              HasSubstr("unknown key 'nodez':"));
  EXPECT_THAT(parse_error(R"({"watchpoints": [{"condition": "TO"}], "extra": 1})"),
              HasSubstr("unknown key 'extra' at"));
  EXPECT_THAT(parse_error(one(R"({"condition": "bogus"})")),
              HasSubstr("unknown condition 'bogus':"));
  EXPECT_THAT(parse_error(one(R"({"condition": "TS", "params": {"abs_mean_gt": 1}})")),
              HasSubstr("takes no parameter 'abs_mean_gt';"));
  auto arg = parse_param_argument("x");
  ASSERT_FALSE(arg);
  EXPECT_EQ(arg.error().message, "'x': expected NAME=VALUE");
}

TEST(WatchFile, UnknownCondition) {
  std::string m = parse_error(R"({"watchpoints": [{"condition": "TO"}, {"condition": "bogus"}]})");
  EXPECT_THAT(m, StartsWith("watchpoints[1].condition: unknown condition "));
  EXPECT_THAT(m, HasSubstr("bogus"));
  EXPECT_THAT(m, HasSubstr("a backend name (TOO_LARGE), a number 0-21"));
  EXPECT_THAT(parse_error(one(R"({"condition": 22})")),
              StartsWith("watchpoints[0].condition: unknown condition "));
  EXPECT_EQ(parse_error(one(R"({"condition": 1.5})")),
            "watchpoints[0].condition: expected a name or a number, found '1.5'");
  EXPECT_EQ(parse_error(one(R"({"condition": -3})")),
            "watchpoints[0].condition: expected a name or a number, found '-3'");
  EXPECT_EQ(parse_error(one(R"({"params": {}})")), "watchpoints[0]: 'condition' is missing");
}

TEST(WatchFile, ParameterTheConditionDoesNotTakeListsWhatItTakes) {
  std::string m = parse_error(R"({"watchpoints": [
      {"condition": "TL", "params": {"abs_mean_gt": 1}},
      {"condition": "TS", "params": {"abs_mean_lt": 1}},
      {"condition": "tensor_too_small", "params": {"abs_mean_gt": 1}}]})");
  EXPECT_THAT(
      m, StartsWith("watchpoints[2].params.abs_mean_gt: tensor_too_small takes no parameter "));
  EXPECT_THAT(m, EndsWith("it takes abs_mean_lt, max_lt, min_lt, mean_lt"));
  // Legacy conditions take `param` only.
  EXPECT_THAT(parse_error(one(R"({"condition": "MIN_LT", "params": {"min_lt": 1}})")),
              EndsWith("it takes param"));
  // A condition without parameters.
  EXPECT_EQ(parse_error(one(R"({"condition": "TO", "params": {"max_gt": 1}})")),
            "watchpoints[0].params.max_gt: tensor_overflow takes no parameter");
  EXPECT_EQ(parse_error(one(R"({"condition": "OO", "params": {"param": null}})")),
            "watchpoints[0].params.param: operator_overflow takes no parameter");
}

TEST(WatchFile, OutOfRangeValues) {
  EXPECT_EQ(parse_error(one(R"({"condition": "TZ", "params": {"zero_percentage_ge": 100.5}})")),
            "watchpoints[0].params.zero_percentage_ge: 100.5 is out of range: expected a "
            "percentage from 0 to 100");
  EXPECT_EQ(parse_error(one(R"({"condition": "TR", "params": {"range_start_inclusive": 0,
                                "range_end_inclusive": 1, "range_percentage_lt": -0.5}})")),
            "watchpoints[0].params.range_percentage_lt: -0.5 is out of range: expected a "
            "percentage from 0 to 100");
  EXPECT_EQ(parse_error(one(R"({"condition": "TL", "params": {"abs_mean_gt": -1}})")),
            "watchpoints[0].params.abs_mean_gt: -1.0 is out of range: expected a number >= 0");
  EXPECT_EQ(parse_error(one(R"({"condition": "WNC", "params": {"rtol": -1e-5}})")),
            "watchpoints[0].params.rtol: -1e-05 is out of range: expected a number >= 0");
  EXPECT_EQ(
      parse_error(one(R"({"condition": "WCL", "params": {"abs_mean_update_ratio_gt": -0.1}})")),
      "watchpoints[0].params.abs_mean_update_ratio_gt: -0.1 is out of range: expected a "
      "number >= 0");
  EXPECT_EQ(parse_error(one(R"({"condition": "TR", "params": {"max_min_lt": 0}})")),
            "watchpoints[0].params.max_min_lt: 0.0 is out of range: expected a number > 0");
}

// A number literal too large for a double: nlohmann::json throws out_of_range (406, "number
// overflow parsing '1e999'") from json::parse, and parse_watch_file catches only parse_error, so
// the exception escaped (watch-check terminated). Now it is an Error.
TEST(WatchFile, NumberOverflowIsAnError) {
  for (std::string_view text :
       {R"({"watchpoints": [{"condition": "TL", "params": {"max_gt": 1e999}}]})",
        R"({"watchpoints": [{"condition": "TL", "id": -1e400}]})", R"({"watchpoints": 1e309})"}) {
    Expected<std::vector<Watchpoint>> parsed = Error("not run");
    EXPECT_NO_THROW(parsed = parse_watch_file(text)) << text;
    EXPECT_FALSE(parsed) << text;
    if (!parsed) {
      EXPECT_THAT(parsed.error().describe(), HasSubstr("1e")) << text;
    }
  }
}

TEST(WatchFile, WrongValueTypes) {
  EXPECT_EQ(parse_error(one(R"({"condition": "TL", "params": {"max_gt": "10"}})")),
            "watchpoints[0].params.max_gt: expected a number, true/false or null, found '\"10\"'");
  EXPECT_EQ(parse_error(one(R"({"condition": "TL", "params": {"max_gt": [1]}})")),
            "watchpoints[0].params.max_gt: expected a number, true/false or null, found '[1]'");
  EXPECT_EQ(parse_error(one(R"({"condition": "TL", "params": {"max_gt": true}})")),
            "watchpoints[0].params.max_gt: expected a number");
  EXPECT_EQ(parse_error(one(R"({"condition": "WNC", "params": {"equal_nan": 1}})")),
            "watchpoints[0].params.equal_nan: expected true or false");
  EXPECT_EQ(parse_error(one(R"({"condition": "TL", "params": [1]})")),
            "watchpoints[0].params: expected an object of name: value");
  EXPECT_EQ(parse_error(one(R"({"condition": "TO", "name": 3})")),
            "watchpoints[0].name: expected a string");
}

TEST(WatchFile, BadIdsAndDuplicates) {
  EXPECT_EQ(parse_error(
                R"({"watchpoints": [{"id": 1, "condition": "TO"}, {"id": 1, "condition": "TO"}]})"),
            "watchpoints[1].id: 1 is used by an earlier watchpoint");
  // A default id (the position) can collide with an explicit one.
  EXPECT_EQ(parse_error(R"({"watchpoints": [{"id": 2, "condition": "TO"}, {"condition": "TO"}]})"),
            "watchpoints[1].id: 2 is used by an earlier watchpoint");
  EXPECT_EQ(parse_error(one(R"({"id": -1, "condition": "TO"})")),
            "watchpoints[0].id: expected an integer from 0 to 4294967295, found '-1'");
  EXPECT_EQ(parse_error(one(R"({"id": 4294967296, "condition": "TO"})")),
            "watchpoints[0].id: expected an integer from 0 to 4294967295, found '4294967296'");
  EXPECT_EQ(parse_error(one(R"({"id": 1.5, "condition": "TO"})")),
            "watchpoints[0].id: expected an integer from 0 to 4294967295, found '1.5'");
  EXPECT_EQ(parse_error(one(R"({"id": "1", "condition": "TO"})")),
            "watchpoints[0].id: expected an integer from 0 to 4294967295, found '\"1\"'");
}

TEST(WatchFile, NodeSelection) {
  EXPECT_EQ(parse_error(one(R"({"condition": "TO", "nodes": ["a"], "node_regex": "b"})")),
            "watchpoints[0]: give either 'nodes' or 'node_regex', not both");
  EXPECT_THAT(parse_error(one(R"({"condition": "TO", "node_regex": "(unclosed"})")),
              StartsWith("watchpoints[0].node_regex: invalid regular expression: "));
  EXPECT_THAT(parse_error(one(R"({"condition": "TO", "node_regex": "a{2,1}"})")),
              StartsWith("watchpoints[0].node_regex: invalid regular expression: "));
  EXPECT_EQ(parse_error(one(R"({"condition": "TO", "node_regex": 5})")),
            "watchpoints[0].node_regex: expected a string");
  EXPECT_EQ(parse_error(one(R"({"condition": "TO", "nodes": "a"})")),
            "watchpoints[0].nodes: expected an array of names");
  EXPECT_EQ(parse_error(one(R"({"condition": "TO", "nodes": ["a", ""]})")),
            "watchpoints[0].nodes[1]: expected a node name");
  EXPECT_EQ(parse_error(one(R"({"condition": "TO", "nodes": ["a", 3]})")),
            "watchpoints[0].nodes[1]: expected a node name");
  EXPECT_EQ(parse_error(one(R"({"condition": "TO", "op_types": "ReLU"})")),
            "watchpoints[0].op_types: expected an array of names");
  EXPECT_EQ(parse_error(one(R"({"condition": "TO", "op_types": ["ReLU", null]})")),
            "watchpoints[0].op_types[1]: expected an op type");
  EXPECT_EQ(parse_error(one(R"({"condition": "TO", "io": "in"})")),
            "watchpoints[0].io: expected \"input\", \"output\" or \"any\", found '\"in\"'");
  EXPECT_EQ(parse_error(one(R"({"condition": "TO", "io": 1})")),
            "watchpoints[0].io: expected \"input\", \"output\" or \"any\", found '1'");
  EXPECT_EQ(parse_error(one(R"({"condition": "TO", "slots": 1})")),
            "watchpoints[0].slots: expected an array of integers");
  EXPECT_EQ(parse_error(one(R"({"condition": "TO", "slots": [0, "a"]})")),
            "watchpoints[0].slots[1]: expected an integer from 0 to 4294967295, found '\"a\"'");
  EXPECT_EQ(parse_error(one(R"({"condition": "TO", "ranks": [-1]})")),
            "watchpoints[0].ranks[0]: expected an integer from 0 to 4294967295, found '-1'");
  EXPECT_EQ(parse_error(one(R"({"condition": "TO", "graphs": [4294967296]})")),
            "watchpoints[0].graphs[0]: expected an integer from 0 to 4294967295, found "
            "'4294967296'");
}

// A quantifier on a quantifier is refused by RE2 ("bad repetition operator: **"); libstdc++'s
// std::regex accepted "l*********d" and then backtracked exponentially (watches() on a
// 30-character node name took minutes).
TEST(WatchFile, StackedQuantifiersAreRejected) {
  EXPECT_THAT(parse_error(one(R"({"condition": "TO", "node_regex": "l*********d"})")),
              StartsWith("watchpoints[0].node_regex: "));
  EXPECT_THAT(parse_error(one(R"({"condition": "TO", "node_regex": "a+*"})")),
              StartsWith("watchpoints[0].node_regex: "));
}

TEST(WatchFile, RangeRules) {
  EXPECT_EQ(parse_error(one(R"({"condition": "TR", "params": {"range_percentage_lt": 10}})")),
            "watchpoints[0].params: range_percentage_lt and range_percentage_gt need both "
            "range_start_inclusive and range_end_inclusive");
  EXPECT_EQ(parse_error(one(R"({"condition": "AR", "params": {"range_start_inclusive": 0,
                                "range_percentage_gt": 10}})")),
            "watchpoints[0].params: range_percentage_lt and range_percentage_gt need both "
            "range_start_inclusive and range_end_inclusive");
  EXPECT_EQ(parse_error(one(R"({"condition": "TR", "params": {"range_start_inclusive": 0,
                                "range_end_inclusive": 1, "max_min_gt": 1}})")),
            "watchpoints[0].params: range_start_inclusive and range_end_inclusive are used only "
            "with range_percentage_lt or range_percentage_gt");
  EXPECT_EQ(parse_error(one(R"({"condition": "TR", "params": {"range_start_inclusive": 2,
                                "range_end_inclusive": 1, "range_percentage_lt": 10}})")),
            "watchpoints[0].params: range_start_inclusive 2.0 is above range_end_inclusive 1.0");
  EXPECT_EQ(parse_error(one(R"({"condition": "TR"})")),
            "watchpoints[0].params: tensor_range needs at least one of range_percentage_lt, "
            "range_percentage_gt, max_min_lt, max_min_gt");
}

TEST(WatchFile, NoDecidingParameter) {
  const std::string want =
      "watchpoints[0].params: tensor_too_large needs at least one of abs_mean_gt, max_gt, "
      "min_gt, mean_gt";
  EXPECT_EQ(parse_error(one(R"({"condition": "TL"})")), want);
  EXPECT_EQ(parse_error(one(R"({"condition": "TL", "params": {}})")), want);
  EXPECT_EQ(parse_error(one(R"({"condition": "TL", "params": {"max_gt": null, "mean_gt": null}})")),
            want);
  EXPECT_EQ(parse_error(one(R"({"condition": "MAX_GT"})")),
            "watchpoints[0].params: MAX_GT needs at least one of param");
}

TEST(WatchFile, InvalidJsonGivesLineAndColumn) {
  // The '}' after the trailing comma: line 2, column 22 (counted by hand, from 1).
  std::string m = parse_error("{\"watchpoints\": [\n  {\"condition\": \"TL\",}\n]}");
  EXPECT_THAT(m, StartsWith("line 2: column 22: not valid JSON: "));
  m = parse_error("{\"watchpoints\": [\n\n   x]}");
  EXPECT_THAT(m, StartsWith("line 3: column 4: not valid JSON: "));
  m = parse_error("");
  EXPECT_THAT(m, StartsWith("line 1: column 1: not valid JSON: "));
  m = parse_error("{\"watchpoints\": [] // comment\n}");
  EXPECT_THAT(m, StartsWith("line 1: column 20: not valid JSON: "));
  // Trailing garbage after the document.
  m = parse_error("{\"watchpoints\": [{\"condition\": \"TO\"}]} x");
  EXPECT_THAT(m, StartsWith("line 1: column 40: not valid JSON: "));
}

TEST(WatchFile, NonUtf8Bytes) {
  // 0xff at byte 34 of the first line (counted by hand).
  std::string text = "{\"watchpoints\": [{\"condition\": \"T\xffL\"}]}";
  std::string m = parse_error(text);
  EXPECT_THAT(m, StartsWith("line 1: column 34: not valid JSON: "));
  // The message stays printable UTF-8: the byte is spelled out, not copied.
  EXPECT_EQ(m.find('\xff'), std::string::npos) << m;
  EXPECT_THAT(m, HasSubstr("\\xff"));
  // In a node name, and a truncated sequence at the end of a string.
  m = parse_error(one("{\"condition\": \"TO\", \"nodes\": [\"a\xc3\"]}"));
  EXPECT_EQ(m.find('\xc3'), std::string::npos) << m;
  EXPECT_THAT(m, StartsWith("line 1: "));
}

TEST(WatchFile, ShapeOfTheDocument) {
  EXPECT_EQ(parse_error(R"({"watchpoints": []})"), "watchpoints: the list is empty");
  EXPECT_EQ(parse_error(R"({"watchpoints": {}})"), "watchpoints: expected an array");
  EXPECT_EQ(parse_error(R"({"watchpoints": null})"), "watchpoints: expected an array");
  EXPECT_EQ(parse_error(R"([])"), "expected an object {\"watchpoints\": [...]}");
  EXPECT_EQ(parse_error(R"({})"), "expected an object {\"watchpoints\": [...]}");
  EXPECT_EQ(parse_error(R"("watchpoints")"), "expected an object {\"watchpoints\": [...]}");
  EXPECT_EQ(parse_error(R"({"watchpoints": [{"condition": "TO"}, 5]})"),
            "watchpoints[1]: expected an object");
}

// ---- resolve_params ----------------------------------------------------------------------------

TEST(ResolveParams, AllZeroDefaultsToOneHundredPercent) {
  auto r = resolve("TZ", {});
  ASSERT_TRUE(r) << r.error().message;
  expect_params(*r, {{"zero_percentage_ge", true, 100}});
  r = resolve("TZ", {{"zero_percentage_ge", 50.0}});
  ASSERT_TRUE(r);
  expect_params(*r, {{"zero_percentage_ge", true, 50}});
  // Backend name and weight_initialization likewise.
  r = resolve("ALL_ZERO", {});
  ASSERT_TRUE(r);
  expect_params(*r, {{"zero_percentage_ge", true, 100}});
  r = resolve("WI", {});
  ASSERT_TRUE(r);
  expect_params(*r, {{"zero_percentage_ge", true, 100}, {"max_gt", false}, {"min_lt", false}});
  // A deciding parameter given: the default is not added.
  r = resolve("WI", {{"max_gt", 1.0}});
  ASSERT_TRUE(r);
  expect_params(*r, {{"zero_percentage_ge", false}, {"max_gt", true, 1}, {"min_lt", false}});
}

TEST(ResolveParams, NotChangedDefaultsAndHiddenAtol) {
  auto r = resolve("WNC", {});
  ASSERT_TRUE(r) << r.error().message;
  expect_params(*r, {{"rtol", true, 1e-5}, {"atol", true, 1e-8}, {"equal_nan", true, 0}});
  r = resolve("WNC", {{"rtol", 0.5}});
  ASSERT_TRUE(r);
  expect_params(*r, {{"rtol", true, 0.5}, {"atol", true, 1e-8}, {"equal_nan", true, 0}});
  // The hidden atol can be given; rtol then still takes its default.
  r = resolve("NOT_CHANGED", {{"atol", 0.25}, {"equal_nan", false}});
  ASSERT_TRUE(r);
  expect_params(*r, {{"rtol", true, 1e-5}, {"atol", true, 0.25}, {"equal_nan", true, 0}});
}

TEST(ResolveParams, ChangeConditionDefaultsAndHiddenEpsilon) {
  auto r = resolve("WCL", {});
  ASSERT_TRUE(r) << r.error().message;
  expect_params(*r, {{"abs_mean_update_ratio_gt", true, 0.1}, {"epsilon", true, 1e-9}});
  r = resolve("WCS", {});
  ASSERT_TRUE(r);
  expect_params(*r, {{"abs_mean_update_ratio_lt", true, 1e-4}, {"epsilon", true, 1e-9}});
  r = resolve("CHANGE_TOO_LARGE", {{"epsilon", 0.5}});
  ASSERT_TRUE(r);
  expect_params(*r, {{"abs_mean_update_ratio_gt", true, 0.1}, {"epsilon", true, 0.5}});
  r = resolve("WCS", {{"abs_mean_update_ratio_lt", 0.3}});
  ASSERT_TRUE(r);
  expect_params(*r, {{"abs_mean_update_ratio_lt", true, 0.3}, {"epsilon", true, 1e-9}});
}

TEST(ResolveParams, OrderIsTheBackendOrderWhateverTheGivenOrder) {
  auto r = resolve("TL", {{"mean_gt", 4.0}, {"abs_mean_gt", 1.0}, {"min_gt", std::monostate{}}});
  ASSERT_TRUE(r) << r.error().message;
  expect_params(
      *r, {{"abs_mean_gt", true, 1}, {"max_gt", false}, {"min_gt", false}, {"mean_gt", true, 4}});
  r = resolve("TR", {{"range_percentage_gt", 5.0},
                     {"range_end_inclusive", 2.0},
                     {"range_start_inclusive", -2.0}});
  ASSERT_TRUE(r) << r.error().message;
  expect_params(*r, {{"range_start_inclusive", true, -2},
                     {"range_end_inclusive", true, 2},
                     {"range_percentage_lt", false},
                     {"range_percentage_gt", true, 5},
                     {"max_min_lt", false},
                     {"max_min_gt", false}});
}

TEST(ResolveParams, MessagesUseTheGivenPrefix) {
  auto r = resolve("TL", {{"max_gt", 1.0}, {"max_gt", 2.0}});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "p.max_gt: given more than once");
  r = resolve_params(cond("TL"), {{"max_gt", false}}, "");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "max_gt: expected a number");
  // watch-check passes "--param" for its command line.
  r = resolve_params(cond("TS"), {{"abs_mean_gt", 1.0}}, "--param");
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message,
              StartsWith("--param.abs_mean_gt: tensor_too_small takes no parameter"));
  r = resolve_params(cond("TL"), {}, "--param");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            "--param: tensor_too_large needs at least one of abs_mean_gt, max_gt, min_gt, mean_gt");
}

// ---- parse_param_argument ----------------------------------------------------------------------

TEST(ParamArgument, Forms) {
  auto a = parse_param_argument("max_gt=1.5");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->first, "max_gt");
  EXPECT_EQ(std::get<double>(a->second), 1.5);
  a = parse_param_argument("min_lt=-1e-3");
  ASSERT_TRUE(a);
  EXPECT_EQ(std::get<double>(a->second), -1e-3);
  a = parse_param_argument("equal_nan=true");
  ASSERT_TRUE(a);
  EXPECT_TRUE(std::get<bool>(a->second));
  a = parse_param_argument("equal_nan=false");
  ASSERT_TRUE(a);
  EXPECT_FALSE(std::get<bool>(a->second));
  for (std::string_view off : {"epsilon=null", "epsilon=disabled"}) {
    a = parse_param_argument(off);
    ASSERT_TRUE(a) << off;
    EXPECT_TRUE(std::holds_alternative<std::monostate>(a->second)) << off;
  }
  for (std::string_view bad : {"max_gt", "=1", "max_gt=", "max_gt=abc", "max_gt=1x", "max_gt= 1"}) {
    a = parse_param_argument(bad);
    EXPECT_FALSE(a) << bad;
  }
  a = parse_param_argument("max_gt=abc");
  ASSERT_FALSE(a);
  EXPECT_THAT(a.error().message, EndsWith(": the value is not a number"));
  a = parse_param_argument("max_gt");
  ASSERT_FALSE(a);
  EXPECT_THAT(a.error().message, EndsWith(": expected NAME=VALUE"));
}

// ---- node matching -----------------------------------------------------------------------------

TEST(NodeMatches, Rules) {
  const std::string full = "Default/network-Net/Conv2D-op1";
  // Equal names.
  EXPECT_TRUE(node_matches(full, full));
  EXPECT_TRUE(node_matches("fc2.bias", "fc2.bias"));
  // The part after the last '/' of either.
  EXPECT_TRUE(node_matches(full, "Conv2D-op1"));
  EXPECT_TRUE(node_matches("Conv2D-op1", full));
  // The scope written with '_' (2.3+ dump names, DumpData file names).
  EXPECT_TRUE(node_matches(full, "Default_network-Net_Conv2D-op1"));
  EXPECT_TRUE(node_matches("Default/fc3-Dense/fc2.bias", "Default_fc3-Dense_fc2_bias"));
  EXPECT_TRUE(node_matches("a\\b c", "a_b_c"));
  // A short watched name against a '_' scoped name: it must end the name after a '_'.
  EXPECT_TRUE(node_matches("Conv2D-op1", "Default_network-Net_Conv2D-op1"));
  EXPECT_TRUE(node_matches("fc2.bias", "Default_fc3-Dense_fc2_bias"));

  // Not a match.
  EXPECT_FALSE(node_matches("Conv2D-op1", "Conv2D-op12"));
  EXPECT_FALSE(node_matches("Conv2D-op1", "Default_network-Net_Conv2D-op12"));
  EXPECT_FALSE(node_matches("Conv2D-op1", "Default_network-NetConv2D-op1"));
  EXPECT_FALSE(node_matches("op1", "Default_network-Net_Conv2D-op1"));
  EXPECT_FALSE(node_matches("Conv2D-op1", "Default/network-Net/Conv2D-op12"));
  EXPECT_FALSE(node_matches("Default/A/Conv2D-op1", "Default/B/Conv2D-op1"));
  EXPECT_FALSE(node_matches(full, "Default_network-Net_Conv2D-op2"));
  EXPECT_FALSE(node_matches("conv2d-op1", "Conv2D-op1")) << "names are case-sensitive";
  EXPECT_FALSE(node_matches("Conv2D-op1", "_Conv2D-op1X"));
}

Watchpoint from_file(std::string_view body) {
  auto wps = parse_ok(one(body));
  return wps.empty() ? Watchpoint{} : std::move(wps[0]);
}

TEST(Watches, IoAndSlotFilters) {
  Watchpoint any = from_file(R"({"condition": "TO"})");
  EXPECT_TRUE(watches(any, "Default/x/Add-op1", "Add", "input", 0));
  EXPECT_TRUE(watches(any, "Default/x/Add-op1", "Add", "output", std::nullopt));

  Watchpoint in = from_file(R"({"condition": "TO", "io": "input", "slots": [1, 2]})");
  EXPECT_TRUE(watches(in, "n", "Add", "input", 1));
  EXPECT_TRUE(watches(in, "n", "Add", "input", 2));
  EXPECT_FALSE(watches(in, "n", "Add", "input", 0));
  EXPECT_FALSE(watches(in, "n", "Add", "output", 1));
  EXPECT_FALSE(watches(in, "n", "Add", "input", std::nullopt)) << "a slot list needs a slot";

  Watchpoint out =
      from_file(R"({"condition": "TO", "io": "output", "nodes": ["Default/x/Add-op1"]})");
  EXPECT_TRUE(watches(out, "Default/x/Add-op1", "Add", "output", 0));
  EXPECT_TRUE(watches(out, "Default_x_Add-op1", "Add", "output", 3));
  EXPECT_TRUE(watches(out, "Add-op1", "Add", "output", 3));
  EXPECT_FALSE(watches(out, "Default/x/Add-op1", "Add", "input", 0));
  EXPECT_FALSE(watches(out, "Default/x/Add-op2", "Add", "output", 0));
}

TEST(Watches, RegexAndOpTypes) {
  Watchpoint re = from_file(R"({"condition": "TO", "node_regex": "Conv2D-op[0-9]+$"})");
  EXPECT_TRUE(watches(re, "Default/a/Conv2D-op369", "Conv2D", "output", 0));
  EXPECT_FALSE(watches(re, "Default/a/Conv2D-op369x", "Conv2D", "output", 0));
  EXPECT_TRUE(watches_node(re, "Conv2D-op1", "Conv2D"));

  Watchpoint typed = from_file(R"({"condition": "TO", "op_types": ["ReLU", "ReLUV2"],
                                   "node_regex": "^Default/"})");
  EXPECT_TRUE(watches(typed, "Default/r/ReLU-op1", "ReLU", "output", 0));
  EXPECT_TRUE(watches(typed, "Default/r/ReLUV2-op1", "ReLUV2", "output", 0));
  EXPECT_FALSE(watches(typed, "Default/r/Tanh-op1", "Tanh", "output", 0));
  EXPECT_FALSE(watches(typed, "Gradients/r/ReLU-op1", "ReLU", "output", 0));
}

TEST(Watches, RanksAndGraphs) {
  Watchpoint wp = from_file(R"({"condition": "TO", "ranks": [1], "graphs": [0, 2]})");
  EXPECT_TRUE(watches_location(wp, 1, 0));
  EXPECT_TRUE(watches_location(wp, 1, 2));
  EXPECT_FALSE(watches_location(wp, 0, 0));
  EXPECT_FALSE(watches_location(wp, 1, 1));
  EXPECT_FALSE(watches_location(wp, std::nullopt, 0));
  Watchpoint all = from_file(R"({"condition": "TO"})");
  EXPECT_TRUE(watches_location(all, std::nullopt, std::nullopt));
  EXPECT_TRUE(watches_location(all, 7, 9));
}

// ---- recommended set (§5) ----------------------------------------------------------------------

TEST(Recommended, MatchesTheSpecTable) {
  auto wps = recommended_watchpoints();
  ASSERT_EQ(wps.size(), 9u);
  auto sigmoid = [](long double x) { return static_cast<double>(1 / (1 + std::exp(-x))); };
  struct Row {
    std::string name, condition;
    std::vector<std::pair<std::string, double>> enabled;
  };
  const std::vector<Row> rows = {
      {"recommend_weight_initialization_watchpoint",
       "weight_initialization",
       {{"zero_percentage_ge", 100}}},
      {"recommend_weight_change_too_large_watchpoint",
       "weight_change_too_large",
       {{"abs_mean_update_ratio_gt", 1}, {"epsilon", 1e-9}}},
      {"recommend_gradient_vanishing_watchpoint", "gradient_vanishing", {{"abs_mean_lt", 1e-9}}},
      {"recommend_operator_overflow_watchpoint", "operator_overflow", {}},
      {"recommend_tensor_overflow_watchpoint", "tensor_overflow", {}},
      {"recommend_tensor_all_zero_watchpoint", "tensor_all_zero", {{"zero_percentage_ge", 100}}},
      {"recommend_tanh_activation_range_watchpoint",
       "activation_range",
       {{"range_start_inclusive", static_cast<double>(std::tanh(-8.8L))},
        {"range_end_inclusive", static_cast<double>(std::tanh(8.8L))},
        {"range_percentage_lt", 0.1}}},
      {"recommend_sigmoid_activation_range_watchpoint",
       "activation_range",
       {{"range_start_inclusive", sigmoid(-16.2L)},
        {"range_end_inclusive", sigmoid(16.2L)},
        {"range_percentage_lt", 0.1}}},
      {"recommend_relu_activation_range_watchpoint",
       "activation_range",
       {{"range_start_inclusive", -1}, {"range_end_inclusive", 0}, {"range_percentage_gt", 99.9}}},
  };
  for (size_t i = 0; i < rows.size(); ++i) {
    SCOPED_TRACE(rows[i].name);
    EXPECT_EQ(wps[i].id, i + 1);
    EXPECT_EQ(wps[i].name, rows[i].name);
    EXPECT_EQ(wps[i].condition->id, rows[i].condition);
    size_t enabled = 0;
    for (const ParamValue& p : wps[i].params) enabled += !p.disabled;
    EXPECT_EQ(enabled, rows[i].enabled.size());
    for (const auto& [name, value] : rows[i].enabled) {
      ASSERT_TRUE(wps[i].param(name)) << name;
      // tanh/sigmoid in long double may differ from the double computation by an ulp.
      EXPECT_NEAR(*wps[i].param(name), value, std::fabs(value) * 1e-15) << name;
    }
  }
  EXPECT_EQ(wps[0].node_class, Watchpoint::NodeClass::Weight);
  EXPECT_EQ(wps[2].node_class, Watchpoint::NodeClass::Gradient);
  EXPECT_EQ(wps[6].op_types, (std::vector<std::string>{"Tanh"}));
  EXPECT_EQ(wps[7].op_types, (std::vector<std::string>{"Sigmoid"}));
  EXPECT_EQ(wps[8].op_types, (std::vector<std::string>{"ReLU", "ReLUV2"}));
}

}  // namespace
}  // namespace msdt::watch
