// Feeds the input to the watch file parser (WATCH.json), and every watchpoint it accepts to
// evaluation over fixed facts and to node matching (names and regexes), so
// parameter lists of any accepted shape are read by position as evaluate() does. The input is also
// tried as a condition name and a --param argument. Rejections are normal outcomes; crashes, hangs
// and uncaught exceptions are not.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "watch/evaluate.h"
#include "watch/watchpoint.h"

namespace {

msdt::watch::TensorFacts facts(const msdt::watch::Needs& needs) {
  msdt::watch::TensorFacts f;
  f.count = 4;
  f.nan = 0;
  f.inf = 0;
  f.zero = 1;
  f.min = -2;
  f.max = 3;
  f.mean = 0.5;
  f.sd = 2;
  f.abs_mean = 1.5;
  f.range_counts.assign(needs.ranges.size(), 2);
  if (needs.previous) {
    f.previous = msdt::watch::Previous::Present;
    msdt::ChangeStats change;
    change.mean_abs_diff = 0.25;
    change.mean_abs_prev = 1;
    change.all_close.assign(needs.tolerances.size(), true);
    f.change = change;
  }
  return f;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)msdt::watch::find_condition(text);
  (void)msdt::watch::parse_param_argument(text);
  auto parsed = msdt::watch::parse_watch_file(text);
  if (!parsed) return 0;
  msdt::watch::Needs needs;
  for (const auto& wp : *parsed) needs.add(wp);
  const msdt::watch::TensorFacts f = facts(needs);
  for (const auto& wp : *parsed) {
    (void)msdt::watch::evaluate(wp, needs, f);
    (void)msdt::watch::watches_location(wp, 0, 0);
    // A node_regex too: RE2 matches in linear time, whatever the pattern.
    for (std::string_view node : {"Default/network-Net/Conv2D-op1",
                                  "Default_network-Net_Conv2D-op1", "Conv2D-op1", "fc2.bias"}) {
      (void)msdt::watch::watches(wp, node, "Conv2D", "output", 0);
      (void)msdt::watch::watches(wp, node, "ReLU", "input", std::nullopt);
    }
    for (const std::string& watched : wp.nodes) {
      (void)msdt::watch::node_matches(watched, "Default_network-Net_Conv2D-op1");
      (void)msdt::watch::node_matches("Conv2D-op1", watched);
    }
  }
  return 0;
}
