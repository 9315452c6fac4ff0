// Deciding a watchpoint on one tensor (watchpoints spec §2.3-2.5, with the choices of §7): from
// what is known of the tensor, its previous value and the overflow files, a verdict - hit or not,
// the error bits, and every parameter with the actual value that decided it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tensor/element_values.h"
#include "tensor/stats.h"
#include "watch/watchpoint.h"

namespace msdt::watch {

// Error bits (§2.5); 64 is ours: the previous tensor has another element count (upstream then
// reports nothing).
enum ErrorBit : uint32_t {
  kErrorNan = 1,
  kErrorInf = 2,
  kErrorNoPrevious = 4,
  kErrorOutOfMemory = 8,
  kErrorNoHistory = 16,
  kErrorNoValue = 32,
  kErrorPreviousSize = 64,
};
// "nan", "inf", "no_prev_tensor", "out_of_mem", "no_history", "no_value", "prev_size_differs"
std::vector<std::string_view> error_names(uint32_t code);

// What a set of watchpoints needs computed for one tensor.
struct Needs {
  bool statistics = false;                            // the one-pass statistics
  std::vector<std::pair<double, double>> ranges;      // RANGE bounds, deduplicated
  std::vector<std::pair<double, double>> tolerances;  // NOT_CHANGED (rtol, atol), deduplicated
  bool previous = false;                              // a change condition is among them
  void add(const Watchpoint& wp);
  size_t range_index(const Watchpoint& wp) const;
  size_t tolerance_index(const Watchpoint& wp) const;
};

// The previous iteration's tensor, as far as it could be found (§3.3).
enum class Previous : uint8_t { NotNeeded, NoHistory, NoIteration, NotFound, SizeDiffers, Present };

// What is known of one tensor. From a tensor file every field the needs asked for is present;
// from a statistic.csv row only what the row holds (absent statistics cannot decide anything).
struct TensorFacts {
  std::string source = "tensor";  // "tensor" or "statistic.csv"
  bool has_value = true;          // false: empty tensor or no readable elements (error 32)
  std::string no_value_reason;
  uint64_t count = 0;
  std::optional<uint64_t> nan, inf, zero;
  std::optional<double> min, max, mean, sd, abs_mean;  // sd: sample (n - 1), as upstream
  std::vector<uint64_t> range_counts;                  // per Needs::ranges
  Previous previous = Previous::NotNeeded;
  std::string previous_reason;
  std::optional<ChangeStats> change;  // Previous::Present
  bool overflow = false;              // the op is named by an Opdebug file of its iteration
};

// Fills the statistics fields from computed statistics.
void facts_from_stats(const TensorStats& stats, TensorFacts& facts);

struct ParamOutcome {
  const ParamSpec* spec = nullptr;
  double value = 0;
  bool disabled = true;
  bool hit = false;
  std::optional<double> actual;
};

struct Verdict {
  bool hit = false;
  uint32_t error_code = 0;
  std::vector<ParamOutcome> params;
  std::string reason;  // why error 32 or 64 (and what is missing)
};

Verdict evaluate(const Watchpoint& wp, const Needs& needs, const TensorFacts& facts);

}  // namespace msdt::watch
