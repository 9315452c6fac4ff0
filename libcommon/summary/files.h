// Which files are summary files, and in which order a run's files are read (spec summary.md §2,
// §14.1, §15.1).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/error.h"
#include "summary/event.h"

namespace msdt::summary {

enum class FileKind : uint8_t {
  Summary,   // `…summary.<seconds>…` with any suffix but the two below (`_MS` by default)
  Lineage,   // `…summary.<seconds>…_lineage`
  Explain,   // `…summary.<seconds>…_explain`
  TfEvents,  // a name containing `tfevents` (not `.profile-empty`)
  Other,
};

std::string_view file_kind_name(FileKind kind);

struct SummaryName {
  FileKind kind = FileKind::Other;
  std::optional<uint64_t> timestamp;  // the seconds in `summary.<seconds>` / `tfevents.<seconds>`
};

// From the file name alone; hostnames with dots and names with or without a device id are fine.
SummaryName classify_summary_name(std::string_view filename);

// The dialect a file of this kind is decoded in, before its first record confirms it.
Dialect default_dialect(FileKind kind);

// A run directory's summary files (not recursive), ordered by the timestamp in their names, then
// by name; other files are left out.
Expected<std::vector<std::filesystem::path>> list_run_files(const std::filesystem::path& dir);

// `--runs BASE`: BASE itself when it holds summary files (run "."), then each direct
// subdirectory that does, in natural name order.
Expected<std::vector<std::pair<std::string, std::filesystem::path>>> list_runs(
    const std::filesystem::path& base);

}  // namespace msdt::summary
