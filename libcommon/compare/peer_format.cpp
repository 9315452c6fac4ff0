#include "compare/peer_format.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <limits>

#include "table/format.h"

namespace msdt::compare {
namespace {

constexpr double kEps = 2.220446049250313e-16;  // msaccucmp's FLOAT_EPSILON (np.finfo(float).eps)
constexpr std::string_view kNaN = "NaN";        // msaccucmp's ConstManager.NAN

// Python's repr of a float, numpy's str of a float32 (table/format.h).
std::string python_repr(double v) { return table::format_double(v); }
std::string python_repr(float v) { return table::format_double(v, table::Digits::Float32); }

// Lines are built cell by cell; a ',' goes before every cell but the first, which may be empty
// (an absent NPU side in msprobe's outer join). The first cell is added with first_cell.
void first_cell(std::string& line, std::string_view cell) { table::append_csv(line, cell); }
void add_cell(std::string& line, std::string_view cell) {
  line += ',';
  table::append_csv(line, cell);
}

// Python's '%r' of a str holding no quote: the text in single quotes.
std::string py_quoted(std::string_view text) { return fmt::format("'{}'", text); }

std::string shape_cell(const std::vector<uint64_t>& shape) {
  return fmt::format("[{}]", fmt::join(shape, ","));
}

// --- msaccucmp --------------------------------------------------------------------------------

struct Cell {
  std::string text;
  std::string message;  // for CompareFailReason; empty for none
};

std::string all_zero_message(std::string_view file) {
  return fmt::format("Cannot compare by Cosine Similarity. All the data is zero in {}.", file);
}

// The cell of a metric without a value, for the reasons a single metric can have.
Cell absent_cell(Algorithm algorithm, Reason reason, const MsaccucmpRowInfo& row) {
  switch (reason) {
    case Reason::NonFinite:
      return {"nan", ""};  // IEEE propagation; msaccucmp prints Python's nan (§4 item 5)
    case Reason::Bool:
      return {std::string(kNaN), fmt::format("Algorithm {} does not support Boolean types.",
                                             algorithm_name(algorithm))};
    case Reason::Scalar:
      if (algorithm == Algorithm::CosineSimilarity) return {"1.000000", "This tensor is scalar."};
      break;
    case Reason::AllZeroMine:
      return {std::string(kNaN), all_zero_message(row.my_file)};
    case Reason::AllZeroGolden:
      return {std::string(kNaN), all_zero_message(row.golden_file)};
    default:
      break;
  }
  return {std::string(kNaN), fmt::format("{}: {}", algorithm_name(algorithm), reason_name(reason))};
}

Cell metric_cell(Algorithm algorithm, const PairMetrics& m, const MsaccucmpRowInfo& row) {
  if (algorithm == Algorithm::StandardDeviation) {
    const Metric* parts[] = {&m.mean_my, &m.std_my, &m.mean_golden, &m.std_golden};
    double v[4];
    for (int i = 0; i < 4; ++i) {
      if (parts[i]->has_value()) {
        v[i] = *parts[i]->value;
      } else if (parts[i]->reason == Reason::NonFinite) {
        v[i] = std::numeric_limits<double>::quiet_NaN();
      } else {
        return absent_cell(algorithm, parts[i]->reason.value_or(Reason::NotSelected), row);
      }
    }
    return {msaccucmp_standard_deviation(v[0], v[1], v[2], v[3]), ""};
  }
  const Metric& metric = m.get(algorithm);
  if (!metric.has_value())
    return absent_cell(algorithm, metric.reason.value_or(Reason::NotSelected), row);
  double value = *metric.value;
  // alg_CosineSimilarity returns the string "1.0", unformatted, when ‖x‖ <= ε and ‖y‖ < ε.
  if (algorithm == Algorithm::CosineSimilarity && value == 1.0 && m.my.l2norm && m.golden.l2norm &&
      *m.my.l2norm <= kEps && *m.golden.l2norm < kEps)
    return {"1.0", ""};
  return {msaccucmp_number(value), ""};
}

// A reason shared by every metric of the pair (PairMetrics::pair_reason).
Cell pair_reason_cell(Algorithm algorithm, Reason reason, const PairMetrics& m,
                      const MsaccucmpRowInfo& row) {
  if (reason == Reason::SizeMismatch)  // AlgorithmManager._check_data_size_valid, once per row
    return {std::string(kNaN),
            fmt::format("The my output dump data size ({}) in '{}' does not match the ground truth "
                        "dump data size ({}) in '{}'.",
                        m.my.count, py_quoted(row.my_file), m.golden.count,
                        py_quoted(row.golden_file))};
  if (reason == Reason::Empty) {
    // NumPy on empty arrays (§7): both norms are 0, so cosine is "1.0" and
    // RelativeEuclideanDistance 0; the reductions of the others raise.
    if (algorithm == Algorithm::CosineSimilarity) return {"1.0", ""};
    if (algorithm == Algorithm::RelativeEuclideanDistance) return {msaccucmp_number(0.0), ""};
  }
  return {std::string(kNaN), std::string(reason_name(reason))};
}

}  // namespace

Overflow overflow_of(DType dtype, const TensorStats& stats) {
  if (dtype != DType::Float16) return Overflow::NotChecked;
  constexpr double kOverflowMax = 65504;  // OVERFLOW_MAX_VALUE
  bool over = stats.pos_inf > 0 || stats.neg_inf > 0 ||
              (stats.max && std::fabs(*stats.max) >= kOverflowMax) ||
              (stats.min && std::fabs(*stats.min) >= kOverflowMax);
  return over ? Overflow::Yes : Overflow::No;
}

std::string msaccucmp_number(double value) { return fmt::format("{:.6f}", value); }

std::string msaccucmp_standard_deviation(double mean_my, double std_my, double mean_golden,
                                         double std_golden) {
  auto part = [](double v) {
    return std::fabs(v) < 0.001 ? std::string("0.000") : fmt::format("{:.3f}", v);
  };
  return fmt::format("({};{}),({};{})", part(mean_my), part(std_my), part(mean_golden),
                     part(std_golden));
}

std::string msaccucmp_result_file_name(const std::tm& time) {
  return fmt::format("result_{:04}{:02}{:02}{:02}{:02}{:02}.csv", time.tm_year + 1900,
                     time.tm_mon + 1, time.tm_mday, time.tm_hour, time.tm_min, time.tm_sec);
}

std::string msaccucmp_header(const MsaccucmpColumns& columns) {
  std::string line;
  first_cell(line, "Index");
  if (columns.op_sequence) add_cell(line, "OpSequence");
  add_cell(line, "OpType");
  add_cell(line, "NPUDump");
  add_cell(line, "DataType");
  if (columns.my_address) add_cell(line, "Address");
  add_cell(line, "GroundTruth");
  add_cell(line, "DataType");
  if (columns.golden_address) add_cell(line, "Address");
  add_cell(line, "TensorIndex");
  add_cell(line, "Shape");
  if (columns.overflow) add_cell(line, "OverFlow");
  for (Algorithm a : columns.algorithms.order()) add_cell(line, algorithm_name(a));
  add_cell(line, "CompareFailReason");
  return line;
}

std::string msaccucmp_row(const MsaccucmpRowInfo& row, const PairMetrics* metrics,
                          const MsaccucmpColumns& columns) {
  auto or_nan = [](const std::string& s) -> std::string_view { return s.empty() ? kNaN : s; };
  bool has_mine = !row.my_name.empty(), has_golden = !row.golden_name.empty();
  std::string line;
  first_cell(line, std::to_string(row.index));
  if (columns.op_sequence)
    add_cell(line, row.op_sequence ? std::to_string(*row.op_sequence) : std::string(kNaN));
  add_cell(line, or_nan(row.op_type));
  add_cell(line, has_mine ? std::string_view(row.my_name) : "*");
  add_cell(line, has_mine ? or_nan(row.my_dtype) : kNaN);
  if (columns.my_address) add_cell(line, has_mine ? or_nan(row.my_address) : kNaN);
  add_cell(line, has_golden ? std::string_view(row.golden_name) : "*");
  add_cell(line, has_golden ? or_nan(row.golden_dtype) : kNaN);
  if (columns.golden_address) add_cell(line, has_golden ? or_nan(row.golden_address) : kNaN);
  add_cell(line, or_nan(row.tensor_index));
  add_cell(line, row.shape ? shape_cell(*row.shape) : std::string(kNaN));
  if (columns.overflow)
    add_cell(line, row.overflow == Overflow::Yes  ? "YES"
                   : row.overflow == Overflow::No ? "NO"
                                                  : kNaN);

  std::vector<std::string> messages;
  bool pair_message_given = false;
  for (Algorithm a : columns.algorithms.order()) {
    Cell cell;
    if (metrics == nullptr || !has_mine || !has_golden) {
      cell.text = kNaN;
    } else if (metrics->pair_reason) {
      cell = pair_reason_cell(a, *metrics->pair_reason, *metrics, row);
      // One reason for the whole pair is said once, as msaccucmp raises once.
      if (!cell.message.empty()) {
        if (pair_message_given) cell.message.clear();
        pair_message_given = true;
      }
    } else {
      cell = metric_cell(a, *metrics, row);
    }
    add_cell(line, cell.text);
    if (!cell.message.empty()) messages.push_back(std::move(cell.message));
  }
  add_cell(line, fmt::format("{}", fmt::join(messages, ",")));
  return line;
}

// --- msprobe ------------------------------------------------------------------------------------

namespace {

// The text and message of a metric without a value (§6.2: "No data", "No real data", "None",
// "unreadable" are `unsupported`, "Nan" is `N/A`, `shape unmatched` stays).
std::string_view msprobe_error_value(Reason reason) {
  switch (reason) {
    case Reason::SizeMismatch:
    case Reason::ShapeMismatch:
      return "shape unmatched";
    case Reason::NanInfPositionsDiffer:
    case Reason::AllMasked:
    case Reason::AllZeroMine:
    case Reason::AllZeroGolden:
    case Reason::NonFinite:
      return "N/A";
    default:
      return "unsupported";
  }
}

std::string_view msprobe_message(Reason reason) {
  switch (reason) {
    case Reason::Empty:
      return "This is empty data, can not compare.";
    case Reason::SizeMismatch:
    case Reason::ShapeMismatch:
      return "Shape of NPU and bench Tensor do not match. Skipped.";
    case Reason::NanInfPositionsDiffer:
      return "The position of inf or nan in NPU and bench Tensor do not match.";
    case Reason::Scalar:
      return "This is type of scalar data, can not compare.";
    case Reason::LengthOne:
      return "This is a 1-d tensor of length 1.";
    case Reason::AllZeroMine:
      return "Cannot compare by Cosine Similarity, All the data is Zero in npu dump data.";
    case Reason::AllZeroGolden:
      return "Cannot compare by Cosine Similarity, All the data is Zero in Bench dump data.";
    case Reason::NonFinite:
      return "The data contains nan/inf/-inf.";
    case Reason::NotReal:
      return "No real data.";
    default:
      return reason_name(reason);
  }
}

// A number cell: npy mode as compare_core writes it (±inf as " inf"/" -inf", NaN empty);
// statistics mode with the trailing tab of §6.5 on inf, -inf and nan.
std::string msprobe_value_cell(std::string text, MsprobeMode mode) {
  bool special = text == "inf" || text == "-inf" || text == "nan";
  if (!special) return text;
  if (mode == MsprobeMode::Statistics) return text + "\t";
  return text == "nan" ? std::string() : " " + text;
}

std::string stat_cell(const std::optional<double>& v, MsprobeMode mode) {
  if (!v) return msprobe_value_cell("nan", mode);
  // Statistics mode reads statistic.csv through np.float32 (update_result_dict).
  return msprobe_value_cell(
      mode == MsprobeMode::Statistics ? python_repr(static_cast<float>(*v)) : python_repr(*v),
      mode);
}

}  // namespace

std::string msprobe_number(double value) {
  if (!std::isfinite(value)) return python_repr(value);
  std::string text = fmt::format("{:.12f}", value);
  return python_repr(std::strtod(text.c_str(), nullptr));
}

std::string msprobe_cosine(double value) {
  if (!std::isfinite(value)) return python_repr(value);
  double v = std::strtod(fmt::format("{:.12f}", value).c_str(), nullptr);
  if (v > 0.9999)  // COSINE_THRESHOLD: round(v, 6), correctly rounded as Python's round is
    v = std::strtod(fmt::format("{:.6f}", v).c_str(), nullptr);
  return python_repr(v);
}

std::string msprobe_shape(const std::vector<uint64_t>& shape) {
  if (shape.size() == 1) return fmt::format("[{},]", shape[0]);  // the 1-tuple "(5,)"
  return fmt::format("[{}]", fmt::join(shape, ", "));
}

std::string msprobe_graph_header(MsprobeMode mode) {
  std::string line =
      "NPU Name,Bench Name,NPU Dtype,Bench Dtype,NPU Tensor Shape,Bench Tensor Shape,NPU max,"
      "NPU min,NPU mean,NPU l2norm,Bench max,Bench min,Bench mean,Bench l2norm,"
      "Accuracy Reached or Not,Err_message";
  if (mode == MsprobeMode::Npy)
    line +=
        ",Cosine,EucDist,MaxAbsErr,MaxRelativeErr,One Thousandth Err Ratio,"
        "Five Thousandths Err Ratio";
  else
    line +=
        ",Max diff,Min diff,Mean diff,L2norm diff,MaxRelativeErr,MinRelativeErr,"
        "MeanRelativeErr,NormRelativeErr,NPU CSV File,Bench CSV File";
  return line;
}

std::string msprobe_graph_row(const MsprobeRowInfo& row, const PairMetrics* metrics,
                              std::string_view accuracy, MsprobeMode mode) {
  bool has_npu = !row.npu_name.empty(), has_bench = !row.bench_name.empty();
  bool paired = metrics != nullptr && has_npu && has_bench;
  std::string line;
  first_cell(line, row.npu_name);
  add_cell(line, row.bench_name);
  add_cell(line, row.npu_dtype);
  add_cell(line, row.bench_dtype);
  add_cell(line, row.npu_shape ? msprobe_shape(*row.npu_shape) : "");
  add_cell(line, row.bench_shape ? msprobe_shape(*row.bench_shape) : "");
  for (int side = 0; side < 2; ++side) {
    bool present = side == 0 ? has_npu : has_bench;
    if (!present || metrics == nullptr) {
      for (int i = 0; i < 4; ++i) add_cell(line, "");
      continue;
    }
    const TensorStats& s = side == 0 ? metrics->my : metrics->golden;
    for (const auto* v : {&s.max, &s.min, &s.mean, &s.l2norm}) add_cell(line, stat_cell(*v, mode));
  }
  add_cell(line, accuracy);

  std::string message;
  std::vector<std::string> cells;
  if (!paired) {
    // ms_graph_compare leaves the metric cells None (written empty) when a side has no file.
    message = "Dump file is not ndarray.";
    cells.assign(mode == MsprobeMode::Npy ? kMsprobeMetricCount : 8, "");
  } else if (mode == MsprobeMode::Npy) {
    std::optional<Reason> first;
    for (size_t i = 0; i < kMsprobeMetricCount; ++i) {
      auto which = static_cast<MsprobeMetric>(i);
      const Metric& m = metrics->get(which);
      if (m.has_value()) {
        cells.push_back(msprobe_value_cell(
            which == MsprobeMetric::Cosine ? msprobe_cosine(*m.value) : msprobe_number(*m.value),
            mode));
      } else {
        Reason r = metrics->pair_reason.value_or(m.reason.value_or(Reason::NotSelected));
        cells.emplace_back(msprobe_error_value(r));
        if (!first) first = r;
      }
    }
    if (first) message = msprobe_message(*first);
    if (!metrics->dtypes_equal && (!first || *first != Reason::Empty)) {
      if (!message.empty()) message += ' ';
      message += "Dtype of NPU and bench Tensor do not match.";
    }
  } else {
    const StatisticsDiff& d = metrics->statistics;
    for (const StatisticDiff* s : {&d.max, &d.min, &d.mean, &d.l2norm})
      cells.push_back(
          s->diff.has_value()
              ? msprobe_value_cell(python_repr(static_cast<float>(*s->diff.value)), mode)
              : msprobe_value_cell("nan", mode));
    for (const StatisticDiff* s : {&d.max, &d.min, &d.mean, &d.l2norm}) {
      if (s->relative.has_value())
        cells.push_back(python_repr(static_cast<float>(std::fabs(*s->relative.value))) + "%");
      else
        cells.emplace_back(s->relative.reason == Reason::ZeroGoldenStatistic ? "N/A" : "Nan");
    }
  }
  add_cell(line, message);
  for (const std::string& cell : cells) add_cell(line, cell);
  if (mode == MsprobeMode::Statistics) {
    add_cell(line, row.npu_csv_file);
    add_cell(line, row.bench_csv_file);
  }
  return line;
}

}  // namespace msdt::compare
