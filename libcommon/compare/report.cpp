#include "compare/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ostream>

#include "dump/list.h"
#include "plot/plot.h"
#include "table/format.h"

namespace msdt::compare {

namespace {

using table::Cell;

const std::vector<std::string> kFields = {
    "row", "rank", "net", "graph", "iteration", "op_type", "op", "golden_op", "io", "slot",
    "occurrence", "my_file", "golden_file", "my_dtype", "golden_dtype", "my_shape", "golden_shape",
    "my_format", "golden_format", "source", "compared", "masked", "my_count", "my_nan",
    "my_pos_inf", "my_neg_inf", "my_zero", "golden_count", "golden_nan", "golden_pos_inf",
    "golden_neg_inf", "golden_zero",
    // msaccucmp (§5.1), StandardDeviation as four columns
    "cosine_similarity", "max_absolute_error", "accumulated_relative_error",
    "relative_euclidean_distance", "kl_divergence", "my_mean", "my_std", "golden_mean",
    "golden_std", "mean_absolute_error", "root_mean_square_error", "max_relative_error",
    "mean_relative_error",
    // msprobe (§6.4)
    "cosine", "euc_dist", "max_abs_err", "max_relative_err", "one_thousandth_err_ratio",
    "five_thousandths_err_ratio",
    // statistics (§6.5)
    "max_diff", "min_diff", "mean_diff", "l2norm_diff", "max_relative_diff", "min_relative_diff",
    "mean_relative_diff", "l2norm_relative_diff",
    //
    "verdict", "why", "reasons"};

Cell text_or_absent(const std::string& s) { return s.empty() ? Cell() : Cell(s); }
template <class T>
Cell opt(const std::optional<T>& v) {
  return v ? Cell(*v) : Cell();
}
Cell metric(const Metric& m) { return m.value ? Cell(*m.value) : Cell(); }
Cell shape_cell(const ComparedSide& s, bool present) {
  if (!present || !s.shape_known) return {};
  return table::Composite{dump::format_shape(s.shape), nlohmann::ordered_json(s.shape)};
}

const TensorRef* any_ref(const ComparedRow& row) {
  return row.pair->mine ? &*row.pair->mine : row.pair->golden ? &*row.pair->golden : nullptr;
}

// The reasons of a row's metrics that have no value, once each, in Reason order.
std::vector<Reason> row_reasons(const ComparedRow& row) {
  std::vector<Reason> out;
  if (!row.metrics) return out;
  const PairMetrics& m = *row.metrics;
  if (m.pair_reason) return {*m.pair_reason};
  std::array<bool, kReasonCount> seen{};
  auto add = [&](const Metric& x) {
    if (x.reason && *x.reason != Reason::NotSelected) seen[static_cast<size_t>(*x.reason)] = true;
  };
  for (size_t a = 0; a < kAlgorithmCount; ++a) add(m.get(static_cast<Algorithm>(a)));
  for (size_t a = 0; a < kMsprobeMetricCount; ++a) add(m.get(static_cast<MsprobeMetric>(a)));
  for (size_t r = 0; r < kReasonCount; ++r)
    if (seen[r]) out.push_back(static_cast<Reason>(r));
  return out;
}

std::string reasons_text(const ComparedRow& row) {
  std::string out;
  for (Reason r : row_reasons(row)) out += (out.empty() ? "" : ", ") + std::string(reason_name(r));
  return out;
}

int severity(Verdict v) {
  switch (v) {
    case Verdict::Error:
      return 3;
    case Verdict::Warning:
      return 2;
    case Verdict::Unmatched:
      return 1;
    default:
      return 0;
  }
}

bool worse(const WorstRow& a, const WorstRow& b) {
  if (severity(a.verdict) != severity(b.verdict)) return severity(a.verdict) > severity(b.verdict);
  double ca = a.cosine.value_or(2), cb = b.cosine.value_or(2);
  if (ca != cb) return ca < cb;
  double ea = a.max_abs_err.value_or(-1), eb = b.max_abs_err.value_or(-1);
  if (ea != eb) return ea > eb;
  return a.row < b.row;
}

std::string describe_group(const Pairing& pairing, size_t group) {
  return pairing.groups.at(group).key.describe();
}

}  // namespace

const table::Schema& row_schema() {
  static const table::Schema schema(kFields);
  return schema;
}

const table::Schema& row_text_schema() {
  static const table::Schema schema(kFields, {"row", "op", "io", "slot", "my_shape", "cosine",
                                              "max_abs_err", "max_relative_err", "verdict", "why"});
  return schema;
}

std::optional<dump::Io> row_io(const ComparedRow& row) {
  const TensorRef* ref = any_ref(row);
  return ref ? ref->io : std::nullopt;
}

std::string row_label(const ComparedRow& row) {
  const TensorRef* ref = any_ref(row);
  if (!ref) return "?";
  std::string out = ref->op_name.empty() ? ref->key_name : ref->op_name;
  if (ref->io) out += fmt::format(" {}", dump::io_name(*ref->io));
  if (ref->slot) out += fmt::format(" {}", *ref->slot);
  if (ref->occurrence > 0) out += fmt::format(" #{}", ref->occurrence + 1);
  return out;
}

OpKey op_key(const ComparedRow& row) {
  const TensorRef* ref = any_ref(row);
  return OpKey{row.pair->group, ref ? ref->key_name : std::string(),
               ref ? ref->occurrence : uint64_t{0}};
}

table::Record row_record(const Pairing& pairing, const ComparedRow& row) {
  const DirectoryKey& key = pairing.groups.at(row.pair->group).key;
  const TensorRef* ref = any_ref(row);
  const bool has_mine = row.pair->mine.has_value(), has_golden = row.pair->golden.has_value();
  const PairMetrics* m = row.metrics ? &*row.metrics : nullptr;
  auto dtype = [](const ComparedSide& s, bool present) {
    return present && s.dtype ? Cell(std::string(dtype_name(*s.dtype))) : Cell();
  };
  auto count = [&](uint64_t TensorStats::*field, bool my) {
    return m ? Cell((my ? m->my : m->golden).*field) : Cell();
  };
  static const PairMetrics kNone = [] {
    PairMetrics none;
    return none;
  }();
  const PairMetrics& x = m ? *m : kNone;
  auto mc = [&](const Metric& v) { return m ? metric(v) : Cell(); };
  table::Record r{
      Cell(static_cast<uint64_t>(row.index + 1)),
      key.rank ? Cell(static_cast<uint64_t>(*key.rank)) : Cell(),
      key.net ? Cell(*key.net) : Cell(),
      key.graph ? Cell(static_cast<uint64_t>(*key.graph)) : Cell(),
      opt(key.iteration),
      ref ? text_or_absent(ref->op_type) : Cell(),
      ref ? Cell(ref->op_name) : Cell(),  // my name; the golden one for a golden-only row
      has_golden ? Cell(row.pair->golden->op_name) : Cell(),
      ref && ref->io ? Cell(std::string(dump::io_name(*ref->io))) : Cell(),
      ref && ref->slot ? Cell(static_cast<uint64_t>(*ref->slot)) : Cell(),
      ref ? Cell(ref->occurrence) : Cell(),
      text_or_absent(row.mine.file),
      text_or_absent(row.golden.file),
      dtype(row.mine, has_mine),
      dtype(row.golden, has_golden),
      shape_cell(row.mine, has_mine),
      shape_cell(row.golden, has_golden),
      text_or_absent(row.mine.format),
      text_or_absent(row.golden.format),
      m ? Cell(std::string(m->pair_reason == Reason::StatisticsOnly ? "statistics" : "tensors"))
        : Cell(),
      m && m->pair_reason != Reason::StatisticsOnly ? Cell(m->compared) : Cell(),
      m && m->pair_reason != Reason::StatisticsOnly ? Cell(m->masked) : Cell(),
      count(&TensorStats::count, true),
      count(&TensorStats::nan, true),
      count(&TensorStats::pos_inf, true),
      count(&TensorStats::neg_inf, true),
      count(&TensorStats::zero, true),
      count(&TensorStats::count, false),
      count(&TensorStats::nan, false),
      count(&TensorStats::pos_inf, false),
      count(&TensorStats::neg_inf, false),
      count(&TensorStats::zero, false),
      mc(x.cosine),
      mc(x.max_absolute_error),
      mc(x.accumulated_relative_error),
      mc(x.relative_euclidean_distance),
      mc(x.kl_divergence),
      mc(x.mean_my),
      mc(x.std_my),
      mc(x.mean_golden),
      mc(x.std_golden),
      mc(x.mean_absolute_error),
      mc(x.root_mean_square_error),
      mc(x.max_relative_error),
      mc(x.mean_relative_error),
      mc(x.mp_cosine),
      mc(x.euc_dist),
      mc(x.mp_max_abs_err),
      mc(x.mp_max_relative_err),
      mc(x.one_thousandth_ratio),
      mc(x.five_thousandths_ratio),
      mc(x.statistics.max.diff),
      mc(x.statistics.min.diff),
      mc(x.statistics.mean.diff),
      mc(x.statistics.l2norm.diff),
      mc(x.statistics.max.relative),
      mc(x.statistics.min.relative),
      mc(x.statistics.mean.relative),
      mc(x.statistics.l2norm.relative),
      Cell(std::string(verdict_name(row.verdict.verdict))),
      text_or_absent(row.verdict.why),
      text_or_absent(reasons_text(row)),
  };
  return r;
}

void RowTable::row(const ComparedRow& row) {
  if (!only_.empty() && !only_.contains(row.verdict.verdict)) return;
  sink_.row(row_record(pairing_, row));
}

std::string json_header(const RunDescription& run) {
  nlohmann::ordered_json h;
  h["tool"] = "dump-compare";
  h["mine"] = run.mine;
  h["golden"] = run.golden;
  const CompareOptions& o = run.options;
  h["nan_policy"] = std::string(nan_policy_name(o.metrics.nan));
  h["cast_float32"] = o.metrics.cast_float32;
  h["max_elements"] = o.metrics.max_elements;
  nlohmann::ordered_json algorithms = nlohmann::ordered_json::array();
  for (Algorithm a : o.metrics.algorithms.order()) algorithms.push_back(algorithm_name(a));
  h["algorithms"] = algorithms;
  h["preset"] = std::string(preset_name(o.preset));
  Thresholds t = row_thresholds(o, DType::Float32, false);
  nlohmann::ordered_json bounds = nlohmann::ordered_json::object();
  for (size_t i = 0; i < kThresholdMetricCount; ++i) {
    if (!t.bounds[i]) continue;
    bounds[std::string(threshold_metric_name(static_cast<ThresholdMetric>(i)))] = {
        {"warning", t.bounds[i]->warning}, {"error", t.bounds[i]->error}};
  }
  h["thresholds"] = bounds;
  nlohmann::ordered_json joint = nlohmann::ordered_json::array();
  for (ThresholdMetric j : t.joint_error) joint.push_back(threshold_metric_name(j));
  h["joint_error"] = joint;
  nlohmann::ordered_json settings = nlohmann::ordered_json::array();
  for (const ThresholdSetting& st : o.thresholds) {
    nlohmann::ordered_json one;
    one["metric"] = std::string(threshold_metric_name(st.metric));
    if (st.bound) {
      one["warning"] = st.bound->warning;
      one["error"] = st.bound->error;
    } else {
      one["off"] = true;
    }
    settings.push_back(one);
  }
  h["threshold_settings"] = settings;
  h["fail_on"] = run.fail_on;
  const PairCounts& c = run.counts;
  h["pairs"] = c.pairs;
  h["only_mine"] = c.only_mine;
  h["only_golden"] = c.only_golden;
  h["superseded_mine"] = c.superseded_mine;
  h["superseded_golden"] = c.superseded_golden;
  h["directories_only_mine"] = c.directories_only_mine;
  h["directories_only_golden"] = c.directories_only_golden;
  h["rows"] = run.rows;
  nlohmann::ordered_json out;
  out["header"] = h;
  return table::to_json_text(out, -1);
}

// --- msaccucmp ----------------------------------------------------------------------------------

MsaccucmpCsv::MsaccucmpCsv(const Pairing& pairing, std::ostream& out, const Algorithms& algorithms,
                           bool overflow_column)
    : out_(out) {
  columns_.algorithms = algorithms;
  columns_.overflow = overflow_column;
  columns_.my_address = columns_.golden_address = false;
  for (const PairRow& r : pairing.rows) {
    if (r.mine && r.mine->source == TensorRef::Source::ContainerSlot) columns_.my_address = true;
    if (r.golden && r.golden->source == TensorRef::Source::ContainerSlot)
      columns_.golden_address = true;
  }
  out_ << msaccucmp_header(columns_) << '\n';
}

void MsaccucmpCsv::row(const ComparedRow& row) {
  MsaccucmpRowInfo info;
  info.index = row.index + 1;
  const TensorRef* ref = any_ref(row);
  if (ref) info.op_type = ref->op_type;
  auto fill = [](const std::optional<TensorRef>& r, const ComparedSide& s, std::string& name,
                 std::string& dtype, std::string& address, std::string& file) {
    if (!r) return;
    name = r->op_name.empty() ? r->key_name : r->op_name;
    if (name.empty()) name = s.file;  // a file no name grammar knows: its path names it
    if (s.dtype) dtype = dtype_name(*s.dtype);
    if (s.address) address = fmt::format("{}", *s.address);
    file = s.file;
  };
  fill(row.pair->mine, row.mine, info.my_name, info.my_dtype, info.my_address, info.my_file);
  fill(row.pair->golden, row.golden, info.golden_name, info.golden_dtype, info.golden_address,
       info.golden_file);
  if (ref)
    info.tensor_index =
        fmt::format("{}:{}:{}", info.my_name.empty() ? info.golden_name : info.my_name,
                    ref->io ? dump::io_name(*ref->io) : "output", ref->slot.value_or(0));
  const ComparedSide& shown = row.pair->mine ? row.mine : row.golden;
  if (shown.shape_known) info.shape = shown.shape;
  const PairMetrics* m = row.metrics ? &*row.metrics : nullptr;
  if (m && row.mine.dtype) info.overflow = overflow_of(*row.mine.dtype, m->my);
  out_ << msaccucmp_row(info, m, columns_) << '\n';
}

// --- msprobe ------------------------------------------------------------------------------------

MsprobeCsv::MsprobeCsv(const Pairing& pairing, std::ostream& out)
    : out_(out), mode_(MsprobeMode::Npy) {
  for (const PairRow& r : pairing.rows)
    for (const auto* ref : {&r.mine, &r.golden})
      if (*ref && (*ref)->source == TensorRef::Source::StatisticRow)
        mode_ = MsprobeMode::Statistics;
  out_ << msprobe_graph_header(mode_) << '\n';
}

void MsprobeCsv::row(const ComparedRow& row) {
  MsprobeRowInfo info;
  auto fill = [&](const std::optional<TensorRef>& r, const ComparedSide& s, std::string& name,
                  std::string& dtype, std::optional<std::vector<uint64_t>>& shape,
                  std::string& csv) {
    if (!r) return;
    if (mode_ == MsprobeMode::Statistics) {
      name = fmt::format("{}.{}.{}.{}", r->op_name, r->task_id.value_or(0),
                         r->io ? dump::io_name(*r->io) : "output", r->slot.value_or(0));
      csv = s.file;
    } else {
      name = s.file;
    }
    if (s.dtype) dtype = dtype_name(*s.dtype);
    if (s.shape_known) shape = s.shape;
  };
  fill(row.pair->mine, row.mine, info.npu_name, info.npu_dtype, info.npu_shape, info.npu_csv_file);
  fill(row.pair->golden, row.golden, info.bench_name, info.bench_dtype, info.bench_shape,
       info.bench_csv_file);
  const PairMetrics* m = row.metrics ? &*row.metrics : nullptr;
  // msprobe compares shapes, not only element counts (§6.1): other shapes are "shape unmatched"
  // in its cells, whatever our verdict (which compares flattened tensors) says.
  std::optional<PairMetrics> unmatched_shapes;
  if (m && !m->shapes_equal && !m->pair_reason && mode_ == MsprobeMode::Npy) {
    unmatched_shapes = *m;
    unmatched_shapes->set_pair_reason(Reason::ShapeMismatch);
    m = &*unmatched_shapes;
  }
  std::string accuracy;
  if (mode_ == MsprobeMode::Statistics)
    accuracy = m && !m->statistics.max.large ? "Yes" : "No";  // §9.2
  else
    accuracy = accuracy_name(m ? accuracy_reached(*m) : accuracy_reached("", ""));
  out_ << msprobe_graph_row(info, m, accuracy, mode_) << '\n';
}

// --- summary ------------------------------------------------------------------------------------

Summary::Summary(const Pairing& pairing, const PairCounts& counts, size_t top)
    : pairing_(pairing), counts_(counts), top_(top) {}

void Summary::row(const ComparedRow& row) {
  const uint64_t number = row.index + 1;
  const Verdict v = row.verdict.verdict;
  ++verdicts_[static_cast<size_t>(v)];
  for (Reason r : row_reasons(row)) ++reasons_[std::string(reason_name(r))];
  if (row.problem) ++reasons_["unreadable"];

  const PairMetrics* m = row.metrics ? &*row.metrics : nullptr;
  if (m) ++compared_;
  std::optional<double> cosine = m ? m->mp_cosine.value : std::nullopt;
  std::string label = row_label(row);

  if (v == Verdict::Error || v == Verdict::Warning || v == Verdict::Unmatched) {
    worst_.push_back(WorstRow{number, label, v, row.verdict.why, cosine,
                              m ? m->mp_max_abs_err.value : std::nullopt});
    if (worst_.size() > 4 * top_ + 16) {
      std::sort(worst_.begin(), worst_.end(), worse);
      worst_.resize(top_);
    }
  }

  // First divergence: the op's inputs come before its outputs (pairing.h).
  OpKey key = op_key(row);
  if (!op_ || op_->key != key) op_ = OpState{key, 0, true};
  std::optional<dump::Io> io = row_io(row);
  if (io == dump::Io::Input) {
    ++op_->inputs;
    if (v != Verdict::Pass && v != Verdict::Warning) op_->inputs_pass = false;
  } else if (io == dump::Io::Output) {
    if (m && m->pair_reason != Reason::StatisticsOnly) {
      ++outputs_;
      plot_.push_back(PlotRow{outputs_, cosine, m->mp_max_relative_err.value});
    }
    if (v == Verdict::Error && op_->inputs_pass && !diverged_groups_.contains(row.pair->group)) {
      diverged_groups_.insert(row.pair->group);
      divergences_.push_back(Divergence{
          row.pair->group, number, label, row.verdict.why, op_->inputs, cosine,
          m && m->pair_reason != Reason::StatisticsOnly ? std::optional<uint64_t>(outputs_)
                                                        : std::nullopt});
    }
  }

  // The advisor's detections, in row order.
  if (m && row.pair->mine && !overflow_) {
    bool non_finite = m->my.nan + m->my.pos_inf + m->my.neg_inf > 0;
    bool fp16 = row.mine.dtype == DType::Float16;
    bool over = row.mine.dtype && overflow_of(*row.mine.dtype, m->my) == Overflow::Yes;
    if (over || non_finite)
      overflow_ = Advice{fp16 ? "FP16 Overflow" : "Overflow", number, label,
                         fp16 ? "Float16 data overflow occurs. Rectify the fault and perform "
                                "comparison again."
                              : fmt::format("Inf or NaN first appears in my {} data here. Rectify "
                                            "the fault and perform comparison again.",
                                            row.mine.dtype ? dtype_name(*row.mine.dtype) : "")};
  }
  if (cosine) {
    const TensorRef* ref = any_ref(row);
    if (!input_inconsistent_ && *cosine < 0.99 && ref && ref->op_type == "Data")
      input_inconsistent_ = Advice{"Input Inconsistent", number, label,
                                   "The input data of my dump is inconsistent with that of the "
                                   "golden dump. Use the same input data in both runs."};
    if (*cosine < 0.99 && !first_low_cosine_)
      first_low_cosine_ = WorstRow{number, label, v, row.verdict.why, cosine, std::nullopt};
    last_cosine_ = cosine;
  }
}

std::optional<std::string> Summary::nothing_compared() const {
  if (compared_ != 0) return std::nullopt;
  uint64_t rows = 0;
  for (uint64_t n : verdicts_) rows += n;
  const PairCounts& c = counts_;
  if (rows == 0)
    return std::string("neither dump holds a tensor that was read (see the errors above)");
  if (c.pairs == 0)
    return fmt::format(
        "no tensor is in both dumps ({} only in mine, {} only in the golden dump): check the "
        "paths, or pair names with --rename or --exact-names",
        c.only_mine, c.only_golden);
  std::string reasons;
  for (const auto& [name, n] : reasons_)
    reasons += fmt::format("{}{} {}", reasons.empty() ? "" : ", ", name, n);
  return fmt::format("none of the {} pair{} could be measured ({})", c.pairs,
                     c.pairs == 1 ? "" : "s", reasons.empty() ? "no reason recorded" : reasons);
}

Advice Summary::advice() const {
  if (auto why = nothing_compared())
    return Advice{"Nothing Compared", std::nullopt, "",
                  "No tensor pair was compared, so nothing is known about accuracy: " + *why + "."};
  if (overflow_) return *overflow_;
  if (input_inconsistent_) return *input_inconsistent_;
  if (!first_low_cosine_)
    return Advice{"Global Consistency", std::nullopt, "",
                  "All data meets the accuracy requirements (cosine similarity of at least 0.99)."};
  Advice a{"Global Consistency", first_low_cosine_->row, first_low_cosine_->label, ""};
  if (last_cosine_ && *last_cosine_ < 0.99)
    a.advice =
        "The final output does not meet the accuracy requirements (cosine below 0.99): start from "
        "the first operator below the threshold; the loss may come from a precision change "
        "(quantisation, float16) there.";
  else
    a.advice =
        "Some tensors are below cosine 0.99 but the final output meets the accuracy "
        "requirements: the deviation is probably acceptable.";
  return a;
}

namespace {
std::string opt_number(const std::optional<double>& v) {
  return v ? table::format_double(*v) : std::string("-");
}
}  // namespace

void Summary::write_text(std::ostream& out) const {
  const PairCounts& c = counts_;
  uint64_t rows = 0;
  for (uint64_t n : verdicts_) rows += n;
  out << fmt::format("rows: {} (pairs {}, only mine {}, only golden {})\n", rows, c.pairs,
                     c.only_mine, c.only_golden);
  std::string counts;
  for (size_t i = 0; i < kVerdictCount; ++i)
    counts +=
        fmt::format("{}{} {}", i ? ", " : "", verdict_name(static_cast<Verdict>(i)), verdicts_[i]);
  out << "verdicts: " << counts << '\n';
  if (auto why = nothing_compared()) out << "nothing compared: " << *why << '\n';
  if (!reasons_.empty()) {
    std::string text;
    for (const auto& [name, n] : reasons_)
      text += fmt::format("{}{} {}", text.empty() ? "" : ", ", name, n);
    out << "reasons: " << text << '\n';
  }
  std::vector<std::string> one_sided;
  for (const DirectoryGroup& g : pairing_.groups)
    if (g.mine.empty() != g.golden.empty())
      one_sided.push_back(fmt::format("{} (only in {} dump)", g.key.describe(),
                                      g.mine.empty() ? "the golden" : "my"));
  if (!one_sided.empty()) {
    out << fmt::format("directories on one side: {}\n", one_sided.size());
    for (size_t i = 0; i < one_sided.size() && i < top_; ++i)
      out << "  " << printable_path(one_sided[i]) << '\n';
    if (one_sided.size() > top_) out << fmt::format("  ... and {} more\n", one_sided.size() - top_);
  }
  const bool several_groups = pairing_.groups.size() > 1;
  if (divergences_.empty()) out << "first divergence: none\n";
  for (const Divergence& d : divergences_) {
    std::string where = several_groups ? " (" + describe_group(pairing_, d.group) + ")" : "";
    std::string inputs = d.inputs ? fmt::format("its {} input(s) pass", d.inputs)
                                  : std::string("no input of it was dumped");
    out << fmt::format("first divergence{}: row {} {}: {}; {}\n", where, d.row,
                       printable_path(d.label), d.why, inputs);
  }
  std::vector<WorstRow> worst = worst_;
  std::sort(worst.begin(), worst.end(), worse);
  if (worst.size() > top_) worst.resize(top_);
  if (!worst.empty()) {
    out << "worst rows:\n";
    std::vector<std::vector<std::string>> table{
        {"row", "tensor", "verdict", "cosine", "max_abs_err", "why"}};
    for (const WorstRow& w : worst)
      table.push_back({std::to_string(w.row), printable_path(w.label),
                       std::string(verdict_name(w.verdict)), opt_number(w.cosine),
                       opt_number(w.max_abs_err), w.why.empty() ? "-" : w.why});
    std::string aligned = table::align_columns(table);
    size_t start = 0;
    while (start < aligned.size()) {
      size_t end = aligned.find('\n', start);
      if (end == std::string::npos) end = aligned.size();
      out << "  " << std::string_view(aligned).substr(start, end - start) << '\n';
      start = end + 1;
    }
  }
  Advice a = advice();
  out << "advisor:\n";
  out << "  Detection Type: " << a.detection << '\n';
  out << "  Operator Index: "
      << (a.row ? fmt::format("{} ({})", *a.row, printable_path(a.label)) : std::string("NA"))
      << '\n';
  out << "  Expert Advice: " << a.advice << '\n';
}

void Summary::write_json(std::ostream& out) const {
  nlohmann::ordered_json doc;
  const PairCounts& c = counts_;
  uint64_t rows = 0;
  for (uint64_t n : verdicts_) rows += n;
  doc["rows"] = rows;
  doc["pairs"] = c.pairs;
  doc["only_mine"] = c.only_mine;
  doc["only_golden"] = c.only_golden;
  doc["compared"] = compared_;
  auto why = nothing_compared();
  doc["nothing_compared"] = why ? nlohmann::ordered_json(*why) : nlohmann::ordered_json();
  nlohmann::ordered_json verdicts = nlohmann::ordered_json::object();
  for (size_t i = 0; i < kVerdictCount; ++i)
    verdicts[std::string(verdict_name(static_cast<Verdict>(i)))] = verdicts_[i];
  doc["verdicts"] = verdicts;
  nlohmann::ordered_json reasons = nlohmann::ordered_json::object();
  for (const auto& [name, n] : reasons_) reasons[name] = n;
  doc["reasons"] = reasons;
  nlohmann::ordered_json one_sided = nlohmann::ordered_json::array();
  for (const DirectoryGroup& g : pairing_.groups)
    if (g.mine.empty() != g.golden.empty())
      one_sided.push_back(
          {{"directory", g.key.describe()}, {"only_in", g.mine.empty() ? "golden" : "mine"}});
  doc["directories_on_one_side"] = one_sided;
  auto optional_number = [](const std::optional<double>& v) {
    return v && std::isfinite(*v) ? nlohmann::ordered_json(*v) : nlohmann::ordered_json();
  };
  nlohmann::ordered_json divergences = nlohmann::ordered_json::array();
  for (const Divergence& d : divergences_) {
    nlohmann::ordered_json j;
    j["group"] = describe_group(pairing_, d.group);
    j["row"] = d.row;
    j["tensor"] = d.label;
    j["why"] = d.why;
    j["inputs_passed"] = d.inputs;
    j["cosine"] = optional_number(d.cosine);
    divergences.push_back(j);
  }
  doc["first_divergence"] = divergences;
  std::vector<WorstRow> worst = worst_;
  std::sort(worst.begin(), worst.end(), worse);
  if (worst.size() > top_) worst.resize(top_);
  nlohmann::ordered_json w = nlohmann::ordered_json::array();
  for (const WorstRow& x : worst) {
    nlohmann::ordered_json j;
    j["row"] = x.row;
    j["tensor"] = x.label;
    j["verdict"] = std::string(verdict_name(x.verdict));
    j["cosine"] = optional_number(x.cosine);
    j["max_abs_err"] = optional_number(x.max_abs_err);
    j["why"] = x.why;
    w.push_back(j);
  }
  doc["worst"] = w;
  Advice a = advice();
  doc["advisor"] = {
      {"detection_type", a.detection},
      {"operator_index", a.row ? nlohmann::ordered_json(*a.row) : nlohmann::ordered_json("NA")},
      {"tensor", a.label},
      {"expert_advice", a.advice}};
  out << table::to_json_text(doc, 2) << '\n';
}

}  // namespace msdt::compare

