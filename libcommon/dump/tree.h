// Walking dump trees: every file under the paths a user gives, grouped by directory, with its
// place in the layout (rank, net, graph, iteration) read from the directory names (dump spec §2)
// and its name classified (§3). Numeric names are resolved through the directory's mapping.csv
// first (§3.8). Directories and files are visited in name order, so output is stable.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "dump/file_name.h"
#include "io/error.h"
#include "io/mapped_file.h"

namespace msdt::dump {

// MindSpore names the directory of iteration UINT32_MAX (tensors dumped before the first step)
// "init" (watchpoints spec §3.1); we report it with that number, as MindSpore does.
inline constexpr uint64_t kInitIteration = 4294967295u;

struct DumpLocation {
  std::optional<uint32_t> rank;       // rank_N; device_N in 1.1/1.2; {device_id} in O2
  std::string net;                    // net_name; model_name in O2; empty when unknown
  std::optional<uint32_t> graph;      // graph_id; model_id in O2
  std::optional<uint64_t> iteration;  // iteration_N, {iteration}, step_N
  bool constants = false;             // {graph}/constants/
  // "sync-1.1" (format A), "async-1.1" (B), "rank" (C–G), "o2" (H), "msprobe" (J), "" unknown.
  std::string layout;
  // Which directory names each level of the layout: how many directories above the one holding
  // the file (0), for the levels this layout has (set whether or not the name gave a value:
  // constants/ and the side directories stand where the iteration's directory would).
  // dump-compare uses them to tell which levels lie below the directory a user gave.
  struct Depths {
    std::optional<size_t> iteration = {}, graph = {}, net = {}, rank = {};
  };
  Depths depth;
};

// Reads the layout from the directory names that lead to a file, nearest last.
DumpLocation locate(std::span<const std::string> directories);

struct DumpFile {
  std::filesystem::path path;  // openable
  std::string display;         // as printed: the argument the user gave, then the relative part
  std::string stored_name;     // the name on disk (a numeric mapped name stays here)
  DumpFileName name;           // parsed from the original name when mapping.csv has it
  uint64_t size = 0;
  // For "-": standard input, read once by the walk because it cannot be opened again.
  std::shared_ptr<const MappedFile> standard_input;
};

// The bytes of a walked file: mapped, or what the walk read from standard input.
// Reading::Whole when every byte will be read (see MappedFile::open).
Expected<std::shared_ptr<const MappedFile>> open_dump_file(const DumpFile& file,
                                                           Reading reading = Reading::Parts);

struct DumpDirectory {
  std::filesystem::path path;
  std::string display;
  DumpLocation where;
  std::vector<DumpFile> files;  // regular files directly inside, by name
};

struct WalkCallbacks {
  // The directory is the walk's own: the callee may move its files out (dump-convert keeps them
  // all, and copying each path again costs more than reading a small file).
  std::function<void(DumpDirectory&)> directory;
  // A path that could not be read (missing, permission, a bad mapping.csv); the walk goes on.
  std::function<void(const std::string& display, const Error&)> error;
  // Something in a tree that is skipped but must not go unsaid: a FIFO, socket or device ("not a
  // regular file", never opened), a dangling symbolic link, a directory reached a second time
  // through a symbolic link (a loop). Not set: these pass silently.
  std::function<void(const std::string& display, const Error&)> warning;
};

// Each root may be a directory (walked recursively; symbolic links to directories are followed,
// each directory at most once per root, so a link loop ends with a warning), a file (visited as a
// directory of one file), or "-": standard input, which has no name to go by and so must be an
// npy file or a DumpData container, recognised by content. Its first bytes decide before more is
// read, and a pipe is kept in memory up to MappedFile::kStdinLimit. Hidden directories such as
// .dump_metadata are walked.
void walk_dump_tree(std::span<const std::string> roots, const WalkCallbacks& callbacks);

}  // namespace msdt::dump
