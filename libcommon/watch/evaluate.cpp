#include "watch/evaluate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace msdt::watch {
namespace {

enum class Stat : uint8_t { None, Max, Min, Mean, Sd, MaxMin, AbsMean, ZeroPct, RangePct, Ratio };

// StatLookup (§2.4): `param` takes its statistic from the condition, other names from the text
// before their last '_'; range bounds, rtol, atol, equal_nan and epsilon decide nothing.
Stat stat_of(Backend b, std::string_view name) {
  if (name == "param") {
    switch (b) {
      case Backend::MaxGt:
      case Backend::MaxLt:
        return Stat::Max;
      case Backend::MinGt:
      case Backend::MinLt:
        return Stat::Min;
      case Backend::MeanGt:
      case Backend::MeanLt:
        return Stat::Mean;
      case Backend::SdGt:
      case Backend::SdLt:
        return Stat::Sd;
      case Backend::MaxMinGt:
      case Backend::MaxMinLt:
        return Stat::MaxMin;
      default:
        return Stat::None;
    }
  }
  auto underscore = name.rfind('_');
  if (underscore == std::string_view::npos) return Stat::None;
  std::string_view prefix = name.substr(0, underscore);
  if (prefix == "max") return Stat::Max;
  if (prefix == "min") return Stat::Min;
  if (prefix == "mean") return Stat::Mean;
  if (prefix == "sd") return Stat::Sd;
  if (prefix == "max_min") return Stat::MaxMin;
  if (prefix == "abs_mean") return Stat::AbsMean;
  if (prefix == "zero_percentage") return Stat::ZeroPct;
  if (prefix == "range_percentage") return Stat::RangePct;
  if (prefix == "abs_mean_update_ratio") return Stat::Ratio;
  return Stat::None;
}

std::string_view stat_label(Stat s) {
  switch (s) {
    case Stat::Max:
      return "max";
    case Stat::Min:
      return "min";
    case Stat::Mean:
      return "mean";
    case Stat::Sd:
      return "standard deviation";
    case Stat::MaxMin:
      return "max - min";
    case Stat::AbsMean:
      return "abs_mean";
    case Stat::ZeroPct:
      return "zero count";
    case Stat::RangePct:
      return "elements within a range";
    case Stat::Ratio:
      return "previous values";
    case Stat::None:
      break;
  }
  return "";
}

bool compare(Compare op, double actual, double value) {
  switch (op) {
    case Compare::Gt:
      return actual > value;
    case Compare::Lt:
      return actual < value;
    case Compare::Ge:
      return actual >= value;
    case Compare::Le:
      return actual <= value;
    case Compare::None:
      break;
  }
  return false;
}

template <class T>
size_t index_of(const std::vector<T>& list, const T& item) {
  return static_cast<size_t>(std::find(list.begin(), list.end(), item) - list.begin());
}

std::pair<double, double> range_of(const Watchpoint& wp) {
  // By position (§2.1): parameter 0 is the start, 1 the end; disabled means unbounded.
  const ParamValue &start = wp.params[0], &end = wp.params[1];
  return {start.disabled ? -std::numeric_limits<double>::infinity() : start.value,
          end.disabled ? std::numeric_limits<double>::infinity() : end.value};
}

std::pair<double, double> tolerance_of(const Watchpoint& wp) {
  // rtol first, atol second (§2.1, 2022 revision); upstream defaults when disabled.
  const ParamValue &rtol = wp.params[0], &atol = wp.params[1];
  return {rtol.disabled ? 1e-5 : rtol.value, atol.disabled ? 1e-8 : atol.value};
}

bool wants_range(const Watchpoint& wp) {
  return wp.condition->backend == Backend::Range &&
         (!wp.params[2].disabled || !wp.params[3].disabled);
}

}  // namespace

std::vector<std::string_view> error_names(uint32_t code) {
  static constexpr std::pair<uint32_t, std::string_view> kNames[] = {
      {kErrorNan, "nan"},
      {kErrorInf, "inf"},
      {kErrorNoPrevious, "no_prev_tensor"},
      {kErrorOutOfMemory, "out_of_mem"},
      {kErrorNoHistory, "no_history"},
      {kErrorNoValue, "no_value"},
      {kErrorPreviousSize, "prev_size_differs"}};
  std::vector<std::string_view> out;
  for (auto [bit, name] : kNames)
    if (code & bit) out.push_back(name);
  return out;
}

void Needs::add(const Watchpoint& wp) {
  Backend b = wp.condition->backend;
  if (!is_count_condition(b)) statistics = true;
  if (wants_range(wp) && index_of(ranges, range_of(wp)) == ranges.size())
    ranges.push_back(range_of(wp));
  if (needs_previous(b)) {
    previous = true;
    if (b == Backend::NotChanged && index_of(tolerances, tolerance_of(wp)) == tolerances.size())
      tolerances.push_back(tolerance_of(wp));
  }
}

size_t Needs::range_index(const Watchpoint& wp) const { return index_of(ranges, range_of(wp)); }
size_t Needs::tolerance_index(const Watchpoint& wp) const {
  return index_of(tolerances, tolerance_of(wp));
}

