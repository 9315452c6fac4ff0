#include "dump/inventory.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>
#include <tuple>

#include "dump/dump_file.h"
#include "dump/file_roles.h"
#include "dump/side_files.h"
#include "table/format.h"

namespace msdt::dump {
namespace {

using Json = nlohmann::ordered_json;

struct Totals {
  uint64_t files = 0, tensors = 0, bytes = 0;
};

struct ExecutionHistory {
  std::optional<uint32_t> rank;
  uint32_t graph = 0;
  std::vector<uint64_t> iterations;
  std::string display;
};

struct MissingIteration {
  std::optional<uint32_t> rank;
  uint32_t graph = 0;
  uint64_t iteration = 0;
  std::string source;
};

// Missing iterations listed one by one per history file; past this the rest are only counted, so
// a huge execution-order file cannot make the report (and its memory) huge.
constexpr uint64_t kMaxListedMissing = 1000;

struct UnknownFile {
  std::string display, problem;
};

struct Inventory {
  // nullopt sorts first, so files outside any rank or iteration lead the table.
  std::map<std::pair<std::optional<uint32_t>, std::optional<uint64_t>>, Totals> groups;
  std::set<std::tuple<std::optional<uint32_t>, uint32_t, uint64_t>> iteration_dirs;
  std::vector<ExecutionHistory> histories;
  std::vector<MissingIteration> missing;  // at most kMaxListedMissing per history
  uint64_t missing_count = 0;             // all of them
  std::vector<UnknownFile> unknown;
  std::vector<std::string> empty;
};

std::string_view as_text(Bytes contents) {
  return {reinterpret_cast<const char*>(contents.data()), contents.size()};
}

class Summarizer {
 public:
  explicit Summarizer(Diagnostics& diagnostics) : diagnostics_(diagnostics) {}

  void directory(const DumpDirectory& directory) {
    if (directory.where.graph && directory.where.iteration)
      summary_.iteration_dirs.emplace(directory.where.rank, *directory.where.graph,
                                      *directory.where.iteration);
    bool has_tensors =
        std::any_of(directory.files.begin(), directory.files.end(),
                    [](const DumpFile& f) { return kind_holds_tensors(f.name.kind); });
    for (const DumpFile& file : directory.files) {
      if (file.size == 0) {
        summary_.empty.push_back(file.display);
        continue;
      }
      if (file.name.kind == FileKind::GlobalExecutionOrder) {
        history(directory, file);
        continue;
      }
      if (kind_is_side_file(file.name.kind)) continue;
      if (file.name.kind == FileKind::StatisticCsv && has_tensors) continue;
      auto mapped = open_dump_file(file);
      if (!mapped) {
        diagnostics_.error(file.display, mapped.error());
        continue;
      }
      tensors(directory, file, (*mapped)->bytes());
    }
  }

  void tensors(const DumpDirectory& directory, const DumpFile& file, Bytes contents) {
    Totals found;
    auto status = read_dump_file(file, contents, [&](const DumpTensor& tensor) {
      ++found.tensors;
      found.bytes += tensor.statistics ? tensor.statistics->data_size.value_or(0) : tensor.bytes;
    });
    if (status) {
      std::string why;
      if (is_unknown_file(file, contents, *status, why)) {
        summary_.unknown.push_back({file.display, why});
        return;
      }
      diagnostics_.error(file.display, *status);
    }
    if (found.tensors == 0 && status) return;
    Totals& group = summary_.groups[{directory.where.rank, directory.where.iteration}];
    group.files += 1;
    group.tensors += found.tensors;
    group.bytes += found.bytes;
  }

  void history(const DumpDirectory& directory, const DumpFile& file) {
    auto mapped = open_dump_file(file);
    if (!mapped) {
      diagnostics_.error(file.display, mapped.error());
      return;
    }
    auto iterations = parse_global_execution_order(as_text((*mapped)->bytes()));
    if (!iterations) {
      diagnostics_.error(file.display, iterations.error());
      return;
    }
    // Repeated lines count once (§6.2); kept sorted and unique, 8 bytes per iteration.
    std::sort(iterations->begin(), iterations->end());
    iterations->erase(std::unique(iterations->begin(), iterations->end()), iterations->end());
    iterations->shrink_to_fit();
    summary_.histories.push_back({directory.where.rank, file.name.graph_id.value_or(0),
                                  std::move(*iterations), file.display});
  }

  Inventory finish() {
    for (const ExecutionHistory& h : summary_.histories) {
      uint64_t listed = 0;
      for (uint64_t iteration : h.iterations) {
        if (summary_.iteration_dirs.count({h.rank, h.graph, iteration})) continue;
        ++summary_.missing_count;
        if (listed++ < kMaxListedMissing)
          summary_.missing.push_back({h.rank, h.graph, iteration, h.display});
      }
    }
    return std::move(summary_);
  }

