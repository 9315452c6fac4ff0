#include "watch/report.h"

#include <fmt/format.h>

#include <cmath>
#include <ostream>

#include "io/report.h"
#include "io/text.h"
#include "table/format.h"

namespace msdt::watch {
namespace {

using table::Cell;
using json = nlohmann::ordered_json;

Cell optional_u32(std::optional<uint32_t> v) {
  if (!v) return std::monostate{};
  return uint64_t{*v};
}

json double_json(double v) {
  // NaN as null; infinities stay doubles, which our JSON writer spells 1e999 / -1e999.
  if (std::isnan(v)) return nullptr;
  return v;
}

std::string io_slot(const CheckedTensor& t) {
  if (t.io.empty()) return t.slot ? fmt::format("{}", *t.slot) : "-";
  return t.slot ? fmt::format("{}:{}", t.io, *t.slot) : t.io;
}

std::string condition_label(const Watchpoint& wp) { return std::string(wp.condition->id); }

// XML attribute and text escaping; bytes that are not valid UTF-8 or not allowed in XML 1.0
// (controls other than tab, LF, CR) are written as \xNN text.
std::string xml_escape(std::string_view text) {
  std::string printable = escape_invalid_utf8(text);
  std::string out;
  for (char c : printable) {
    auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        if (u < 0x20 && c != '\t' && c != '\n' && c != '\r')
          out += fmt::format("\\x{:02x}", u);
        else
          out += c;
    }
  }
  return out;
}

std::string tensor_label(const Record& r) {
  const CheckedTensor& t = r.tensor;
  std::string where;
  if (t.rank) where += fmt::format("rank {} ", *t.rank);
  if (t.graph) where += fmt::format("graph {} ", *t.graph);
  return fmt::format("{}{} {}: {}", where, t.node, io_slot(t), record_detail(r));
}

}  // namespace

const table::Schema& record_schema() {
  static const table::Schema schema(
      {"iteration", "rank",   "graph",      "node",      "op_type",      "io",    "slot",
       "file",      "source", "watchpoint", "condition", "condition_id", "hit",   "error_code",
       "errors",    "params", "reason",     "order",     "io_slot",      "detail"},
      {"iteration", "rank", "node", "io_slot", "condition", "detail"});
  return schema;
}

std::string record_detail(const Record& r) {
  const Verdict& v = r.verdict;
  if (v.error_code != 0) {
    std::string names;
    for (std::string_view n : error_names(v.error_code))
      names += (names.empty() ? "" : ",") + std::string(n);
    return v.reason.empty() ? fmt::format("error {} ({})", v.error_code, names)
                            : fmt::format("error {} ({}): {}", v.error_code, names, v.reason);
  }
  std::string out;
  for (const ParamOutcome& p : v.params) {
    if (p.disabled || !p.actual) continue;
    if (!v.hit || p.hit)
      out += fmt::format("{}{} {}: actual {}", out.empty() ? "" : "; ", p.spec->name,
                         table::format_double(p.value), table::format_double(*p.actual));
  }
  if (!out.empty()) return out;
  switch (r.watchpoint->condition->backend) {
    case Backend::HasNan:
    case Backend::HasInf:
    case Backend::GeneralOverflow:
      return v.hit ? "NaN or Inf present" : "no NaN or Inf";
    case Backend::IsOverflow:
      return v.hit ? "named by an Opdebug overflow file" : "no overflow file names it";
    case Backend::NotChanged:
      return v.hit ? "unchanged since the previous iteration" : "changed";
    default:
      return v.hit ? "hit" : "no hit";
  }
}