void facts_from_stats(const TensorStats& s, TensorFacts& f) {
  f.count = s.count;
  f.nan = s.nan;
  f.inf = s.pos_inf + s.neg_inf;
  f.zero = s.zero;
  f.min = s.min;
  f.max = s.max;
  f.mean = s.mean;
  f.abs_mean = s.abs_mean;
  if (s.std) {
    // The statistics give the population deviation; upstream reports the sample one (n - 1).
    double n = static_cast<double>(s.count);
    // sqrt(m2 / (n - 1)) with m2 = n * std^2: one rounding less than std * sqrt(n / (n - 1)).
    f.sd = s.count > 1 ? std::sqrt(*s.std * *s.std * n / (n - 1)) : 0.0;
  }
}

Verdict evaluate(const Watchpoint& wp, const Needs& needs, const TensorFacts& facts) {
  const Backend b = wp.condition->backend;
  Verdict v;
  for (const ParamValue& p : wp.params) {
    ParamOutcome o;
    o.spec = p.spec;
    o.value = p.value;
    o.disabled = p.disabled;
    v.params.push_back(o);
  }

  if (!facts.has_value) {
    v.error_code = kErrorNoValue;
    v.reason = facts.no_value_reason;
    return v;
  }
  if (b == Backend::IsOverflow) {
    v.hit = facts.overflow;
    return v;
  }
  if (!facts.nan || !facts.inf) {
    v.error_code = kErrorNoValue;
    v.reason = fmt::format("{} has no NaN and Inf counts", facts.source);
    return v;
  }
  if (*facts.nan > 0) v.error_code |= kErrorNan;
  if (*facts.inf > 0) v.error_code |= kErrorInf;
  switch (b) {
    case Backend::HasNan:
      v.error_code = 0;
      v.hit = *facts.nan > 0;
      return v;
    case Backend::HasInf:
      v.error_code = 0;
      v.hit = *facts.inf > 0;
      return v;
    case Backend::GeneralOverflow:
      v.error_code = 0;
      v.hit = *facts.nan + *facts.inf > 0;
      return v;
    default:
      break;
  }
  if (needs_previous(b)) {
    switch (facts.previous) {
      case Previous::NoHistory:
        v.error_code |= kErrorNoHistory;
        v.reason = facts.previous_reason;
        break;
      case Previous::NoIteration:
      case Previous::NotFound:
        v.error_code |= kErrorNoPrevious;
        v.reason = facts.previous_reason;
        break;
      case Previous::SizeDiffers:
        v.error_code |= kErrorPreviousSize;
        v.reason = facts.previous_reason;
        break;
      case Previous::NotNeeded:  // statistic.csv: no elements to compare
        v.error_code |= kErrorNoValue;
        v.reason = fmt::format("{} holds no previous values to compare", facts.source);
        break;
      case Previous::Present:
        break;
    }
    if (v.error_code == 0 && b == Backend::NotChanged && facts.change)
      v.hit = facts.change->all_close[needs.tolerance_index(wp)];
  }
  if (v.error_code != 0) return v;

  std::vector<std::string_view> undecided;
  const double count = static_cast<double>(facts.count);
  for (ParamOutcome& p : v.params) {
    if (p.disabled) continue;
    Stat stat = stat_of(b, p.spec->name);
    std::optional<double> actual;
    switch (stat) {
      case Stat::None:
        continue;
      case Stat::Max:
        actual = facts.max;
        break;
      case Stat::Min:
        actual = facts.min;
        break;
      case Stat::Mean:
        actual = facts.mean;
        break;
      case Stat::Sd:
        actual = facts.sd;
        break;
      case Stat::AbsMean:
        actual = facts.abs_mean;
        break;
      case Stat::MaxMin:
        if (facts.max && facts.min) actual = *facts.max - *facts.min;
        break;
      case Stat::ZeroPct:
        if (facts.zero) actual = facts.count ? 100.0 * static_cast<double>(*facts.zero) / count : 0;
        break;
      case Stat::RangePct:
        if (facts.source == "tensor" && needs.range_index(wp) < facts.range_counts.size())
          actual =
              facts.count
                  ? 100.0 * static_cast<double>(facts.range_counts[needs.range_index(wp)]) / count
                  : 0;
        break;
      case Stat::Ratio:
        if (facts.change) {
          double epsilon = wp.param("epsilon").value_or(1e-9);
          actual = facts.change->mean_abs_diff / (facts.change->mean_abs_prev + epsilon);
        }
        break;
    }
    if (!actual) {
      undecided.push_back(stat_label(stat));
      continue;
    }
    if (std::isnan(*actual)) continue;  // Evaluate() leaves the parameter alone (§2.3)
    p.actual = *actual;
    p.hit = compare(compare_of(b, p.spec->name), *actual, p.value);
    v.hit = v.hit || p.hit;
  }
  if (!v.hit && !undecided.empty()) {
    v.error_code = kErrorNoValue;
    std::string what;
    for (std::string_view u : undecided) what += (what.empty() ? "" : ", ") + std::string(u);
    v.reason = fmt::format("{} has no {}", facts.source, what);
  }
  return v;
}

}  // namespace msdt::watch
