#include "watch/watchpoint.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "io/json_depth.h"
#include "io/regex.h"
#include "io/text.h"
#include "table/format.h"

namespace msdt::watch {
namespace {

using json = nlohmann::json;

std::string spell(double v) { return table::format_double(v); }

Status validate(const ParamSpec& spec, double v, std::string_view where) {
  auto bad = [&](std::string_view wanted) {
    return Error(fmt::format("{}: {} is out of range: expected {}", where, spell(v), wanted));
  };
  if (!std::isfinite(v)) return bad("a finite number");
  switch (spec.validator) {
    case Validator::Abs:
      if (v < 0) return bad("a number >= 0");
      break;
    case Validator::Positive:
      if (v <= 0) return bad("a number > 0");
      break;
    case Validator::Percentage:
      if (v < 0 || v > 100) return bad("a percentage from 0 to 100");
      break;
    case Validator::None:
    case Validator::Normal:
      break;
  }
  return std::nullopt;
}

std::string join_names(const Condition& c, bool (*keep)(const ParamSpec&)) {
  std::string out;
  for (const ParamSpec& p : c.params)
    if (keep(p)) out += (out.empty() ? "" : ", ") + std::string(p.name);
  return out;
}

bool is_check(const ParamSpec& p) { return !p.support && !p.hidden; }

// JSON paths and values in messages.
// "where: " before a message, or nothing.
std::string lead(std::string_view where) {
  return where.empty() ? std::string() : fmt::format("{}: ", where);
}

std::string at(std::string_view base, std::string_view key) {
  return base.empty() ? std::string(key) : fmt::format("{}.{}", base, key);
}

Expected<std::vector<uint32_t>> id_list(const json& value, const std::string& where) {
  if (!value.is_array()) return Error(fmt::format("{}: expected an array of integers", where));
  std::vector<uint32_t> out;
  for (size_t i = 0; i < value.size(); ++i) {
    const json& item = value[i];
    if (!item.is_number_unsigned() || item.get<uint64_t>() > std::numeric_limits<uint32_t>::max())
      return Error(fmt::format(
          "{}[{}]: expected an integer from 0 to 4294967295, found {}", where, i,
          quote_for_message(item.dump(-1, ' ', false, json::error_handler_t::replace))));
    out.push_back(item.get<uint32_t>());
  }
  return out;
}

std::string shown(const json& value) {
  return quote_for_message(value.dump(-1, ' ', false, json::error_handler_t::replace));
}

Expected<Watchpoint> parse_one(const json& item, size_t index) {
  const std::string where = fmt::format("watchpoints[{}]", index);
  if (!item.is_object()) return Error(fmt::format("{}: expected an object", where));
  static const std::set<std::string> kKeys = {"id",    "name",       "condition", "params",
                                              "nodes", "node_regex", "op_types",  "io",
                                              "slots", "ranks",      "graphs"};
  for (const auto& [key, value] : item.items())
    if (!kKeys.contains(key))
      return Error(fmt::format(
          "{}: unknown key {}: expected id, name, condition, params, nodes, node_regex, "
          "op_types, io, slots, ranks, graphs",
          where, quote_for_message(key)));

  Watchpoint wp;
  wp.id = static_cast<uint32_t>(index + 1);
  if (auto it = item.find("id"); it != item.end()) {
    if (!it->is_number_unsigned() || it->get<uint64_t>() > std::numeric_limits<uint32_t>::max())
      return Error(fmt::format("{}.id: expected an integer from 0 to 4294967295, found {}", where,
                               shown(*it)));
    wp.id = it->get<uint32_t>();
  }
  if (auto it = item.find("name"); it != item.end()) {
    if (!it->is_string()) return Error(fmt::format("{}.name: expected a string", where));
    wp.name = it->get<std::string>();
  }

  auto cond = item.find("condition");
  if (cond == item.end()) return Error(fmt::format("{}: 'condition' is missing", where));
  std::string cond_text;
  if (cond->is_string())
    cond_text = cond->get<std::string>();
  else if (cond->is_number_unsigned())
    cond_text = std::to_string(cond->get<uint64_t>());
  else
    return Error(
        fmt::format("{}.condition: expected a name or a number, found {}", where, shown(*cond)));
  auto condition = find_condition(cond_text);
  if (!condition) return std::move(condition.error()).with_context(where + ".condition");
  wp.condition = *condition;

  GivenParams given;
  if (auto it = item.find("params"); it != item.end()) {
    if (!it->is_object())
      return Error(fmt::format("{}.params: expected an object of name: value", where));
    for (const auto& [name, value] : it->items()) {
      const std::string path = fmt::format("{}.params.{}", where, name);
      if (value.is_null())
        given.emplace_back(name, std::monostate{});
      else if (value.is_boolean())
        given.emplace_back(name, value.get<bool>());
      else if (value.is_number())
        given.emplace_back(name, value.get<double>());
      else
        return Error(
            fmt::format("{}: expected a number, true/false or null, found {}", path, shown(value)));
    }
  }
  MSDT_TRY(wp.params, resolve_params(*wp.condition, given, where + ".params"));

  if (auto it = item.find("nodes"); it != item.end()) {
    if (!it->is_array()) return Error(fmt::format("{}.nodes: expected an array of names", where));
    for (size_t i = 0; i < it->size(); ++i) {
      if (!(*it)[i].is_string() || (*it)[i].get<std::string>().empty())
        return Error(fmt::format("{}.nodes[{}]: expected a node name", where, i));
      wp.nodes.push_back((*it)[i].get<std::string>());
    }
  }
  if (auto it = item.find("node_regex"); it != item.end()) {
    if (!it->is_string()) return Error(fmt::format("{}.node_regex: expected a string", where));
    if (!wp.nodes.empty())
      return Error(fmt::format("{}: give either 'nodes' or 'node_regex', not both", where));
    wp.node_regex_text = it->get<std::string>();
    auto compiled = compile_user_regex(wp.node_regex_text);
    if (!compiled) return std::move(compiled.error()).with_context(where + ".node_regex");
    wp.node_regex = std::move(*compiled);
  }
  if (auto it = item.find("op_types"); it != item.end()) {
    if (!it->is_array())
      return Error(fmt::format("{}.op_types: expected an array of names", where));
    for (size_t i = 0; i < it->size(); ++i) {
      if (!(*it)[i].is_string())
        return Error(fmt::format("{}.op_types[{}]: expected an op type", where, i));
      wp.op_types.push_back((*it)[i].get<std::string>());
    }
  }
  if (auto it = item.find("io"); it != item.end()) {
    std::string io = it->is_string() ? it->get<std::string>() : "";
    if (io == "input")
      wp.io = IoFilter::Input;
    else if (io == "output")
      wp.io = IoFilter::Output;
    else if (io == "any")
      wp.io = IoFilter::Any;
    else
      return Error(fmt::format("{}.io: expected \"input\", \"output\" or \"any\", found {}", where,
                               shown(*it)));
  }
  for (auto [key, list] : {std::pair{"slots", &wp.slots}, std::pair{"ranks", &wp.ranks},
                           std::pair{"graphs", &wp.graphs}}) {
    if (auto it = item.find(key); it != item.end()) {
      MSDT_TRY(*list, id_list(*it, fmt::format("{}.{}", where, key)));
    }
  }
  return wp;
}

std::string_view last_part(std::string_view name) {
  auto slash = name.rfind('/');
  return slash == std::string_view::npos ? name : name.substr(slash + 1);
}

}  // namespace

std::optional<double> Watchpoint::param(std::string_view param_name) const {
  for (const ParamValue& p : params)
    if (!p.disabled && p.spec->name == param_name) return p.value;
  return std::nullopt;
}

Expected<std::vector<ParamValue>> resolve_params(const Condition& c, const GivenParams& given,
                                                 std::string_view where) {
  std::vector<ParamValue> out;
  for (const ParamSpec& spec : c.params) {
    ParamValue v;
    v.spec = &spec;
    out.push_back(v);
  }
  std::set<std::string> seen;
  for (const auto& [name, value] : given) {
    const std::string path = at(where, name);
    const ParamSpec* spec = find_param(c, name);
    if (!spec) {
      if (c.params.empty()) return Error(fmt::format("{}: {} takes no parameter", path, c.id));
      return Error(fmt::format("{}: {} takes no parameter {}; it takes {}", path, c.id,
                               quote_for_message(name), param_names(c)));
    }
    if (!seen.insert(name).second) return Error(fmt::format("{}: given more than once", path));
    ParamValue& slot = out[static_cast<size_t>(spec - c.params.data())];
    if (std::holds_alternative<std::monostate>(value)) continue;  // disabled
    if (spec->boolean) {
      if (!std::holds_alternative<bool>(value))
        return Error(fmt::format("{}: expected true or false", path));
      slot.value = std::get<bool>(value) ? 1 : 0;
    } else {
      if (!std::holds_alternative<double>(value))
        return Error(fmt::format("{}: expected a number", path));
      slot.value = std::get<double>(value);
      MSDT_CHECK(validate(*spec, slot.value, path));
    }
    slot.disabled = false;
  }
  bool any_check = false, has_check = false;
  for (ParamValue& p : out) {
    if (is_check(*p.spec)) {
      has_check = true;
      any_check |= !p.disabled;
    }
    // Hidden parameters cannot be disabled (§1.4): they always carry a value.
    if (p.spec->hidden && p.disabled && !seen.contains(std::string(p.spec->name))) {
      p.value = *p.spec->default_value;
      p.disabled = false;
    }
  }
  if (has_check && !any_check) {
    // Defaults stand in for what was not said; a parameter given as null stays disabled.
    for (ParamValue& p : out)
      if (is_check(*p.spec) && p.spec->default_value && !seen.contains(std::string(p.spec->name))) {
        p.value = *p.spec->default_value;
        p.disabled = false;
        any_check = true;
      }
    if (!any_check)
      return Error(fmt::format("{}{} needs at least one of {}", lead(where), c.id,
                               join_names(c, [](const ParamSpec& p) { return is_check(p); })));
  }
  if (c.backend == Backend::Range) {
    const ParamValue &start = out[0], &end = out[1];
    bool percentage = !out[2].disabled || !out[3].disabled;
    if (percentage && (start.disabled || end.disabled))
      return Error(fmt::format(
          "{}range_percentage_lt and range_percentage_gt need both range_start_inclusive and "
          "range_end_inclusive",
          lead(where)));
    if (!percentage && (!start.disabled || !end.disabled))
      return Error(
          fmt::format("{}range_start_inclusive and range_end_inclusive are used only with "
                      "range_percentage_lt or range_percentage_gt",
                      lead(where)));
    if (!start.disabled && !end.disabled && start.value > end.value)
      return Error(fmt::format("{}range_start_inclusive {} is above range_end_inclusive {}",
                               lead(where), spell(start.value), spell(end.value)));
  }
  return out;
}

Expected<std::vector<Watchpoint>> parse_watch_file(std::string_view text) {
  // Checked first: nlohmann's dump, which quotes a wrong value in a message, recurses once per
  // level and overflows the stack on a value nested 100 000 deep.
  if (auto at = json_nesting_beyond(text, kWatchFileMaxDepth))
    return Error::at_offset(*at, fmt::format("JSON nested deeper than {} levels (a watch file "
                                             "needs 4)",
                                             kWatchFileMaxDepth));
  json doc;
  try {
    doc = json::parse(text.begin(), text.end(), nullptr, true, /*ignore_comments=*/false);
  } catch (const json::parse_error& e) {
    // The byte position as line and column (nlohmann counts from 1, past the bad byte).
    uint64_t byte = e.byte > 0 ? e.byte - 1 : 0, line = 1, column = 1;
    for (uint64_t i = 0; i < byte && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    std::string what = e.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 2: syntax error ..."
    if (auto colon = what.find(": ", what.find("parse error")); colon != std::string::npos)
      what = what.substr(colon + 2);
    return Error::at_line(
        line, fmt::format("column {}: not valid JSON: {}", column, escape_invalid_utf8(what)));
  } catch (const json::exception& e) {
    // A number beyond a double (1e999) and the like; nlohmann's message quotes it.
    std::string what = e.what();
    if (auto bracket = what.find("] "); bracket != std::string::npos)
      what = what.substr(bracket + 2);
    return Error(fmt::format("not valid JSON: {}", escape_invalid_utf8(what)));
  }
  if (!doc.is_object() || !doc.contains("watchpoints"))
    return Error("expected an object {\"watchpoints\": [...]}");
  for (const auto& [key, value] : doc.items())
    if (key != "watchpoints")
      return Error(fmt::format("unknown key {} at the top level: expected only 'watchpoints'",
                               quote_for_message(key)));
  const json& list = doc["watchpoints"];
  if (!list.is_array()) return Error("watchpoints: expected an array");
  if (list.empty()) return Error("watchpoints: the list is empty");
  std::vector<Watchpoint> out;
  std::set<uint32_t> ids;
  for (size_t i = 0; i < list.size(); ++i) {
    MSDT_TRY(Watchpoint wp, parse_one(list[i], i));
    if (!ids.insert(wp.id).second)
      return Error(
          fmt::format("watchpoints[{}].id: {} is used by an earlier watchpoint", i, wp.id));
    out.push_back(std::move(wp));
  }
  return out;
}

Expected<Watchpoint> command_line_watchpoint(std::string_view condition,
                                             const std::vector<std::string>& params,
                                             const std::vector<std::string>& nodes,
                                             std::string_view node_regex, std::string_view io) {
  Watchpoint wp;
  wp.id = 1;
  auto found = find_condition(condition);
  if (!found) return std::move(found.error()).with_context("--condition");
  wp.condition = *found;
  GivenParams given;
  for (const std::string& p : params) {
    auto item = parse_param_argument(p);
    if (!item) return std::move(item.error()).with_context("--param");
    given.push_back(std::move(*item));
  }
  auto resolved = resolve_params(*wp.condition, given, "");
  if (!resolved) return std::move(resolved.error()).with_context("--param");
  wp.params = std::move(*resolved);
  wp.nodes = nodes;
  if (!node_regex.empty()) {
    auto compiled = compile_user_regex(node_regex);
    if (!compiled) return std::move(compiled.error()).with_context("--node-regex");
    wp.node_regex = std::move(*compiled);
    wp.node_regex_text = node_regex;
  }
  wp.io = io == "input" ? IoFilter::Input : io == "output" ? IoFilter::Output : IoFilter::Any;
  return wp;
}

Expected<std::pair<std::string, GivenValue>> parse_param_argument(std::string_view text) {
  auto eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0)
    return Error(fmt::format("{}: expected NAME=VALUE", quote_for_message(text)));
  std::string name(text.substr(0, eq));
  std::string_view value = text.substr(eq + 1);
  if (value == "true") return std::pair{name, GivenValue{true}};
  if (value == "false") return std::pair{name, GivenValue{false}};
  if (value == "null" || value == "disabled") return std::pair{name, GivenValue{}};
  double number = 0;
  if (value.starts_with('+')) value.remove_prefix(1);
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), number);
  if (value.empty() || ec != std::errc() || end != value.data() + value.size())
    return Error(fmt::format("{}: the value is not a number", quote_for_message(text)));
  return std::pair{name, GivenValue{number}};
}

