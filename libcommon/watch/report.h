// What watch-check writes: one row per (watchpoint, tensor, iteration) record in the four table
// formats (aligned text, TSV, CSV, JSON Lines), a JUnit XML report, and the --summary view.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "table/sink.h"
#include "watch/check.h"

namespace msdt::watch {

// JSON keys, in this order: iteration, rank, graph, node, op_type, io, slot, file, source,
// watchpoint, condition, condition_id, hit, error_code, errors, params, reason, order. Text, TSV
// and CSV show iteration, rank, node, io (with its slot), condition and the deciding detail.
const table::Schema& record_schema();
table::Record to_row(const Record& record);
// "max_gt 0.5: actual 3.25" for the parameters that hit; the error names and reason otherwise.
std::string record_detail(const Record& record);

// Collects what the JUnit report and --summary need while the check runs, and counts hits and
// errors for the exit status.
class Tally : public CheckListener {
 public:
  // `sink` may be null (no row output, e.g. --summary); `max_hits` 0 = no limit.
  Tally(table::Sink* sink, uint64_t max_hits, bool keep_junit, bool keep_summary,
        double fp16_limit);
  bool record(const Record& record) override;
  void tensor(const CheckedTensor& tensor) override;
  void evaluated(const Watchpoint& wp, std::optional<uint64_t> iteration,
                 uint64_t tensors) override;

  uint64_t hits() const { return hits_; }
  uint64_t errors() const { return errors_; }
  bool stopped() const { return stopped_; }

  // JUnit XML: a test suite per watchpoint, a test case per iteration it was evaluated in, a
  // <failure> naming the tensors that hit and an <error> naming those whose check failed.
  void write_junit(std::ostream& out) const;
  // Per iteration: tensors checked, hits and errors per condition; then the tensors whose |min|
  // or |max| is beyond the float16 limit. Text, or one JSON document.
  void write_summary(std::ostream& out, bool json) const;

 private:
  struct Case {
    uint64_t tensors = 0;
    std::vector<std::string> failures, errors;
  };
  struct IterationCounts {
    uint64_t tensors = 0;
    std::map<std::string, uint64_t> hits, errors;  // by condition
  };
  table::Sink* sink_;
  uint64_t max_hits_;
  bool keep_junit_, keep_summary_;
  double fp16_limit_;
  uint64_t hits_ = 0, errors_ = 0;
  bool stopped_ = false;
  std::map<uint32_t, const Watchpoint*> watchpoints_;
  std::map<std::pair<uint32_t, uint64_t>, Case> cases_;  // (watchpoint id, iteration)
  std::map<uint64_t, IterationCounts> iterations_;
  std::vector<CheckedTensor> out_of_range_;
};

}  // namespace msdt::watch
