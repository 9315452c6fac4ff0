// Thresholds and row verdicts (compare spec §9, §12.6); the rules are documented in verdict.h.
#include "compare/verdict.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "table/format.h"

namespace msdt::compare {
namespace {

constexpr std::array<std::string_view, kVerdictCount> kVerdictNames = {"pass", "warning", "error",
                                                                       "unmatched", "skipped"};

constexpr std::array<std::string_view, kThresholdMetricCount> kMetricNames = {
    "CosineSimilarity",
    "MaxAbsoluteError",
    "AccumulatedRelativeError",
    "RelativeEuclideanDistance",
    "KullbackLeiblerDivergence",
    "MeanAbsoluteError",
    "RootMeanSquareError",
    "MaxRelativeError",
    "MeanRelativeError",
    "Cosine",
    "EucDist",
    "MaxAbsErr",
    "MaxRelativeErr",
    "One Thousandth Err Ratio",
    "Five Thousandths Err Ratio",
    "Max diff",
    "Min diff",
    "Mean diff",
    "L2norm diff",
    "Max relative diff",
    "Min relative diff",
    "Mean relative diff",
    "L2norm relative diff",
};

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// Lower case without blanks, '_' and '-'.
std::string folded(std::string_view text) {
  std::string out;
  for (char c : text)
    if (c != ' ' && c != '\t' && c != '_' && c != '-') out += lower(c);
  return out;
}

bool equal_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i])) return false;
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// A whole decimal number (from_chars' general format; "inf" and "nan" in any case included).
std::optional<double> parse_number(std::string_view text) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty()) return std::nullopt;
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::string number(double v) { return table::format_double(v); }

const Metric* metric_of(const PairMetrics& m, ThresholdMetric which) {
  switch (which) {
    case ThresholdMetric::CosineSimilarity:
      return &m.cosine;
    case ThresholdMetric::MaxAbsoluteError:
      return &m.max_absolute_error;
    case ThresholdMetric::AccumulatedRelativeError:
      return &m.accumulated_relative_error;
    case ThresholdMetric::RelativeEuclideanDistance:
      return &m.relative_euclidean_distance;
    case ThresholdMetric::KullbackLeiblerDivergence:
      return &m.kl_divergence;
    case ThresholdMetric::MeanAbsoluteError:
      return &m.mean_absolute_error;
    case ThresholdMetric::RootMeanSquareError:
      return &m.root_mean_square_error;
    case ThresholdMetric::MaxRelativeError:
      return &m.max_relative_error;
    case ThresholdMetric::MeanRelativeError:
      return &m.mean_relative_error;
    case ThresholdMetric::Cosine:
      return &m.mp_cosine;
    case ThresholdMetric::EucDist:
      return &m.euc_dist;
    case ThresholdMetric::MaxAbsErr:
      return &m.mp_max_abs_err;
    case ThresholdMetric::MaxRelativeErr:
      return &m.mp_max_relative_err;
    case ThresholdMetric::OneThousandthErrRatio:
      return &m.one_thousandth_ratio;
    case ThresholdMetric::FiveThousandthsErrRatio:
      return &m.five_thousandths_ratio;
    case ThresholdMetric::MaxDiff:
      return &m.statistics.max.diff;
    case ThresholdMetric::MinDiff:
      return &m.statistics.min.diff;
    case ThresholdMetric::MeanDiff:
      return &m.statistics.mean.diff;
    case ThresholdMetric::L2normDiff:
      return &m.statistics.l2norm.diff;
    case ThresholdMetric::MaxRelativeDiff:
      return &m.statistics.max.relative;
    case ThresholdMetric::MinRelativeDiff:
      return &m.statistics.min.relative;
    case ThresholdMetric::MeanRelativeDiff:
      return &m.statistics.mean.relative;
    case ThresholdMetric::L2normRelativeDiff:
      return &m.statistics.l2norm.relative;
  }
  return nullptr;
}