std::string scope_with_underscores(std::string_view name) {
  std::string out(name);
  for (char& c : out)
    if (c == '/' || c == '\\' || c == '.' || c == ' ') c = '_';
  return out;
}

bool node_matches(std::string_view watched, std::string_view node) {
  if (watched == node || last_part(watched) == node || last_part(node) == watched) return true;
  std::string flat = scope_with_underscores(watched);
  if (flat == node) return true;
  std::string tail = "_" + scope_with_underscores(last_part(watched));
  return node.size() > tail.size() && node.ends_with(tail);
}

bool watches_node(const Watchpoint& wp, std::string_view node, std::string_view op_type) {
  if (!wp.op_types.empty()) {
    bool found = false;
    for (const std::string& t : wp.op_types) found |= (t == op_type);
    if (!found) return false;
  }
  switch (wp.node_class) {
    case Watchpoint::NodeClass::Weight:
      if (!is_weight_node(node, op_type)) return false;
      break;
    case Watchpoint::NodeClass::Gradient:
      if (!is_gradient_node(node)) return false;
      break;
    case Watchpoint::NodeClass::Any:
      break;
  }
  if (wp.node_regex) return wp.node_regex->search(node);
  if (wp.nodes.empty()) return true;
  for (const std::string& w : wp.nodes)
    if (node_matches(w, node)) return true;
  return false;
}