table::Record to_row(const Record& r) {
  const Verdict& v = r.verdict;
  const CheckedTensor& t = r.tensor;
  json errors = json::array();
  for (std::string_view n : error_names(v.error_code)) errors.push_back(n);
  json params = json::array();
  std::string params_text;
  for (const ParamOutcome& p : v.params) {
    json item;
    item["name"] = p.spec->name;
    if (p.spec->boolean)
      item["value"] = p.value != 0;
    else
      item["value"] = double_json(p.value);
    item["disabled"] = p.disabled;
    item["hit"] = p.hit;
    item["actual"] = p.actual ? double_json(*p.actual) : json(nullptr);
    params.push_back(std::move(item));
    if (!p.disabled)
      params_text += fmt::format("{}{}={}", params_text.empty() ? "" : ",", p.spec->name,
                                 table::format_double(p.value));
  }
  std::string errors_text;
  for (std::string_view n : error_names(v.error_code))
    errors_text += (errors_text.empty() ? "" : ",") + std::string(n);
  return {
      t.iteration ? Cell{*t.iteration} : Cell{},
      optional_u32(t.rank),
      optional_u32(t.graph),
      t.node.empty() ? Cell{} : Cell{t.node},
      t.op_type.empty() ? Cell{} : Cell{t.op_type},
      t.io.empty() ? Cell{} : Cell{t.io},
      optional_u32(t.slot),
      t.file,
      t.source,
      uint64_t{r.watchpoint->id},
      condition_label(*r.watchpoint),
      uint64_t{static_cast<uint64_t>(r.watchpoint->condition->backend)},
      v.hit,
      uint64_t{v.error_code},
      table::Composite{errors_text, errors},
      table::Composite{params_text, params},
      v.reason.empty() ? Cell{} : Cell{v.reason},
      r.order,
      io_slot(t),
      record_detail(r),
  };
}

Tally::Tally(table::Sink* sink, uint64_t max_hits, bool keep_junit, bool keep_summary,
             double fp16_limit)
    : sink_(sink),
      max_hits_(max_hits),
      keep_junit_(keep_junit),
      keep_summary_(keep_summary),
      fp16_limit_(fp16_limit) {}

bool Tally::record(const Record& r) {
  if (r.verdict.hit) ++hits_;
  if (r.verdict.error_code != 0) ++errors_;
  if (sink_) sink_->row(to_row(r));
  if (keep_junit_) {
    Case& c = cases_[{r.watchpoint->id, r.tensor.iteration.value_or(kUnknownIteration)}];
    if (r.verdict.hit) c.failures.push_back(tensor_label(r));
    if (r.verdict.error_code != 0) c.errors.push_back(tensor_label(r));
  }
  if (keep_summary_) {
    IterationCounts& counts = iterations_[r.tensor.iteration.value_or(kUnknownIteration)];
    if (r.verdict.hit) ++counts.hits[condition_label(*r.watchpoint)];
    if (r.verdict.error_code != 0) ++counts.errors[condition_label(*r.watchpoint)];
  }
  if (max_hits_ != 0 && hits_ >= max_hits_) {
    stopped_ = true;
    return false;
  }
  return true;
}

void Tally::tensor(const CheckedTensor& t) {
  if (!keep_summary_) return;
  ++iterations_[t.iteration.value_or(kUnknownIteration)].tensors;
  bool beyond =
      (t.min && std::fabs(*t.min) > fp16_limit_) || (t.max && std::fabs(*t.max) > fp16_limit_);
  if (beyond) out_of_range_.push_back(t);
}

void Tally::evaluated(const Watchpoint& wp, std::optional<uint64_t> iteration, uint64_t tensors) {
  watchpoints_[wp.id] = &wp;
  if (keep_junit_) cases_[{wp.id, iteration.value_or(kUnknownIteration)}].tensors += tensors;
}