 private:
  Diagnostics& diagnostics_;
  Inventory summary_;
};

std::string text_of(const std::optional<uint32_t>& value) {
  return value ? std::to_string(*value) : "-";
}
std::string text_of(const std::optional<uint64_t>& value) {
  return value ? std::to_string(*value) : "-";
}

void print_text(const Inventory& summary, std::ostream& out) {
  std::vector<std::vector<std::string>> table = {
      {"rank", "iteration", "files", "tensors", "bytes"}};
  Totals total;
  for (const auto& [key, totals] : summary.groups) {
    table.push_back({text_of(key.first), text_of(key.second), std::to_string(totals.files),
                     std::to_string(totals.tensors), std::to_string(totals.bytes)});
    total.files += totals.files;
    total.tensors += totals.tensors;
    total.bytes += totals.bytes;
  }
  table.push_back({"total", "-", std::to_string(total.files), std::to_string(total.tensors),
                   std::to_string(total.bytes)});
  std::string text = table::align_columns(table);
  text += fmt::format("\nmissing iterations: {}\n", summary.missing_count);
  for (const MissingIteration& m : summary.missing)
    text += fmt::format("  rank {} graph {} iteration {}: listed in '{}' but not on disk\n",
                        text_of(m.rank), m.graph, m.iteration, printable_path(m.source));
  if (summary.missing_count > summary.missing.size())
    text += fmt::format("  {} more not listed (at most {} per execution-order file)\n",
                        summary.missing_count - summary.missing.size(), kMaxListedMissing);
  text += fmt::format("unknown files: {}\n", summary.unknown.size());
  for (const UnknownFile& u : summary.unknown)
    text += fmt::format("  '{}': {}\n", printable_path(u.display), u.problem);
  text += fmt::format("empty files: {}\n", summary.empty.size());
  for (const std::string& e : summary.empty) text += fmt::format("  '{}'\n", printable_path(e));
  out << text;
}

template <class T>
Json optional_json(const std::optional<T>& value) {
  return value ? Json(*value) : Json(nullptr);
}

void print_json(const Inventory& summary, std::ostream& out) {
  Json doc = Json::object();
  Json groups = Json::array();
  Totals total;
  for (const auto& [key, totals] : summary.groups) {
    Json g = Json::object();
    g["rank"] = optional_json(key.first);
    g["iteration"] = optional_json(key.second);
    g["files"] = totals.files;
    g["tensors"] = totals.tensors;
    g["bytes"] = totals.bytes;
    groups.push_back(std::move(g));
    total.files += totals.files;
    total.tensors += totals.tensors;
    total.bytes += totals.bytes;
  }
  doc["iterations"] = std::move(groups);
  doc["total"] = Json{{"files", total.files}, {"tensors", total.tensors}, {"bytes", total.bytes}};
  Json missing = Json::array();
  for (const MissingIteration& m : summary.missing)
    missing.push_back(Json{{"rank", optional_json(m.rank)},
                           {"graph", m.graph},
                           {"iteration", m.iteration},
                           {"source", m.source}});
  doc["missing_iterations"] = std::move(missing);
  if (summary.missing_count > summary.missing.size())
    doc["missing_iterations_not_listed"] = summary.missing_count - summary.missing.size();
  Json unknown = Json::array();
  for (const UnknownFile& u : summary.unknown)
    unknown.push_back(Json{{"file", u.display}, {"problem", u.problem}});
  doc["unknown_files"] = std::move(unknown);
  Json empty = Json::array();
  for (const std::string& e : summary.empty) empty.push_back(e);
  doc["empty_files"] = std::move(empty);
  out << table::to_json_text(doc, 2) << '\n';
}

}  // namespace

void take_inventory(std::span<const std::string> paths, const InventoryOptions& options,
                    std::ostream& out, Diagnostics& diagnostics) {
  Summarizer summarizer(diagnostics);
  WalkCallbacks callbacks;
  callbacks.directory = [&](const DumpDirectory& directory) { summarizer.directory(directory); };
  callbacks.error = [&](const std::string& display, const Error& error) {
    diagnostics.error(display, error);
  };
  callbacks.warning = [&](const std::string& display, const Error& w) {
    diagnostics.warning(display, w);
  };
  walk_dump_tree(paths, callbacks);
  Inventory summary = summarizer.finish();
  if (options.json)
    print_json(summary, out);
  else
    print_text(summary, out);
  out.flush();
}

}  // namespace msdt::dump