bool is_statistic(ThresholdMetric m) { return m >= ThresholdMetric::MaxDiff; }
bool is_absolute_diff(ThresholdMetric m) {
  return m >= ThresholdMetric::MaxDiff && m <= ThresholdMetric::L2normDiff;
}

uint64_t non_finite(const TensorStats& s) { return s.nan + s.pos_inf + s.neg_inf; }

// The running verdict of one row: the worst judged level and what decided it.
struct Tally {
  bool judged = false;
  Verdict level = Verdict::Pass;
  std::string why, skip_why;

  void add(Verdict v, std::string reason) {
    judged = true;
    if (v == Verdict::Pass) return;
    if (level == Verdict::Pass || (level == Verdict::Warning && v == Verdict::Error)) {
      level = v;
      why = std::move(reason);
    }
  }
  void skip(std::string reason) {
    if (skip_why.empty()) skip_why = std::move(reason);
  }
};

}  // namespace

std::string_view verdict_name(Verdict verdict) {
  return kVerdictNames[static_cast<size_t>(verdict)];
}

std::optional<Verdict> parse_verdict(std::string_view text) {
  for (size_t i = 0; i < kVerdictCount; ++i)
    if (equal_ignoring_case(text, kVerdictNames[i])) return static_cast<Verdict>(i);
  return std::nullopt;
}

std::string_view threshold_metric_name(ThresholdMetric metric) {
  return kMetricNames[static_cast<size_t>(metric)];
}

std::optional<ThresholdMetric> find_threshold_metric(std::string_view text) {
  std::string key = folded(text);
  if (key.empty()) return std::nullopt;
  for (size_t i = 0; i < kThresholdMetricCount; ++i)
    if (folded(kMetricNames[i]) == key) return static_cast<ThresholdMetric>(i);
  if (key == "cos") return ThresholdMetric::Cosine;
  if (key == "mae") return ThresholdMetric::MaxAbsErr;
  if (key == "minrelativeerr") return ThresholdMetric::MinRelativeDiff;
  if (key == "meanrelativeerr") return ThresholdMetric::MeanRelativeDiff;
  if (key == "normrelativeerr") return ThresholdMetric::L2normRelativeDiff;
  return std::nullopt;
}

bool higher_is_better(ThresholdMetric metric) {
  return metric == ThresholdMetric::CosineSimilarity || metric == ThresholdMetric::Cosine ||
         metric == ThresholdMetric::OneThousandthErrRatio ||
         metric == ThresholdMetric::FiveThousandthsErrRatio;
}

std::string_view preset_name(Preset preset) {
  switch (preset) {
    case Preset::Default:
      return "default";
    case Preset::Msprobe:
      return "msprobe";
    case Preset::Dtype:
      return "dtype";
  }
  return "default";
}

std::optional<Preset> parse_preset(std::string_view text) {
  for (Preset p : {Preset::Default, Preset::Msprobe, Preset::Dtype})
    if (equal_ignoring_case(text, preset_name(p))) return p;
  return std::nullopt;
}

Thresholds default_thresholds() {
  Thresholds t;
  t.set(ThresholdMetric::Cosine, Bound{0.99, 0.9});
  t.set(ThresholdMetric::MaxAbsErr, Bound{0.001, 1});
  t.joint_error = {ThresholdMetric::Cosine, ThresholdMetric::MaxAbsErr};
  return t;
}

Thresholds msprobe_thresholds() {
  Thresholds t;
  t.inf_nan_check = t.dtype_check = t.shape_check = t.magnitude_warning = true;
  return t;
}

