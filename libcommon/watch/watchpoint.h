// Watchpoints: a condition with its parameters and the tensors it watches, from a watch file
// (WATCH.json), from the command line, or MindInsight's recommended set (watchpoints spec §5).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "io/error.h"
#include "io/regex.h"
#include "watch/condition.h"

namespace msdt::watch {

// One parameter as the backend receives it (§1.4): every parameter of the condition, in order,
// enabled or disabled.
struct ParamValue {
  const ParamSpec* spec = nullptr;
  double value = 0;  // booleans as 0 / 1
  bool disabled = true;
};

enum class IoFilter : uint8_t { Any, Input, Output };

struct Watchpoint {
  uint32_t id = 0;
  std::string name;  // optional label ("recommend_tensor_overflow_watchpoint")
  const Condition* condition = nullptr;
  std::vector<ParamValue> params;
  // A tensor is watched when its node matches one of `nodes` (see node_matches) or `node_regex`;
  // with neither, every node is watched.
  std::vector<std::string> nodes;
  std::string node_regex_text;
  std::optional<Regex> node_regex;
  // Op types ("op_types" in the watch file; "ReLU", "Tanh"): with nodes or a regex, both must
  // match. The recommended set also uses a node class instead of names.
  std::vector<std::string> op_types;
  enum class NodeClass : uint8_t { Any, Weight, Gradient } node_class = NodeClass::Any;
  IoFilter io = IoFilter::Any;
  std::vector<uint32_t> slots, ranks, graphs;  // empty: all

  // The value of an enabled parameter.
  std::optional<double> param(std::string_view param_name) const;
};

// A parameter value as given: a number, a boolean, or null (disabled).
using GivenValue = std::variant<std::monostate, double, bool>;
using GivenParams = std::vector<std::pair<std::string, GivenValue>>;

// Checks the given parameters against the condition (MindInsight's validation, spec §4, and the
// API's "at least one" rules, §6.2) and completes the list: hidden parameters take their
// defaults; when no deciding parameter is given, those with a default (zero_percentage_ge 100,
// rtol 1e-5, the update ratios) are enabled with it. `where` prefixes every message
// ("watchpoints[2].params").
Expected<std::vector<ParamValue>> resolve_params(const Condition& condition,
                                                 const GivenParams& given, std::string_view where);

// The deepest nesting of arrays and objects a watch file may have; deeper is refused before
// parsing, at the offset of the bracket that goes too deep. A watch file needs 4 levels.
inline constexpr size_t kWatchFileMaxDepth = 64;

// Parses WATCH.json (README, man page):
//   {"watchpoints": [{"id": 1, "condition": "MIN_LT", "params": {"param": 0.0},
//     "nodes": ["Default/.../Conv2D-op369"] or "node_regex": "...", "io": "input",
//     "slots": [1], "ranks": [0], "graphs": [0]}]}
// Errors name the JSON path and say what is accepted: "watchpoints[2].params.abs_mean_gt:
// tensor_too_small takes abs_mean_lt, max_lt, min_lt, mean_lt". Ids default to the position from
// 1 and must be unique.
Expected<std::vector<Watchpoint>> parse_watch_file(std::string_view text);

// The one watchpoint (id 1) of `--condition C [--param NAME=VALUE]... [--node N]...
// [--node-regex RE] [--io input|output|any]`; errors name the option ("--param: max_gt: ...").
Expected<Watchpoint> command_line_watchpoint(std::string_view condition,
                                             const std::vector<std::string>& params,
                                             const std::vector<std::string>& nodes,
                                             std::string_view node_regex, std::string_view io);

// "NAME=VALUE" of --param: VALUE a number, true/false, or "null"/"disabled".
Expected<std::pair<std::string, GivenValue>> parse_param_argument(std::string_view text);

// Node matching (README): equal names; the part after the last '/' of one equals the other;
// or, for dump names that write the scope with '_' (2.3+ and DumpData file names), the watched
// name with '/', '\\', '.' and ' ' written as '_' equals the tensor's name or ends it after a '_'.
bool node_matches(std::string_view watched, std::string_view tensor_node);
// A full name as 2.3+ dump file names and execution-order files write it: '/', '\\', '.' and ' '
// replaced by '_'.
std::string scope_with_underscores(std::string_view name);

// Does the watchpoint watch this tensor? (node, io and slot; rank and graph separately.)
bool watches(const Watchpoint& wp, std::string_view node, std::string_view op_type,
             std::string_view io, std::optional<uint32_t> slot);
// Whether a node name could be watched at all, before its io and slot are known.
bool watches_node(const Watchpoint& wp, std::string_view node, std::string_view op_type);
bool watches_location(const Watchpoint& wp, std::optional<uint32_t> rank,
                      std::optional<uint32_t> graph);

// MindInsight's recommended set (spec §5).
// The set does not depend on the dump: nodes are chosen by class and op type (weights: parameters
// that are not optimizer state; gradients: names under a Gradients scope; activations: Tanh,
// Sigmoid, ReLU, ReLUV2).
std::vector<Watchpoint> recommended_watchpoints();
// The classes behind it.
bool is_weight_node(std::string_view node, std::string_view op_type);
bool is_gradient_node(std::string_view node);

}  // namespace msdt::watch
