#include "watch/condition.h"

#include <fmt/format.h>

#include <array>

#include "io/text.h"

namespace msdt::watch {
namespace {

using V = Validator;

// A parameter: name, validator, default, and whether it is a support (range bound), hidden or
// boolean one.
constexpr ParamSpec P(std::string_view name, Validator validator = V::Normal,
                      std::optional<double> default_value = std::nullopt, bool support = false,
                      bool hidden = false, bool boolean = false) {
  ParamSpec p;
  p.name = name;
  p.validator = validator;
  p.default_value = default_value;
  p.support = support;
  p.hidden = hidden;
  p.boolean = boolean;
  return p;
}

// Parameter lists in the order the backend receives them (spec §1.2, §6.2).
constexpr ParamSpec kLegacy[] = {P("param")};
// HAS_NAN and HAS_INF take the legacy `param` too (spec §1.1) but never read it.
constexpr ParamSpec kLegacyUnused[] = {P("param", V::Normal, 0.0)};
constexpr ParamSpec kInit[] = {P("zero_percentage_ge", V::Percentage, 100.0), P("max_gt"),
                               P("min_lt")};
constexpr ParamSpec kTooLarge[] = {P("abs_mean_gt", V::Abs), P("max_gt"), P("min_gt"),
                                   P("mean_gt")};
constexpr ParamSpec kTooSmall[] = {P("abs_mean_lt", V::Abs), P("max_lt"), P("min_lt"),
                                   P("mean_lt")};
constexpr ParamSpec kAllZero[] = {P("zero_percentage_ge", V::Percentage, 100.0)};
constexpr ParamSpec kNotChanged[] = {P("rtol", V::Abs, 1e-5), P("atol", V::None, 1e-8, false, true),
                                     P("equal_nan", V::None, 0.0, false, true, true)};
constexpr ParamSpec kChangeTooLarge[] = {P("abs_mean_update_ratio_gt", V::Abs, 0.1),
                                         P("epsilon", V::Abs, 1e-9, false, true)};
constexpr ParamSpec kChangeTooSmall[] = {P("abs_mean_update_ratio_lt", V::Abs, 1e-4),
                                         P("epsilon", V::Abs, 1e-9, false, true)};
constexpr ParamSpec kRange[] = {P("range_start_inclusive", V::Normal, std::nullopt, true),
                                P("range_end_inclusive", V::Normal, std::nullopt, true),
                                P("range_percentage_lt", V::Percentage),
                                P("range_percentage_gt", V::Percentage),
                                P("max_min_lt", V::Positive),
                                P("max_min_gt", V::Abs)};

constexpr std::string_view kBackendNames[kBackendCount] = {
    "HAS_NAN",     "HAS_INF",   "IS_OVERFLOW", "MAX_GT",           "MAX_LT",
    "MIN_GT",      "MIN_LT",    "MAX_MIN_GT",  "MAX_MIN_LT",       "MEAN_GT",
    "MEAN_LT",     "SD_GT",     "SD_LT",       "GENERAL_OVERFLOW", "INIT",
    "TOO_LARGE",   "TOO_SMALL", "ALL_ZERO",    "CHANGE_TOO_LARGE", "CHANGE_TOO_SMALL",
    "NOT_CHANGED", "RANGE"};

constexpr std::span<const ParamSpec> backend_params(Backend b) {
  switch (b) {
    case Backend::HasNan:
    case Backend::HasInf:
      return kLegacyUnused;
    case Backend::IsOverflow:
    case Backend::GeneralOverflow:
      return {};
    case Backend::Init:
      return kInit;
    case Backend::TooLarge:
      return kTooLarge;
    case Backend::TooSmall:
      return kTooSmall;
    case Backend::AllZero:
      return kAllZero;
    case Backend::ChangeTooLarge:
      return kChangeTooLarge;
    case Backend::ChangeTooSmall:
      return kChangeTooSmall;
    case Backend::NotChanged:
      return kNotChanged;
    case Backend::Range:
      return kRange;
    default:
      return kLegacy;  // 3-12
  }
}

constexpr bool is_legacy(Backend b) {
  return b == Backend::HasNan || b == Backend::HasInf ||
         (static_cast<int>(b) >= 3 && static_cast<int>(b) <= 12);
}

constexpr Condition ui(std::string_view id, std::string_view abbr, Backend b) {
  return {id, abbr, b, backend_params(b), false};
}

constexpr Condition backend_entry(int number) {
  auto b = static_cast<Backend>(number);
  return {kBackendNames[number], {}, b, backend_params(b), is_legacy(b)};
}

template <size_t... I>
constexpr auto make_table(std::index_sequence<I...>) {
  return std::array<Condition, 17 + sizeof...(I)>{
      ui("weight_initialization", "WI", Backend::Init),
      ui("weight_overflow", "WO", Backend::GeneralOverflow),
      ui("weight_too_large", "WL", Backend::TooLarge),
      ui("weight_too_small", "WS", Backend::TooSmall),
      ui("gradient_vanishing", "GV", Backend::TooSmall),
      ui("gradient_too_large", "GL", Backend::TooLarge),
      ui("gradient_exploding", "GE", Backend::GeneralOverflow),
      ui("tensor_overflow", "TO", Backend::GeneralOverflow),
      ui("operator_overflow", "OO", Backend::IsOverflow),
      ui("tensor_too_large", "TL", Backend::TooLarge),
      ui("tensor_too_small", "TS", Backend::TooSmall),
      ui("tensor_all_zero", "TZ", Backend::AllZero),
      ui("weight_not_changed", "WNC", Backend::NotChanged),
      ui("weight_change_too_large", "WCL", Backend::ChangeTooLarge),
      ui("weight_change_too_small", "WCS", Backend::ChangeTooSmall),
      ui("activation_range", "AR", Backend::Range),
      ui("tensor_range", "TR", Backend::Range),
      backend_entry(static_cast<int>(I))...};
}

constexpr auto kConditions = make_table(std::make_index_sequence<kBackendCount>{});

using B = Backend;
constexpr std::string_view kProto = "gRPC proto", kApiId = "Python API id",
                           kApiClass = "Python API class", kApiName = "Python API name";
constexpr ConditionAlias kAliases[] = {
    // mindinsight/debugger/proto/debug_grpc.proto, WatchCondition.Condition (spec §1.1).
    {"nan", kProto, B::HasNan},
    {"overflow", kProto, B::IsOverflow},
    {"sd_gt", kProto, B::SdGt},
    {"sd_lt", kProto, B::SdLt},
    {"tensor_general_overflow", kProto, B::GeneralOverflow},
    {"tensor_initialization", kProto, B::Init},
    {"tensor_too_large", kProto, B::TooLarge},
    {"tensor_too_small", kProto, B::TooSmall},
    {"tensor_all_zero", kProto, B::AllZero},
    {"tensor_change_too_large", kProto, B::ChangeTooLarge},
    {"tensor_change_too_small", kProto, B::ChangeTooSmall},
    {"tensor_not_changed", kProto, B::NotChanged},
    {"tensor_range", kProto, B::Range},
    // mindinsight/debugger/api/conditions.py, WatchpointConditionId (§1.1).
    {"OPERATOR_OVERFLOW", kApiId, B::IsOverflow},
    {"TENSOR_OVERFLOW", kApiId, B::GeneralOverflow},
    {"INITIAL_WEIGHT", kApiId, B::Init},
    {"TENSOR_TOO_LARGE", kApiId, B::TooLarge},
    {"TENSOR_TOO_SMALL", kApiId, B::TooSmall},
    {"TENSOR_ALL_ZERO", kApiId, B::AllZero},
    {"TENSOR_CHANGE_TOO_LARGE", kApiId, B::ChangeTooLarge},
    {"TENSOR_CHANGE_TOO_SMALL", kApiId, B::ChangeTooSmall},
    {"UNCHANGED_TENSOR", kApiId, B::NotChanged},
    {"TENSOR_RANGE", kApiId, B::Range},
    // The condition classes of the same file and their `name`s (§6.2).
    {"TensorTooLargeCondition", kApiClass, B::TooLarge},
    {"TensorTooSmallCondition", kApiClass, B::TooSmall},
    {"TensorRangeCondition", kApiClass, B::Range},
    {"TensorOverflowCondition", kApiClass, B::GeneralOverflow},
    {"OperatorOverflowCondition", kApiClass, B::IsOverflow},
    {"TensorAllZeroCondition", kApiClass, B::AllZero},
    {"TensorUnchangedCondition", kApiClass, B::NotChanged},
    {"TensorChangeBelowThresholdCondition", kApiClass, B::ChangeTooSmall},
    {"TensorChangeAboveThresholdCondition", kApiClass, B::ChangeTooLarge},
    {"TensorTooLarge", kApiName, B::TooLarge},
    {"TensorTooSmall", kApiName, B::TooSmall},
    {"TensorRange", kApiName, B::Range},
    {"TensorOverflow", kApiName, B::GeneralOverflow},
    {"OperatorOverflow", kApiName, B::IsOverflow},
    {"TensorAllZero", kApiName, B::AllZero},
    {"TensorUnchanged", kApiName, B::NotChanged},
    {"TensorChangeBelowThreshold", kApiName, B::ChangeTooSmall},
    {"TensorChangeAboveThreshold", kApiName, B::ChangeTooLarge},
};

}  // namespace

std::string_view backend_name(Backend backend) { return kBackendNames[static_cast<int>(backend)]; }

std::span<const Condition> all_conditions() { return kConditions; }

std::span<const ConditionAlias> condition_aliases() { return kAliases; }

Expected<const Condition*> find_condition(std::string_view name) {
  if (auto number = parse_unsigned<uint32_t>(name)) {
    if (*number < kBackendCount) return &kConditions[17 + *number];
  } else {
    for (const Condition& c : kConditions)
      if (equals_ignoring_case(c.id, name) ||
          (!c.abbr.empty() && equals_ignoring_case(c.abbr, name)))
        return &c;
    for (const ConditionAlias& a : kAliases)
      if (equals_ignoring_case(a.name, name))
        return &kConditions[17 + static_cast<size_t>(a.backend)];
  }
  return Error(fmt::format(
      "unknown condition {}: expected a MindInsight id (tensor_too_large), an abbreviation (TL), "
      "a backend name (TOO_LARGE), a number 0-21, or a name of the gRPC proto or the Python API "
      "(TENSOR_CHANGE_TOO_LARGE); watch-check --list-conditions shows them all",
      quote_for_message(name)));
}

const ParamSpec* find_param(const Condition& condition, std::string_view name) {
  for (const ParamSpec& p : condition.params)
    if (p.name == name) return &p;
  return nullptr;
}

std::string param_names(const Condition& condition) {
  std::string out;
  for (const ParamSpec& p : condition.params) {
    if (!out.empty()) out += ", ";
    out += p.name;
  }
  return out.empty() ? "no parameter" : out;
}

bool needs_previous(Backend b) {
  return b == Backend::ChangeTooLarge || b == Backend::ChangeTooSmall || b == Backend::NotChanged;
}

bool is_count_condition(Backend b) {
  return b == Backend::HasNan || b == Backend::HasInf || b == Backend::IsOverflow ||
         b == Backend::GeneralOverflow;
}

Compare compare_of(Backend backend, std::string_view param) {
  if (param == "param") {
    switch (backend) {
      case Backend::MaxGt:
      case Backend::MinGt:
      case Backend::MeanGt:
      case Backend::SdGt:
      case Backend::MaxMinGt:
        return Compare::Gt;
      case Backend::MaxLt:
      case Backend::MinLt:
      case Backend::MeanLt:
      case Backend::SdLt:
      case Backend::MaxMinLt:
        return Compare::Lt;
      default:
        return Compare::None;
    }
  }
  auto underscore = param.rfind('_');
  if (underscore == std::string_view::npos) return Compare::None;
  std::string_view suffix = param.substr(underscore + 1);
  if (suffix == "gt") return Compare::Gt;
  if (suffix == "lt") return Compare::Lt;
  if (suffix == "ge") return Compare::Ge;
  if (suffix == "le") return Compare::Le;
  return Compare::None;
}

std::string_view compare_symbol(Compare compare) {
  switch (compare) {
    case Compare::Gt:
      return ">";
    case Compare::Lt:
      return "<";
    case Compare::Ge:
      return ">=";
    case Compare::Le:
      return "<=";
    case Compare::None:
      break;
  }
  return "";
}

}  // namespace msdt::watch