DtypeTolerances dtype_tolerances(DType golden) {
  switch (golden) {
    case DType::Float16:
      return {std::ldexp(1.0, -10), std::ldexp(1.0, -16), 1e-16,
              std::ldexp(1.0, -10), std::ldexp(1.0, -8),  std::ldexp(1.0, -11)};
    case DType::BFloat16:
      return {std::ldexp(1.0, -10), 1e-16, 1e-16, std::ldexp(1.0, -8), std::ldexp(1.0, -7),
              std::ldexp(1.0, -8)};
    default:
      return {std::ldexp(1.0, -20), std::ldexp(1.0, -30), std::ldexp(1.0, -30),
              std::ldexp(1.0, -20), std::ldexp(1.0, -11), std::ldexp(1.0, -14)};
  }
}

Thresholds dtype_thresholds(DType golden) {
  DtypeTolerances tol = dtype_tolerances(golden);
  Thresholds t;
  t.set(ThresholdMetric::Cosine, Bound{0.99, 0.9});
  t.set(ThresholdMetric::MeanRelativeError, Bound{tol.rtol, tol.accumulative_bound});
  return t;
}

Thresholds preset_thresholds(Preset preset, DType golden) {
  switch (preset) {
    case Preset::Default:
      return default_thresholds();
    case Preset::Msprobe:
      return msprobe_thresholds();
    case Preset::Dtype:
      return dtype_thresholds(golden);
  }
  return default_thresholds();
}

Expected<ThresholdSetting> parse_threshold(std::string_view text) {
  const std::string quoted = "threshold '" + std::string(text) + "': ";
  size_t eq = text.find('=');
  if (eq == std::string_view::npos) return Error(quoted + "expected METRIC=WARN,ERROR");
  std::string_view name = trim(text.substr(0, eq)), rest = trim(text.substr(eq + 1));
  auto metric = find_threshold_metric(name);
  if (!metric) {
    if (equal_ignoring_case(folded(name), "standarddeviation") || folded(name) == "5")
      return Error(quoted +
                   "StandardDeviation has no threshold: it describes each side, not their "
                   "difference");
    std::string names;
    for (auto n : kMetricNames) names += (names.empty() ? "" : ", ") + std::string(n);
    return Error(quoted + "unknown metric '" + std::string(name) + "' (" + names + ")");
  }
  const std::string mname(threshold_metric_name(*metric));
  if (equal_ignoring_case(rest, "off")) return ThresholdSetting{*metric, std::nullopt};
  size_t comma = rest.find(',');
  if (comma == std::string_view::npos)
    return Error(quoted + "expected METRIC=WARN,ERROR (two bounds, or 'off')");
  std::string_view wtext = trim(rest.substr(0, comma)), etext = trim(rest.substr(comma + 1));
  auto w = parse_number(wtext), e = parse_number(etext);
  if (!w || std::isnan(*w))
    return Error(quoted + "warning bound '" + std::string(wtext) + "' of " + mname +
                 " is not a number");
  if (!e || std::isnan(*e))
    return Error(quoted + "error bound '" + std::string(etext) + "' of " + mname +
                 " is not a number");
  if (higher_is_better(*metric) && *w < *e)
    return Error(quoted + mname + ": the warning bound " + number(*w) +
                 " is below the error bound " + number(*e) + " (higher is better)");
  if (!higher_is_better(*metric) && *w > *e)
    return Error(quoted + mname + ": the warning bound " + number(*w) +
                 " is above the error bound " + number(*e) + " (lower is better)");
  return ThresholdSetting{*metric, Bound{*w, *e}};
}

void apply(Thresholds& thresholds, const ThresholdSetting& setting) {
  thresholds.set(setting.metric, setting.bound);
}

