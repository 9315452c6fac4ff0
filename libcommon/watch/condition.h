// The debugger's watch conditions (watchpoints spec §1): the backend conditions MindSpore
// evaluates (DebugServices::CONDITION_TYPE, numbered 0-21) and the seventeen MindInsight conditions
// that map onto them, each with its parameters in the order the backend receives them (§1.2).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "io/error.h"

namespace msdt::watch {

// DebugServices::CONDITION_TYPE, numbered as upstream.
enum class Backend : uint8_t {
  HasNan = 0,
  HasInf = 1,
  IsOverflow = 2,
  MaxGt = 3,
  MaxLt = 4,
  MinGt = 5,
  MinLt = 6,
  MaxMinGt = 7,
  MaxMinLt = 8,
  MeanGt = 9,
  MeanLt = 10,
  SdGt = 11,
  SdLt = 12,
  GeneralOverflow = 13,
  Init = 14,
  TooLarge = 15,
  TooSmall = 16,
  AllZero = 17,
  ChangeTooLarge = 18,
  ChangeTooSmall = 19,
  NotChanged = 20,
  Range = 21,
};
inline constexpr int kBackendCount = 22;
std::string_view backend_name(Backend backend);  // "TOO_LARGE"

// Value checks of MindInsight (§1.2): normal = finite; abs = 0 <= v; positive = 0 < v;
// percentage = 0 <= v <= 100; none = any finite number.
enum class Validator : uint8_t { None, Normal, Abs, Positive, Percentage };

struct ParamSpec {
  std::string_view name;
  Validator validator = Validator::Normal;
  bool boolean = false;                 // equal_nan
  std::optional<double> default_value;  // used when the user gives no check parameter
  bool support = false;                 // range bounds: they bound, they do not decide
  bool hidden = false;                  // atol, equal_nan, epsilon: always sent, default value
};

struct Condition {
  std::string_view id;    // MindInsight id ("tensor_too_large"), or the backend name ("TOO_LARGE")
  std::string_view abbr;  // "TL"; empty for the legacy conditions
  Backend backend;
  std::span<const ParamSpec> params;  // in the order the backend receives them
  bool legacy = false;                // conditions 0, 1 and 3-12, and the backend-only names
};

// Every condition, MindInsight's seventeen first (in the order of the spec's table), then the
// backend ones by number.
std::span<const Condition> all_conditions();

// Another family's name for a condition (spec §1.1, §6.2): the debugger's gRPC proto
// (WatchCondition.Condition: "tensor_change_too_large"), MindInsight's Python API ids
// (WatchpointConditionId: "TENSOR_CHANGE_TOO_LARGE"), its condition classes
// ("TensorChangeAboveThresholdCondition") and their names ("TensorChangeAboveThreshold"). Each
// stands for the backend condition of its number; where it is also a MindInsight id
// (tensor_too_large), that condition is the one found (the same backend condition and parameters).
struct ConditionAlias {
  std::string_view name;
  std::string_view family;  // "gRPC proto", "Python API id", "Python API class", "Python API name"
  Backend backend;
};
// Every spelling of every family the spec lists, family by family in the spec's order.
std::span<const ConditionAlias> condition_aliases();

// By MindInsight id, abbreviation, backend name, number or any other family's name
// (condition_aliases), case-insensitively. A backend name or number names the backend condition
// (TOO_LARGE = 15 takes the same parameters as TL, WL and GL). The error lists what is accepted.
Expected<const Condition*> find_condition(std::string_view name);

const ParamSpec* find_param(const Condition& condition, std::string_view name);
// "abs_mean_gt, max_gt, min_gt, mean_gt"
std::string param_names(const Condition& condition);

// Conditions whose verdict needs the previous iteration's tensor (18, 19, 20).
bool needs_previous(Backend backend);
// Conditions decided without statistics: 0, 1, 2, 13 (NaN/Inf counts only, or overflow files).
bool is_count_condition(Backend backend);

// The comparison a parameter makes (§2.3): from the condition for the legacy `param`, else the
// suffix after the name's last '_'.
enum class Compare : uint8_t { None, Gt, Lt, Ge, Le };
Compare compare_of(Backend backend, std::string_view param);
std::string_view compare_symbol(Compare compare);  // ">", "<", ">=", "<="

}  // namespace msdt::watch