namespace msdt::compare {

Expected<std::string> plot_divergence(const Summary& summary, const Thresholds& thresholds) {
  plot::Panel cosine{"cosine similarity of each output tensor", {}};
  plot::Panel relative{"max relative error of each output tensor", {}};
  plot::Series c{"Cosine", {}}, r{"MaxRelativeErr", {}};
  c.dots = r.dots = true;
  for (const PlotRow& p : summary.plot_rows()) {
    double x = static_cast<double>(p.ordinal);
    c.points.push_back({x, p.cosine.value_or(NAN)});
    r.points.push_back({x, p.max_relative_err.value_or(NAN)});
  }
  if (auto why = summary.nothing_compared())
    return Error("nothing was compared, so there is nothing to plot: " + *why);
  if (c.points.empty()) return Error("no output tensor was compared: nothing to plot");
  cosine.series.push_back(std::move(c));
  relative.series.push_back(std::move(r));
  relative.log_y = true;
  for (auto [metric, panel] : {std::pair{ThresholdMetric::Cosine, &cosine},
                               std::pair{ThresholdMetric::MaxRelativeErr, &relative}}) {
    const auto& bound = thresholds.bound(metric);
    if (!bound) continue;
    std::string name(threshold_metric_name(metric));
    panel->reference_lines.push_back(
        {bound->warning, fmt::format("warning {}", table::format_double(bound->warning)),
         plot::ReferenceLine::Warning});
    if (bound->error != bound->warning)
      panel->reference_lines.push_back({bound->error,
                                        fmt::format("error {}", table::format_double(bound->error)),
                                        plot::ReferenceLine::Error});
  }
  for (const Divergence& d : summary.divergences()) {
    if (!d.output_ordinal) continue;
    plot::Marker m{static_cast<double>(*d.output_ordinal),
                   fmt::format("first divergence: row {} {}", d.row, d.label)};
    cosine.markers.push_back(m);
    relative.markers.push_back({m.x, ""});  // labelled once: the label would hide points here
  }
  plot::Options options;
  options.columns = 1;
  options.panel_width = 900;
  options.panel_height = 320;
  options.x_label = "output tensors in execution order";
  std::vector<plot::Panel> panels{std::move(cosine), std::move(relative)};
  return plot::lines(panels, options);
}

}  // namespace msdt::compare