RowVerdict judge(const PairMetrics& m, const Thresholds& t) {
  Tally tally;
  const uint64_t my_bad = non_finite(m.my), golden_bad = non_finite(m.golden);
  const bool one_sided = (my_bad == 0) != (golden_bad == 0);

  if (t.inf_nan_check && my_bad > 0 && golden_bad == 0)
    tally.add(Verdict::Error, "NaN or Inf on my side only");
  if (t.dtype_check && !m.dtypes_equal) tally.add(Verdict::Error, "dtypes differ");
  if (t.shape_check && !m.shapes_equal) tally.add(Verdict::Error, "shapes differ");

  if (m.pair_reason) {
    std::string name(reason_name(*m.pair_reason));
    switch (*m.pair_reason) {
      case Reason::SizeMismatch:
      case Reason::ShapeMismatch:
      case Reason::NanInfPositionsDiffer:
        tally.add(Verdict::Error, name);
        break;
      case Reason::AllMasked:
        if (m.my.nan != m.golden.nan || m.my.pos_inf != m.golden.pos_inf ||
            m.my.neg_inf != m.golden.neg_inf)
          tally.add(Verdict::Error, name + " (NaN/Inf counts differ)");
        else
          tally.skip(name);
        break;
      default:
        tally.skip(name);
        break;
    }
  }

  // Whether each bounded metric is past its warning bound, for joint_error.
  std::array<bool, kThresholdMetricCount> past_warning{};
  std::array<std::string, kThresholdMetricCount> past_why;  // what put each there
  for (size_t i = 0; i < kThresholdMetricCount; ++i) {
    auto which = static_cast<ThresholdMetric>(i);
    const auto& bound = t.bounds[i];
    if (!bound) continue;
    if (m.pair_reason && !is_statistic(which)) continue;
    const Metric& metric = *metric_of(m, which);
    std::string name(threshold_metric_name(which));
    if (!metric.has_value()) {
      Reason r = metric.reason.value_or(Reason::NonFinite);
      switch (r) {
        case Reason::NonFinite:
          if (one_sided)
            tally.add(Verdict::Error, past_why[i] = name + ": non-finite (NaN/Inf on " +
                                                    (my_bad ? "my" : "the golden") + " side only)");
          else
            tally.add(Verdict::Warning, past_why[i] = name + ": non-finite");
          past_warning[i] = true;
          break;
        case Reason::AllZeroMine:
        case Reason::AllZeroGolden:
        case Reason::SizeMismatch:
        case Reason::ShapeMismatch:
        case Reason::NanInfPositionsDiffer:
          tally.add(Verdict::Error, past_why[i] = name + ": " + std::string(reason_name(r)));
          past_warning[i] = true;
          break;
        default:
          tally.skip(name + ": " + std::string(reason_name(r)));
          break;
      }
      continue;
    }
    double v = *metric.value;
    if (is_absolute_diff(which)) v = std::fabs(v);
    const bool higher = higher_is_better(which);
    auto beyond = [&](double limit) { return higher ? v < limit : v > limit; };
    const char* op = higher ? " < " : " > ";
    if (beyond(bound->error)) {
      tally.add(Verdict::Error, past_why[i] = name + " " + number(v) + op + number(bound->error));
      past_warning[i] = true;
    } else if (beyond(bound->warning)) {
      tally.add(Verdict::Warning,
                past_why[i] = name + " " + number(v) + op + number(bound->warning));
      past_warning[i] = true;
    } else {
      tally.add(Verdict::Pass, {});
    }
  }

  if (!t.joint_error.empty()) {
    bool all = true;
    std::string whys;
    for (ThresholdMetric j : t.joint_error) {
      all = all && past_warning[static_cast<size_t>(j)];
      whys += (whys.empty() ? "" : "; ") + past_why[static_cast<size_t>(j)];
    }
    if (all) tally.add(Verdict::Error, whys + " (warnings together)");
  }

  if (t.magnitude_warning) {
    const StatisticsDiff& s = m.statistics;
    bool any_stat = s.max.diff.has_value() || s.min.diff.has_value() || s.mean.diff.has_value() ||
                    s.l2norm.diff.has_value();
    if (s.any_large())
      tally.add(Verdict::Warning, "a statistic differs by more than half its magnitude");
    else if (any_stat)
      tally.add(Verdict::Pass, {});
  }

  if (!tally.judged)
    return RowVerdict::skipped(tally.skip_why.empty() ? "no threshold applies" : tally.skip_why);
  return RowVerdict{tally.level, tally.level == Verdict::Pass ? std::string() : tally.why};
}

