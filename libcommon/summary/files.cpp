#include "summary/files.h"

#include <fmt/format.h>

#include <algorithm>
#include <system_error>

#include "io/text.h"

namespace msdt::summary {
namespace fs = std::filesystem;

namespace {

// The digits after `marker` (searched from the left, so "summary.123.0.host.summary.x" takes
// the first), or nullopt.
std::optional<uint64_t> seconds_after(std::string_view name, std::string_view marker) {
  for (size_t at = name.find(marker); at != std::string_view::npos;
       at = name.find(marker, at + 1)) {
    size_t start = at + marker.size(), end = start;
    while (end < name.size() && name[end] >= '0' && name[end] <= '9') ++end;
    if (end > start) {
      if (auto v = parse_unsigned<uint64_t>(name.substr(start, end - start))) return v;
    }
  }
  return std::nullopt;
}

}  // namespace

std::string_view file_kind_name(FileKind kind) {
  switch (kind) {
    case FileKind::Summary:
      return "summary";
    case FileKind::Lineage:
      return "lineage";
    case FileKind::Explain:
      return "explain";
    case FileKind::TfEvents:
      return "tfevents";
    case FileKind::Other:
      return "other";
  }
  return "other";
}

SummaryName classify_summary_name(std::string_view name) {
  SummaryName out;
  if (auto t = seconds_after(name, "summary.")) {
    out.timestamp = t;
    out.kind = name.ends_with("_lineage")   ? FileKind::Lineage
               : name.ends_with("_explain") ? FileKind::Explain
                                            : FileKind::Summary;
    return out;
  }
  if (name.find("tfevents") != std::string_view::npos && !name.ends_with(".profile-empty")) {
    out.kind = FileKind::TfEvents;
    out.timestamp = seconds_after(name, "tfevents.");
  }
  return out;
}

Dialect default_dialect(FileKind kind) {
  switch (kind) {
    case FileKind::Lineage:
      return Dialect::Lineage;
    case FileKind::TfEvents:
      return Dialect::TensorFlow;
    default:
      return Dialect::MindSpore;
  }
}

Expected<std::vector<fs::path>> list_run_files(const fs::path& dir) {
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) return Error(fmt::format("cannot list the directory: {}", ec.message()));
  struct Found {
    uint64_t timestamp;
    std::string name;
  };
  std::vector<Found> found;
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) return Error(fmt::format("cannot list the directory: {}", ec.message()));
    std::string name = it->path().filename().string();
    SummaryName s = classify_summary_name(name);
    if (s.kind == FileKind::Other) continue;
    std::error_code type_ec;
    if (!it->is_regular_file(type_ec)) continue;
    found.push_back({s.timestamp.value_or(0), std::move(name)});
  }
  std::sort(found.begin(), found.end(), [](const Found& a, const Found& b) {
    if (a.timestamp != b.timestamp) return a.timestamp < b.timestamp;
    return a.name < b.name;
  });
  std::vector<fs::path> out;
  out.reserve(found.size());
  for (const Found& f : found) out.push_back(dir / f.name);
  return out;
}

Expected<std::vector<std::pair<std::string, fs::path>>> list_runs(const fs::path& base) {
  std::vector<std::pair<std::string, fs::path>> runs;
  MSDT_TRY(auto own, list_run_files(base));
  if (!own.empty()) runs.emplace_back(".", base);
  std::error_code ec;
  fs::directory_iterator it(base, ec);
  if (ec) return Error(fmt::format("cannot list the directory: {}", ec.message()));
  std::vector<std::string> names;
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) return Error(fmt::format("cannot list the directory: {}", ec.message()));
    std::error_code type_ec;
    if (it->is_directory(type_ec)) names.push_back(it->path().filename().string());
  }
  std::sort(names.begin(), names.end(),
            [](const std::string& a, const std::string& b) { return natural_less(a, b); });
  for (const std::string& n : names) {
    auto files = list_run_files(base / n);  // an unreadable one is kept: its reader says why
    if (!files || !files->empty()) runs.emplace_back(n, base / n);
  }
  return runs;
}

}  // namespace msdt::summary