bool watches(const Watchpoint& wp, std::string_view node, std::string_view op_type,
             std::string_view io, std::optional<uint32_t> slot) {
  if (wp.io == IoFilter::Input && io != "input") return false;
  if (wp.io == IoFilter::Output && io != "output") return false;
  if (!wp.slots.empty()) {
    if (!slot) return false;
    bool found = false;
    for (uint32_t s : wp.slots) found |= (s == *slot);
    if (!found) return false;
  }
  return watches_node(wp, node, op_type);
}

bool watches_location(const Watchpoint& wp, std::optional<uint32_t> rank,
                      std::optional<uint32_t> graph) {
  auto in = [](const std::vector<uint32_t>& list, std::optional<uint32_t> v) {
    if (list.empty()) return true;
    if (!v) return false;
    for (uint32_t x : list)
      if (x == *v) return true;
    return false;
  };
  return in(wp.ranks, rank) && in(wp.graphs, graph);
}

bool is_gradient_node(std::string_view node) {
  return contains_ignoring_case(node, "gradients/") || contains_ignoring_case(node, "gradients_");
}

bool is_weight_node(std::string_view node, std::string_view op_type) {
  // Parameters: op type Parameter, or a 1.x name without an "-op<N>" kernel suffix (fc3.bias).
  std::string_view name = last_part(node);
  bool parameter = op_type == "Parameter" || name.find("-op") == std::string_view::npos;
  if (!parameter) return false;
  // Optimizer state and schedules are parameters but not weights.
  for (std::string_view prefix : {"moments", "accum", "global_step", "learning_rate", "beta1_power",
                                  "beta2_power", "adam_m", "adam_v", "momentum", "scale_sense",
                                  "current_iterator_step", "last_overflow_iterator_step"})
    if (name.starts_with(prefix)) return false;
  return true;
}