Expected<std::vector<Verdict>> parse_verdict_list(std::string_view text) {
  std::vector<Verdict> out;
  for (size_t start = 0; start <= text.size();) {
    size_t end = std::min(text.find(',', start), text.size());
    std::string_view item = trim(text.substr(start, end - start));
    auto v = parse_verdict(item);
    if (!v)
      return Error(
          fmt::format("unknown verdict '{}' (pass, warning, error, unmatched, skipped)", item));
    if (std::find(out.begin(), out.end(), *v) == out.end()) out.push_back(*v);
    start = end + 1;
  }
  return out;
}

Status parse_fail_on(std::string_view text, FailOn& fail_on) {
  size_t start = 0;
  while (true) {
    size_t comma = text.find(',', start);
    std::string_view item =
        trim(text.substr(start, comma == std::string_view::npos ? text.npos : comma - start));
    if (equal_ignoring_case(item, "warning"))
      fail_on.warning = true;
    else if (equal_ignoring_case(item, "unmatched"))
      fail_on.unmatched = true;
    else if (!equal_ignoring_case(item, "error"))
      return Error("unknown --fail-on value '" + std::string(item) +
                   "' (warning, error, unmatched)");
    if (comma == std::string_view::npos) return std::nullopt;
    start = comma + 1;
  }
}

bool fails_run(Verdict verdict, const FailOn& fail_on) {
  switch (verdict) {
    case Verdict::Error:
      return true;
    case Verdict::Warning:
      return fail_on.warning;
    case Verdict::Unmatched:
      return fail_on.unmatched;
    case Verdict::Pass:
    case Verdict::Skipped:
      return false;
  }
  return false;
}

std::string_view accuracy_name(Accuracy accuracy) {
  switch (accuracy) {
    case Accuracy::Yes:
      return "Yes";
    case Accuracy::No:
      return "No";
    case Accuracy::Unmatched:
      return "Unmatched";
    case Accuracy::None:
      return "None";
  }
  return "None";
}

Accuracy accuracy_reached(std::string_view cos, std::string_view mae) {
  if (cos == "shape unmatched") return Accuracy::Unmatched;   // rule 1
  if (cos == "None" || mae == "None") return Accuracy::None;  // rule 2
  if (cos == "N/A" || mae == "N/A") return Accuracy::No;      // rule 3
  auto c = parse_number(trim(cos)), a = parse_number(trim(mae));
  if (!c || !a) return Accuracy::None;               // float() raised ValueError
  if (*c < 0.99 && *a > 0.001) return Accuracy::No;  // rule 4
  if (*c < 0.9 || *a > 1) return Accuracy::No;       // rule 5
  return Accuracy::Yes;                              // rule 6
}

std::string msprobe_cell(const Metric& metric, std::optional<Reason> pair_reason) {
  std::optional<Reason> r = pair_reason ? pair_reason : metric.reason;
  if (!r && metric.value) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", *metric.value);
    return buf;
  }
  switch (r.value_or(Reason::NonFinite)) {
    case Reason::SizeMismatch:
    case Reason::ShapeMismatch:
      return "shape unmatched";
    case Reason::NanInfPositionsDiffer:
    case Reason::NonFinite:
    case Reason::AllZeroMine:
    case Reason::AllZeroGolden:
      return "N/A";
    default:
      return "unsupported";
  }
}

Accuracy accuracy_reached(const PairMetrics& m) {
  return accuracy_reached(msprobe_cell(m.mp_cosine, m.pair_reason),
                          msprobe_cell(m.mp_max_abs_err, m.pair_reason));
}

}  // namespace msdt::compare
