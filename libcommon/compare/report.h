// What dump-compare writes from the compared rows (compare spec §12.5, §12.7): its own rows
// through the table sinks (one walk, one sink per format), the peers' CSV files, and the summary
// with the advisor and the first divergence. Each is a CompareListener, so one run over the rows
// feeds all of them.
#pragma once

#include <array>
#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "compare/peer_format.h"
#include "compare/run.h"
#include "table/sink.h"

namespace msdt::compare {

// --- our own rows -------------------------------------------------------------------------------

// Every field, in JSON key order (the CSV and TSV columns too): the fixed column set of §12.5,
// whatever the options (a metric -alg left out is absent, never a missing column).
const table::Schema& row_schema();
// The same fields, with the short column set of the aligned text for terminals.
const table::Schema& row_text_schema();
table::Record row_record(const Pairing& pairing, const ComparedRow& row);

// A row's name for people: "Conv2D-op5 output 0" (the op name of my side, else the golden one),
// with " #2" for an occurrence past the first.
std::string row_label(const ComparedRow& row);
// The op a row belongs to: the directory group, the key name and the occurrence.
struct OpKey {
  size_t group = 0;
  std::string name;
  uint64_t occurrence = 0;
  auto operator<=>(const OpKey&) const = default;
};
OpKey op_key(const ComparedRow& row);
std::optional<dump::Io> row_io(const ComparedRow& row);

// Writes the rows whose verdict is in `only` (every row when empty) to `sink`.
class RowTable final : public CompareListener {
 public:
  RowTable(const Pairing& pairing, table::Sink& sink, std::set<Verdict> only)
      : pairing_(pairing), sink_(sink), only_(std::move(only)) {}
  void row(const ComparedRow& row) override;

 private:
  const Pairing& pairing_;
  table::Sink& sink_;
  std::set<Verdict> only_;
};

// The header record of --json (first line): {"header": {...}} with the inputs, the NaN policy,
// the cast, the selected algorithms, the preset, the thresholds as applied to a float32 golden
// tensor, the --threshold settings as given, and the counts of the rows compared.
struct RunDescription {
  std::string mine, golden;
  CompareOptions options;
  PairCounts counts;
  uint64_t rows = 0;  // rows compared (after --rank)
  std::vector<std::string> fail_on;
};
std::string json_header(const RunDescription& run);

// --- the peers' files ---------------------------------------------------------------------------

// msaccucmp's result CSV (§8.1): its header, then a line per row. Address columns are on for a
// side read from DumpData containers, as msaccucmp drops them for .npy dumps.
class MsaccucmpCsv final : public CompareListener {
 public:
  MsaccucmpCsv(const Pairing& pairing, std::ostream& out, const Algorithms& algorithms,
               bool overflow_column);
  void row(const ComparedRow& row) override;

 private:
  std::ostream& out_;
  MsaccucmpColumns columns_;
};

// msprobe's MindSpore static-graph CSV (§8.6): statistics mode when either side is statistic.csv.
class MsprobeCsv final : public CompareListener {
 public:
  MsprobeCsv(const Pairing& pairing, std::ostream& out);
  void row(const ComparedRow& row) override;

 private:
  std::ostream& out_;
  MsprobeMode mode_;
};

// --- the summary --------------------------------------------------------------------------------

// msaccucmp's advisor (§10), on our rows in order: FP16 Overflow (extended to every dtype through
// my side's Inf/NaN counts, §11.2), Input Inconsistent (a `Data` op whose cosine is below 0.99),
// Global Consistency; the first that matches wins.
struct Advice {
  std::string detection;        // "FP16 Overflow", "Overflow", "Input Inconsistent", …
  std::optional<uint64_t> row;  // our row number (Operator Index); none: NA
  std::string label;            // the row's label
  std::string advice;
};

// The first divergence of one directory group (§10): the first output, in execution order, that
// is an error while every input of its op passes (pass or warning). Without any input dumped for
// that op, the first failing output.
struct Divergence {
  size_t group = 0;
  uint64_t row = 0;  // our row number
  std::string label;
  std::string why;                         // the row's verdict reason
  uint64_t inputs = 0;                     // inputs of the op compared (all passed)
  std::optional<double> cosine;            // msprobe Cosine of the failing output
  std::optional<uint64_t> output_ordinal;  // its place among the outputs (the plot's x)
};

struct WorstRow {
  uint64_t row = 0;
  std::string label;
  Verdict verdict = Verdict::Pass;
  std::string why;
  std::optional<double> cosine, max_abs_err;
};

// One point of --plot: an output row with its cosine and max relative error.
struct PlotRow {
  uint64_t ordinal = 0;  // 1, 2, … over the output rows in order
  std::optional<double> cosine, max_relative_err;
};

class Summary final : public CompareListener {
 public:
  // `counts`: the pairs and unmatched tensors of the rows compared (count_rows).
  Summary(const Pairing& pairing, const PairCounts& counts, size_t top = 10);
  void row(const ComparedRow& row) override;

  const std::array<uint64_t, kVerdictCount>& verdicts() const { return verdicts_; }
  const std::map<std::string, uint64_t>& reasons() const { return reasons_; }
  const std::vector<WorstRow>& worst() const { return worst_; }
  const std::vector<Divergence>& divergences() const { return divergences_; }
  const std::vector<PlotRow>& plot_rows() const { return plot_; }
  // Rows whose two tensors were read and measured (metrics computed).
  uint64_t compared() const { return compared_; }
  // When no row was compared: why, plainly ("no tensor is in both dumps: ..."), for the summary,
  // the advisor and the tool's message. Nothing compared is never a pass.
  std::optional<std::string> nothing_compared() const;
  Advice advice() const;

  void write_text(std::ostream& out) const;
  void write_json(std::ostream& out) const;

 private:
  struct OpState {
    OpKey key;
    uint64_t inputs = 0;
    bool inputs_pass = true;
  };
  const Pairing& pairing_;
  PairCounts counts_;
  size_t top_;
  std::array<uint64_t, kVerdictCount> verdicts_{};
  std::map<std::string, uint64_t> reasons_;
  std::vector<WorstRow> worst_;
  std::vector<Divergence> divergences_;
  std::set<size_t> diverged_groups_;
  std::optional<OpState> op_;
  std::vector<PlotRow> plot_;
  uint64_t outputs_ = 0;
  uint64_t compared_ = 0;
  // Advisor state, in row order.
  std::optional<Advice> overflow_, input_inconsistent_;
  std::optional<WorstRow> first_low_cosine_;
  std::optional<double> last_cosine_;
};

// --plot: the msprobe Cosine and MaxRelativeErr of every output row along the execution order,
// two panels (the second on a log axis), the bounds of `thresholds` on those metrics drawn as
// dashed lines, and the first divergence of each directory group marked. PNG bytes.
Expected<std::string> plot_divergence(const Summary& summary, const Thresholds& thresholds);

// Fans the rows out to several listeners in order.
class Listeners final : public CompareListener {
 public:
  void add(CompareListener* listener) {
    if (listener) listeners_.push_back(listener);
  }
  void row(const ComparedRow& row) override {
    for (CompareListener* l : listeners_) l->row(row);
  }

 private:
  std::vector<CompareListener*> listeners_;
};

}  // namespace msdt::compare