std::vector<Watchpoint> recommended_watchpoints() {
  std::vector<Watchpoint> out;
  auto add = [&](std::string name, std::string_view condition, GivenParams params,
                 Watchpoint::NodeClass node_class, std::vector<std::string> op_types) {
    Watchpoint wp;
    wp.id = static_cast<uint32_t>(out.size() + 1);
    wp.name = std::move(name);
    wp.condition = *find_condition(condition);
    wp.params = *resolve_params(*wp.condition, params, "recommended");
    wp.node_class = node_class;
    wp.op_types = std::move(op_types);
    out.push_back(std::move(wp));
  };
  using NC = Watchpoint::NodeClass;
  auto sigmoid = [](double x) { return 1 / (1 + std::exp(-x)); };
  add("recommend_weight_initialization_watchpoint", "weight_initialization",
      {{"zero_percentage_ge", 100.0}}, NC::Weight, {});
  add("recommend_weight_change_too_large_watchpoint", "weight_change_too_large",
      {{"abs_mean_update_ratio_gt", 1.0}}, NC::Weight, {});
  add("recommend_gradient_vanishing_watchpoint", "gradient_vanishing", {{"abs_mean_lt", 1e-9}},
      NC::Gradient, {});
  add("recommend_operator_overflow_watchpoint", "operator_overflow", {}, NC::Any, {});
  add("recommend_tensor_overflow_watchpoint", "tensor_overflow", {}, NC::Any, {});
  add("recommend_tensor_all_zero_watchpoint", "tensor_all_zero", {{"zero_percentage_ge", 100.0}},
      NC::Any, {});
  add("recommend_tanh_activation_range_watchpoint", "activation_range",
      {{"range_start_inclusive", std::tanh(-8.8)},
       {"range_end_inclusive", std::tanh(8.8)},
       {"range_percentage_lt", 0.1}},
      NC::Any, {"Tanh"});
  add("recommend_sigmoid_activation_range_watchpoint", "activation_range",
      {{"range_start_inclusive", sigmoid(-16.2)},
       {"range_end_inclusive", sigmoid(16.2)},
       {"range_percentage_lt", 0.1}},
      NC::Any, {"Sigmoid"});
  add("recommend_relu_activation_range_watchpoint", "activation_range",
      {{"range_start_inclusive", -1.0},
       {"range_end_inclusive", 0.0},
       {"range_percentage_gt", 99.9}},
      NC::Any, {"ReLU", "ReLUV2"});
  return out;
}

}  // namespace msdt::watch