void Tally::write_junit(std::ostream& out) const {
  uint64_t tests = 0, failures = 0, errors = 0;
  for (const auto& [key, c] : cases_) {
    ++tests;
    failures += !c.failures.empty();
    errors += !c.errors.empty() && c.failures.empty();
  }
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << fmt::format(
      "<testsuites name=\"watch-check\" tests=\"{}\" failures=\"{}\" errors=\"{}\">\n", tests,
      failures, errors);
  auto it = cases_.begin();
  while (it != cases_.end()) {
    uint32_t id = it->first.first;
    auto wp_it = watchpoints_.find(id);
    const Watchpoint* wp = wp_it == watchpoints_.end() ? nullptr : wp_it->second;
    std::string suite = wp ? fmt::format("watchpoint {} {}", id, condition_label(*wp))
                           : fmt::format("watchpoint {}", id);
    if (wp && !wp->name.empty()) suite += " " + wp->name;
    auto end = it;
    uint64_t t = 0, f = 0, e = 0;
    for (; end != cases_.end() && end->first.first == id; ++end) {
      ++t;
      f += !end->second.failures.empty();
      e += !end->second.errors.empty() && end->second.failures.empty();
    }
    out << fmt::format(
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"0\" "
        "time=\"0\">\n",
        xml_escape(suite), t, f, e);
    for (; it != end; ++it) {
      const Case& c = it->second;
      uint64_t iteration = it->first.second;
      out << fmt::format(
          "    <testcase classname=\"watch-check.watchpoint{}\" name=\"iteration {}\" "
          "time=\"0\">\n",
          id, iteration == kUnknownIteration ? std::string("unknown") : std::to_string(iteration));
      auto body = [&](const std::vector<std::string>& lines) {
        std::string text;
        for (const std::string& l : lines) text += xml_escape(l) + "\n";
        return text;
      };
      if (!c.failures.empty())
        out << fmt::format(
            "      <failure type=\"hit\" message=\"{} of {} tensors hit\">{}</failure>\n",
            c.failures.size(), c.tensors, body(c.failures));
      else if (!c.errors.empty())
        out << fmt::format(
            "      <error type=\"check failed\" message=\"{} of {} tensors could not be "
            "checked\">{}</error>\n",
            c.errors.size(), c.tensors, body(c.errors));
      if (!c.failures.empty() && !c.errors.empty())
        out << fmt::format("      <system-out>{}</system-out>\n", body(c.errors));
      out << "    </testcase>\n";
    }
    out << "  </testsuite>\n";
  }
  out << "</testsuites>\n";
}

void Tally::write_summary(std::ostream& out, bool as_json) const {
  if (as_json) {
    json doc;
    json per = json::array();
    for (const auto& [iteration, c] : iterations_) {
      json item;
      item["iteration"] = iteration == kUnknownIteration ? json(nullptr) : json(iteration);
      item["tensors"] = c.tensors;
      item["hits"] = json::object();
      for (const auto& [k, n] : c.hits) item["hits"][k] = n;
      item["errors"] = json::object();
      for (const auto& [k, n] : c.errors) item["errors"][k] = n;
      per.push_back(std::move(item));
    }
    doc["iterations"] = std::move(per);
    doc["fp16_limit"] = fp16_limit_;
    json beyond = json::array();
    for (const CheckedTensor& t : out_of_range_) {
      json item;
      item["iteration"] = t.iteration ? json(*t.iteration) : json(nullptr);
      item["rank"] = t.rank ? json(*t.rank) : json(nullptr);
      item["graph"] = t.graph ? json(*t.graph) : json(nullptr);
      item["node"] = t.node;
      item["io"] = t.io.empty() ? json(nullptr) : json(t.io);
      item["slot"] = t.slot ? json(*t.slot) : json(nullptr);
      item["min"] = t.min ? double_json(*t.min) : json(nullptr);
      item["max"] = t.max ? double_json(*t.max) : json(nullptr);
      item["file"] = t.file;
      beyond.push_back(std::move(item));
    }
    doc["beyond_fp16_limit"] = std::move(beyond);
    doc["hits"] = hits_;
    doc["errors"] = errors_;
    out << table::to_json_text(doc, 2) << '\n';
    return;
  }
  std::vector<std::vector<std::string>> rows{{"iteration", "tensors", "hits", "errors"}};
  auto per_condition = [](const std::map<std::string, uint64_t>& m) {
    if (m.empty()) return std::string("0");
    std::string s;
    for (const auto& [k, n] : m) s += fmt::format("{}{} {}", s.empty() ? "" : ", ", k, n);
    return s;
  };
  for (const auto& [iteration, c] : iterations_)
    rows.push_back({iteration == kUnknownIteration ? "-" : std::to_string(iteration),
                    std::to_string(c.tensors), per_condition(c.hits), per_condition(c.errors)});
  out << table::align_columns(rows);
  out << fmt::format("\n{} tensor(s) with |min| or |max| above {}\n", out_of_range_.size(),
                     table::format_double(fp16_limit_));
  if (!out_of_range_.empty()) {
    std::vector<std::vector<std::string>> lines{{"iteration", "rank", "node", "io", "min", "max"}};
    for (const CheckedTensor& t : out_of_range_)
      lines.push_back({t.iteration ? std::to_string(*t.iteration) : "-",
                       t.rank ? std::to_string(*t.rank) : "-", printable_path(t.node), io_slot(t),
                       t.min ? table::format_double(*t.min) : "-",
                       t.max ? table::format_double(*t.max) : "-"});
    out << table::align_columns(lines);
  }
}

}  // namespace msdt::watch
