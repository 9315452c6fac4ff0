// The condition catalogue against watchpoints spec §1 (backend enum, MindInsight conditions and
// their parameter lists) and §2.3-2.4 (the comparison each parameter makes).
#include "watch/condition.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace msdt::watch {
namespace {

using ::testing::HasSubstr;

// The spec's §1.1 table, by number.
const std::vector<std::string> kBackendTable = {
    "HAS_NAN",     "HAS_INF",   "IS_OVERFLOW", "MAX_GT",           "MAX_LT",
    "MIN_GT",      "MIN_LT",    "MAX_MIN_GT",  "MAX_MIN_LT",       "MEAN_GT",
    "MEAN_LT",     "SD_GT",     "SD_LT",       "GENERAL_OVERFLOW", "INIT",
    "TOO_LARGE",   "TOO_SMALL", "ALL_ZERO",    "CHANGE_TOO_LARGE", "CHANGE_TOO_SMALL",
    "NOT_CHANGED", "RANGE"};

struct UiRow {
  std::string abbr, id;
  int backend;
};
// The spec's §1.2 table, in its order.
const std::vector<UiRow> kUiTable = {{"WI", "weight_initialization", 14},
                                     {"WO", "weight_overflow", 13},
                                     {"WL", "weight_too_large", 15},
                                     {"WS", "weight_too_small", 16},
                                     {"GV", "gradient_vanishing", 16},
                                     {"GL", "gradient_too_large", 15},
                                     {"GE", "gradient_exploding", 13},
                                     {"TO", "tensor_overflow", 13},
                                     {"OO", "operator_overflow", 2},
                                     {"TL", "tensor_too_large", 15},
                                     {"TS", "tensor_too_small", 16},
                                     {"TZ", "tensor_all_zero", 17},
                                     {"WNC", "weight_not_changed", 20},
                                     {"WCL", "weight_change_too_large", 18},
                                     {"WCS", "weight_change_too_small", 19},
                                     {"AR", "activation_range", 21},
                                     {"TR", "tensor_range", 21}};

const Condition& get(std::string_view name) {
  auto c = find_condition(name);
  EXPECT_TRUE(c) << name << ": " << c.error().message;
  static const Condition* fallback = &all_conditions()[0];
  return c ? **c : *fallback;
}

std::vector<std::string> names_of(const Condition& c) {
  std::vector<std::string> out;
  for (const ParamSpec& p : c.params) out.emplace_back(p.name);
  return out;
}

std::string upper(std::string s) {
  for (char& ch : s)
    if (ch >= 'a' && ch <= 'z') ch = static_cast<char>(ch - 'a' + 'A');
  return s;
}

TEST(Condition, CatalogueHoldsTheSeventeenUiConditionsThenTheBackendOnes) {
  auto all = all_conditions();
  ASSERT_EQ(all.size(), kUiTable.size() + kBackendTable.size());
  for (size_t i = 0; i < kUiTable.size(); ++i) {
    EXPECT_EQ(all[i].id, kUiTable[i].id) << i;
    EXPECT_EQ(all[i].abbr, kUiTable[i].abbr) << i;
    EXPECT_EQ(static_cast<int>(all[i].backend), kUiTable[i].backend) << kUiTable[i].id;
    EXPECT_FALSE(all[i].legacy) << kUiTable[i].id;
  }
  for (size_t n = 0; n < kBackendTable.size(); ++n) {
    const Condition& c = all[kUiTable.size() + n];
    EXPECT_EQ(static_cast<size_t>(c.backend), n);
    EXPECT_TRUE(c.abbr.empty()) << n;
    EXPECT_EQ(backend_name(c.backend), kBackendTable[n]);
    // §1.1: 0, 1 and 3-12 are the legacy conditions.
    bool legacy = n == 0 || n == 1 || (n >= 3 && n <= 12);
    EXPECT_EQ(c.legacy, legacy) << kBackendTable[n];
  }
  EXPECT_EQ(kBackendCount, 22);
}

TEST(Condition, FindsEveryUiConditionByIdAndAbbreviationInAnyCase) {
  for (const UiRow& row : kUiTable) {
    for (const std::string& name : {row.id, upper(row.id), row.abbr, upper(row.abbr)}) {
      auto c = find_condition(name);
      ASSERT_TRUE(c) << name << ": " << c.error().message;
      EXPECT_EQ((*c)->id, row.id) << name;
    }
    // Lower-case abbreviation and mixed case.
    std::string lower_abbr = row.abbr;
    for (char& ch : lower_abbr) ch = static_cast<char>(ch - 'A' + 'a');
    auto c = find_condition(lower_abbr);
    ASSERT_TRUE(c) << lower_abbr;
    EXPECT_EQ((*c)->id, row.id);
  }
  EXPECT_EQ(get("Tensor_Too_Large").id, "tensor_too_large");
  EXPECT_EQ(get("tL").id, "tensor_too_large");
  EXPECT_EQ(get("wNc").id, "weight_not_changed");
}

TEST(Condition, FindsEveryBackendConditionByNameAndNumber) {
  for (size_t n = 0; n < kBackendTable.size(); ++n) {
    std::string lower = kBackendTable[n];
    for (char& ch : lower)
      if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
    for (const std::string& name : {kBackendTable[n], lower, std::to_string(n)}) {
      auto c = find_condition(name);
      ASSERT_TRUE(c) << name << ": " << c.error().message;
      EXPECT_EQ(static_cast<size_t>((*c)->backend), n) << name;
      EXPECT_TRUE((*c)->abbr.empty()) << name << " names the backend entry";
      EXPECT_EQ(backend_name((*c)->backend), kBackendTable[n]);
    }
  }
  // A backend name or number names the backend condition, which takes the UI parameters.
  EXPECT_EQ(names_of(get("TOO_LARGE")), names_of(get("TL")));
  EXPECT_EQ(names_of(get("15")), names_of(get("weight_too_large")));
  EXPECT_EQ(names_of(get("Too_Small")), names_of(get("GV")));
  EXPECT_EQ(names_of(get("21")), names_of(get("activation_range")));
}

TEST(Condition, RejectsUnknownNamesWithWhatIsAccepted) {
  for (std::string_view bad : {"22", "99", "4294967296", "-1", "", "tensor_too", "TOO LARGE",
                               "tensor_too_large ", "1.0", "0x3", "too-large"}) {
    auto c = find_condition(bad);
    ASSERT_FALSE(c) << "'" << bad << "' was accepted as " << (*c)->id;
    const std::string& m = c.error().message;
    EXPECT_THAT(m, HasSubstr("unknown condition")) << bad;
    EXPECT_THAT(m, HasSubstr("MindInsight id (tensor_too_large)"));
    EXPECT_THAT(m, HasSubstr("abbreviation (TL)"));
    EXPECT_THAT(m, HasSubstr("backend name (TOO_LARGE)"));
    EXPECT_THAT(m, HasSubstr("0-21"));
  }
  // Bytes that are not printable are spelled out in the message, not copied.
  auto c = find_condition("bad\xff\n");
  ASSERT_FALSE(c);
  EXPECT_THAT(c.error().message, HasSubstr("\\xff"));
  EXPECT_EQ(c.error().message.find('\n'), std::string::npos);
}

// io/text.h: quote_for_message puts the text in single quotes itself; the message must not add
// another pair ("unknown condition ''bogus''" was a defect).
TEST(Condition, UnknownNameIsQuotedOnce) {
  auto c = find_condition("bogus");
  ASSERT_FALSE(c);
  EXPECT_THAT(c.error().message, HasSubstr("unknown condition 'bogus':"));
}

struct ParamRow {
  std::string name;
  Validator validator;
  std::optional<double> default_value;
  bool support = false, hidden = false, boolean = false;
};

void expect_params(const Condition& c, const std::vector<ParamRow>& want) {
  SCOPED_TRACE(std::string(c.id));
  ASSERT_EQ(c.params.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    const ParamSpec& p = c.params[i];
    EXPECT_EQ(p.name, want[i].name) << i;
    EXPECT_EQ(p.validator, want[i].validator) << want[i].name;
    EXPECT_EQ(p.default_value, want[i].default_value) << want[i].name;
    EXPECT_EQ(p.support, want[i].support) << want[i].name;
    EXPECT_EQ(p.hidden, want[i].hidden) << want[i].name;
    EXPECT_EQ(p.boolean, want[i].boolean) << want[i].name;
  }
}

using V = Validator;
const std::vector<ParamRow> kTooLargeRows = {{"abs_mean_gt", V::Abs, std::nullopt},
                                             {"max_gt", V::Normal, std::nullopt},
                                             {"min_gt", V::Normal, std::nullopt},
                                             {"mean_gt", V::Normal, std::nullopt}};
const std::vector<ParamRow> kTooSmallRows = {{"abs_mean_lt", V::Abs, std::nullopt},
                                             {"max_lt", V::Normal, std::nullopt},
                                             {"min_lt", V::Normal, std::nullopt},
                                             {"mean_lt", V::Normal, std::nullopt}};
const std::vector<ParamRow> kRangeRows = {{"range_start_inclusive", V::Normal, std::nullopt, true},
                                          {"range_end_inclusive", V::Normal, std::nullopt, true},
                                          {"range_percentage_lt", V::Percentage, std::nullopt},
                                          {"range_percentage_gt", V::Percentage, std::nullopt},
                                          {"max_min_lt", V::Positive, std::nullopt},
                                          {"max_min_gt", V::Abs, std::nullopt}};

// §1.2: each condition's parameters in the order the backend receives them, with validator,
// default and kind.
TEST(Condition, ParameterListsInBackendOrder) {
  expect_params(get("WI"), {{"zero_percentage_ge", V::Percentage, 100.0},
                            {"max_gt", V::Normal, std::nullopt},
                            {"min_lt", V::Normal, std::nullopt}});
  for (std::string_view none : {"WO", "GE", "TO", "OO"}) expect_params(get(none), {});
  for (std::string_view large : {"WL", "GL", "TL"}) expect_params(get(large), kTooLargeRows);
  for (std::string_view small : {"WS", "GV", "TS"}) expect_params(get(small), kTooSmallRows);
  expect_params(get("TZ"), {{"zero_percentage_ge", V::Percentage, 100.0}});
  expect_params(get("WNC"), {{"rtol", V::Abs, 1e-5},
                             {"atol", V::None, 1e-8, false, true},
                             {"equal_nan", V::None, 0.0, false, true, true}});
  expect_params(get("WCL"), {{"abs_mean_update_ratio_gt", V::Abs, 0.1},
                             {"epsilon", V::Abs, 1e-9, false, true}});
  expect_params(get("WCS"), {{"abs_mean_update_ratio_lt", V::Abs, 1e-4},
                             {"epsilon", V::Abs, 1e-9, false, true}});
  expect_params(get("AR"), kRangeRows);
  expect_params(get("TR"), kRangeRows);
}

TEST(Condition, BackendConditionsTakeTheSameParametersAsTheirUiConditions) {
  EXPECT_EQ(names_of(get("IS_OVERFLOW")), std::vector<std::string>{});
  EXPECT_EQ(names_of(get("GENERAL_OVERFLOW")), std::vector<std::string>{});
  EXPECT_EQ(names_of(get("INIT")), names_of(get("WI")));
  EXPECT_EQ(names_of(get("TOO_LARGE")), names_of(get("TL")));
  EXPECT_EQ(names_of(get("TOO_SMALL")), names_of(get("TS")));
  EXPECT_EQ(names_of(get("ALL_ZERO")), names_of(get("TZ")));
  EXPECT_EQ(names_of(get("CHANGE_TOO_LARGE")), names_of(get("WCL")));
  EXPECT_EQ(names_of(get("CHANGE_TOO_SMALL")), names_of(get("WCS")));
  EXPECT_EQ(names_of(get("NOT_CHANGED")), names_of(get("WNC")));
  EXPECT_EQ(names_of(get("RANGE")), names_of(get("TR")));
  // §1.1 / §2.4: conditions 3-12 take one parameter named `param`, any finite value.
  for (int n = 3; n <= 12; ++n) {
    const Condition& c = get(std::to_string(n));
    ASSERT_EQ(c.params.size(), 1u) << n;
    EXPECT_EQ(c.params[0].name, "param");
    EXPECT_EQ(c.params[0].validator, V::Normal);
    EXPECT_FALSE(c.params[0].default_value);
    EXPECT_FALSE(c.params[0].hidden || c.params[0].support || c.params[0].boolean);
  }
}

TEST(Condition, FindParamAndParamNames) {
  const Condition& tl = get("TL");
  ASSERT_NE(find_param(tl, "max_gt"), nullptr);
  EXPECT_EQ(find_param(tl, "max_gt")->name, "max_gt");
  EXPECT_EQ(find_param(tl, "max_gt"), &tl.params[1]);
  EXPECT_EQ(find_param(tl, "max_lt"), nullptr);
  EXPECT_EQ(find_param(tl, "MAX_GT"), nullptr) << "parameter names are exact";
  EXPECT_EQ(find_param(tl, ""), nullptr);
  EXPECT_EQ(param_names(tl), "abs_mean_gt, max_gt, min_gt, mean_gt");
  EXPECT_EQ(param_names(get("TS")), "abs_mean_lt, max_lt, min_lt, mean_lt");
  EXPECT_EQ(param_names(get("WNC")), "rtol, atol, equal_nan");
  EXPECT_EQ(param_names(get("MIN_LT")), "param");
  EXPECT_EQ(param_names(get("TO")), "no parameter");
}

TEST(Condition, NeedsPreviousAndCountConditions) {
  for (int n = 0; n < kBackendCount; ++n) {
    auto b = static_cast<Backend>(n);
    EXPECT_EQ(needs_previous(b), n == 18 || n == 19 || n == 20) << n;
    EXPECT_EQ(is_count_condition(b), n == 0 || n == 1 || n == 2 || n == 13) << n;
  }
}

// §2.3: the operator comes from the condition for `param`, else from the name's suffix after its
// last '_'.
TEST(Condition, CompareOfLegacyParam) {
  for (int n : {3, 5, 7, 9, 11})
    EXPECT_EQ(compare_of(static_cast<Backend>(n), "param"), Compare::Gt) << n;
  for (int n : {4, 6, 8, 10, 12})
    EXPECT_EQ(compare_of(static_cast<Backend>(n), "param"), Compare::Lt) << n;
  for (int n : {0, 1, 2, 13, 14, 15, 16, 17, 18, 19, 20, 21})
    EXPECT_EQ(compare_of(static_cast<Backend>(n), "param"), Compare::None) << n;
}

TEST(Condition, CompareOfEveryParameterNameKind) {
  struct Case {
    std::string_view name;
    Compare want;
  };
  const Case cases[] = {
      {"abs_mean_gt", Compare::Gt},
      {"max_gt", Compare::Gt},
      {"min_gt", Compare::Gt},
      {"mean_gt", Compare::Gt},
      {"abs_mean_lt", Compare::Lt},
      {"max_lt", Compare::Lt},
      {"min_lt", Compare::Lt},
      {"mean_lt", Compare::Lt},
      {"zero_percentage_ge", Compare::Ge},
      {"range_percentage_lt", Compare::Lt},
      {"range_percentage_gt", Compare::Gt},
      {"max_min_lt", Compare::Lt},
      {"max_min_gt", Compare::Gt},
      {"abs_mean_update_ratio_gt", Compare::Gt},
      {"abs_mean_update_ratio_lt", Compare::Lt},
      {"something_le", Compare::Le},
      // Parameters that decide nothing (§2.4).
      {"range_start_inclusive", Compare::None},
      {"range_end_inclusive", Compare::None},
      {"rtol", Compare::None},
      {"atol", Compare::None},
      {"epsilon", Compare::None},
      {"equal_nan", Compare::None},
      {"", Compare::None},
      {"_", Compare::None},
      {"gt", Compare::None},
      {"max_GT", Compare::None},
  };
  // The suffix rule does not depend on the condition.
  for (Backend b : {Backend::TooLarge, Backend::TooSmall, Backend::Range, Backend::MaxGt,
                    Backend::AllZero, Backend::ChangeTooLarge})
    for (const Case& c : cases)
      EXPECT_EQ(compare_of(b, c.name), c.want) << c.name << " under " << backend_name(b);
}

TEST(Condition, CompareSymbols) {
  EXPECT_EQ(compare_symbol(Compare::Gt), ">");
  EXPECT_EQ(compare_symbol(Compare::Lt), "<");
  EXPECT_EQ(compare_symbol(Compare::Ge), ">=");
  EXPECT_EQ(compare_symbol(Compare::Le), "<=");
  EXPECT_EQ(compare_symbol(Compare::None), "");
}

// Other families' names (spec §1.1, §6.2), as the spec writes them: "name=number, ...".
constexpr std::string_view kProtoNames =
    "nan=0, overflow=2, sd_gt=11, sd_lt=12, tensor_general_overflow=13, "
    "tensor_initialization=14, tensor_too_large=15, tensor_too_small=16, tensor_all_zero=17, "
    "tensor_change_too_large=18, tensor_change_too_small=19, tensor_not_changed=20, "
    "tensor_range=21";
constexpr std::string_view kApiIds =
    "OPERATOR_OVERFLOW=2, TENSOR_OVERFLOW=13, INITIAL_WEIGHT=14, TENSOR_TOO_LARGE=15, "
    "TENSOR_TOO_SMALL=16, TENSOR_ALL_ZERO=17, TENSOR_CHANGE_TOO_LARGE=18, "
    "TENSOR_CHANGE_TOO_SMALL=19, UNCHANGED_TENSOR=20, TENSOR_RANGE=21";
// §6.2's condition classes: class, name and id columns.
constexpr std::string_view kApiClasses =
    "TensorTooLargeCondition=15, TensorTooLarge=15, TensorTooSmallCondition=16, "
    "TensorTooSmall=16, TensorRangeCondition=21, TensorRange=21, TensorOverflowCondition=13, "
    "TensorOverflow=13, OperatorOverflowCondition=2, OperatorOverflow=2, "
    "TensorAllZeroCondition=17, TensorAllZero=17, TensorUnchangedCondition=20, "
    "TensorUnchanged=20, TensorChangeBelowThresholdCondition=19, TensorChangeBelowThreshold=19, "
    "TensorChangeAboveThresholdCondition=18, TensorChangeAboveThreshold=18";

std::vector<std::pair<std::string, int>> pairs(std::string_view text) {
  std::vector<std::pair<std::string, int>> out;
  std::stringstream in{std::string(text)};
  std::string item;
  while (std::getline(in, item, ',')) {
    item.erase(0, item.find_first_not_of(" \n"));
    const size_t eq = item.find('=');
    out.emplace_back(item.substr(0, eq), std::stoi(item.substr(eq + 1)));
  }
  return out;
}

void expect_resolves(const std::string& name, int number) {
  auto c = find_condition(name);
  ASSERT_TRUE(c) << name << ": " << c.error().message;
  EXPECT_EQ(static_cast<int>((*c)->backend), number) << name;
}

TEST(Condition, EveryOtherFamilysNameResolvesToItsNumber) {
  for (std::string_view family : {kProtoNames, kApiIds, kApiClasses})
    for (const auto& [name, number] : pairs(family)) {
      expect_resolves(name, number);
      // Case-insensitively, like every other name.
      std::string upper = name, lower = name;
      for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      expect_resolves(upper, number);
      expect_resolves(lower, number);
    }
  // Names of issue 25, and what they are: the backend condition, named by its backend name.
  EXPECT_EQ((*find_condition("tensor_change_too_large"))->id, "CHANGE_TOO_LARGE");
  EXPECT_EQ((*find_condition("TENSOR_CHANGE_TOO_LARGE"))->id, "CHANGE_TOO_LARGE");
  EXPECT_EQ((*find_condition("TensorChangeAboveThreshold"))->id, "CHANGE_TOO_LARGE");
  EXPECT_EQ((*find_condition("UNCHANGED_TENSOR"))->id, "NOT_CHANGED");
  EXPECT_EQ((*find_condition("nan"))->id, "HAS_NAN");
  EXPECT_EQ((*find_condition("INITIAL_WEIGHT"))->id, "INIT");
  // A name that is also a MindInsight id stays that condition.
  EXPECT_EQ((*find_condition("TENSOR_TOO_LARGE"))->abbr, "TL");
  EXPECT_EQ((*find_condition("TensorOverflow"))->backend, Backend::GeneralOverflow);
  // An alias takes the parameters of its backend condition.
  EXPECT_EQ(param_names(**find_condition("TensorChangeAboveThresholdCondition")),
            "abs_mean_update_ratio_gt, epsilon");
  EXPECT_EQ(param_names(**find_condition("tensor_not_changed")), "rtol, atol, equal_nan");
}

// --list-conditions lists condition_aliases(): every name of the families above is there, with
// its number, and nothing else.
TEST(Condition, AliasesAreTheSpecsNamesFamilyByFamily) {
  std::vector<std::pair<std::string, int>> want;
  std::vector<std::pair<std::string, std::string>> want_family;
  for (auto [text, family] :
       {std::pair{kProtoNames, "gRPC proto"}, std::pair{kApiIds, "Python API id"}}) {
    for (const auto& p : pairs(text)) {
      want.push_back(p);
      want_family.emplace_back(p.first, family);
    }
  }
  std::vector<std::pair<std::string, int>> classes = pairs(kApiClasses);
  for (size_t i = 0; i < classes.size(); i += 2) {  // classes first, then their names
    want.push_back(classes[i]);
    want_family.emplace_back(classes[i].first, "Python API class");
  }
  for (size_t i = 1; i < classes.size(); i += 2) {
    want.push_back(classes[i]);
    want_family.emplace_back(classes[i].first, "Python API name");
  }
  std::vector<std::pair<std::string, int>> got;
  std::vector<std::pair<std::string, std::string>> got_family;
  for (const ConditionAlias& a : condition_aliases()) {
    got.emplace_back(std::string(a.name), static_cast<int>(a.backend));
    got_family.emplace_back(std::string(a.name), std::string(a.family));
  }
  EXPECT_EQ(got, want);
  EXPECT_EQ(got_family, want_family);
}

// The same against the spec file itself when the shared folder is there: every spelling of every
// family (§1.1's table and lists, §1.2's ids and abbreviations, §6.2's classes) resolves to the
// number the spec gives.
TEST(Condition, EverySpellingOfTheSpecFileResolves) {
  const char* shared = std::getenv("MSDT_SHARED_DIR");
  if (!shared) GTEST_SKIP() << "MSDT_SHARED_DIR is not set";
  std::ifstream file(std::string(shared) + "/spec/watchpoints.md");
  if (!file) GTEST_SKIP() << "no spec/watchpoints.md under " << shared;
  std::stringstream buffer;
  buffer << file.rdbuf();
  std::string spec = buffer.str();
  // One line per paragraph: the lists wrap.
  for (size_t at; (at = spec.find("\n  ")) != std::string::npos;) spec.replace(at, 3, " ");
  size_t checked = 0;
  auto list_after = [&](std::string_view lead, std::string_view end) {
    const size_t from = spec.find(lead);
    ASSERT_NE(from, std::string::npos) << lead;
    const size_t start = from + lead.size(), stop = spec.find(end, start);
    for (const auto& [name, number] : pairs(spec.substr(start, stop - start))) {
      expect_resolves(name, number);
      ++checked;
    }
  };
  list_after("`WatchCondition.Condition` uses the same numbers: `", "`.");
  list_after("`WatchpointConditionId`: ", " (`");
  std::stringstream lines(spec);
  std::string line;
  auto cells = [](const std::string& row) {
    std::vector<std::string> out;
    std::stringstream in(row);
    std::string cell;
    while (std::getline(in, cell, '|')) {
      cell.erase(0, cell.find_first_not_of(" `"));
      cell.erase(cell.find_last_not_of(" `") + 1);
      out.push_back(cell);
    }
    return out;
  };
  auto first_word = [](const std::string& cell) { return cell.substr(0, cell.find(' ')); };
  while (std::getline(lines, line)) {
    if (!line.starts_with("| ")) continue;
    std::vector<std::string> c = cells(line);
    if (c.size() == 5 && !c[1].empty() && std::isdigit(static_cast<unsigned char>(c[1][0]))) {
      // §1.1: | 0 | HAS_NAN | 11 | SD_GT |
      expect_resolves(first_word(c[2]), std::stoi(c[1]));
      expect_resolves(first_word(c[4]), std::stoi(c[3]));
      expect_resolves(c[1], std::stoi(c[1]));
      checked += 3;
    } else if (c.size() >= 7 && c[1].ends_with("Condition") && !c[4].empty() &&
               std::isdigit(static_cast<unsigned char>(c[4][0]))) {
      // §6.2: | TensorTooLargeCondition | (...) | TensorTooLarge | 15 | ...
      expect_resolves(c[1], std::stoi(c[4]));
      expect_resolves(c[3], std::stoi(c[4]));
      checked += 2;
    } else if (c.size() >= 6 && c[1].size() >= 2 && c[1].size() <= 3 &&
               std::all_of(c[1].begin(), c[1].end(),
                           [](char ch) { return ch >= 'A' && ch <= 'Z'; }) &&
               !c[4].empty() && std::isdigit(static_cast<unsigned char>(c[4][0]))) {
      // §1.2: | WI | `weight_initialization` | weight | 14 INIT | ...
      expect_resolves(c[1], std::stoi(c[4]));
      expect_resolves(c[2], std::stoi(c[4]));
      checked += 2;
    }
  }
  // 13 proto names, 10 API ids, 11 rows of 2 backend names plus their numbers, 17 MindInsight
  // conditions by id and abbreviation, 9 classes by class and name.
  EXPECT_EQ(checked, 13u + 10u + 11u * 3u + 17u * 2u + 9u * 2u);
}

}  // namespace
}  // namespace msdt::watch
