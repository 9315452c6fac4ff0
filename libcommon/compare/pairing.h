// Pairing the tensors of two dumps for dump-compare (compare spec §3.5, §12.2): which tensor of
// "my" dump (the one under test) is compared with which tensor of the golden dump, decided from
// names alone. No tensor data is read: a file that holds one tensor is paired by its name (after
// mapping.csv, as the walker resolves it), and only a DumpData container (one tensor per input
// and output slot), statistic.csv (one tensor per row) and a file whose name no grammar knows are
// opened, and of those only the header or text is read.
//
// The rules:
// * Directories. Each tensor directory gets a key: its rank, net, graph and iteration (or
//   `constants`) as the walker reads them from the layout (dump spec §2), whatever the spelling
//   (rank_0 of 1.3+ and device_0 of 1.1/1.2 are both rank 0; the time directories of O2 and
//   msprobe are not part of it). Only the levels whose directories lie below the input the user
//   gave count (an iteration directory given as input pairs with any other), and only the levels
//   both inputs have below them (1.1/1.2 has no graph level, so against a 1.3+ tree the graph is
//   left out). A directory outside every known layout is keyed by its path below the input.
//   Directories are paired by equal keys; a directory holding tensors on one side only is listed
//   in `groups` with the other side empty, and its tensors are unmatched rows.
// * Tensors. Within a pair of directories the key is (name, io, slot, occurrence) where `name` is
//   the op name spelled for pairing (key_spelling: "--", '/', '\\', '.' and ' ' all as '_', so a
//   1.1/1.2 `.bin` name, a DumpData name and a 2.3+ `.npy` name of one node agree; the 1.3-2.2
//   `.npy` names without scope need a rename file), after renaming on my side, and `occurrence`
//   numbers the tensors of one (name, io, slot) from 0 in timestamp order (then file order).
//   PairOptions::key_task_id adds the task id (msprobe); PairOptions::last_only keeps the last
//   occurrence only (msaccucmp), the earlier ones listed as superseded.
// * Two single files (or standard input) pair whatever their op names: by (io, slot, occurrence),
//   and when each holds exactly one tensor, that tensor with the other (msaccucmp file_compare).
//
// The order of `rows` is stable and documented for the tool's output (spec §12.8):
// * directory groups by iteration, rank, graph, net, then constants and path (absent values
//   first), as watch-check orders its records;
// * within a group, first the rows of every tensor of my side, matched or not, in my side's
//   execution order when the directory has one (`execution_order/ms_execution_order_graph_G.csv`
//   of its rank, or of the device directory in 1.1/1.2, read even when the input is an iteration
//   directory below it): by the op's place in that file, then occurrence, inputs before outputs,
//   slot; tensors whose op the file does not list, and every tensor of a directory without an
//   execution order, follow in timestamp order, then file name order (natural order; the only
//   order 1.1/1.2 `.bin` files have), then io and slot;
// * then the rows of the golden tensors that matched nothing, in the same order on the golden
//   side.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dump/dump_file.h"
#include "dump/tree.h"
#include "io/error.h"

namespace msdt::compare {

enum class Side { Mine, Golden };
std::string_view side_name(Side side);  // "my", "golden"

// --- rename file --------------------------------------------------------------------------------

// One line of a rename file: my op name and the golden op name it is compared with.
struct Rename {
  std::string mine, golden;
  uint64_t line = 0;
};

// The rename file (spec §3.5 item 5): CSV (RFC 4180, io/csv.h), one rename per line, two fields
// `my name,golden name`, no header. Blanks around an unquoted field are ignored; a field may be
// quoted (a name holding a comma), but not over several lines. A line whose first non-blank
// character is '#' is a comment, and blank lines are skipped; a UTF-8 byte-order mark at the start
// is ignored. Errors name the line: a line without exactly two fields, an empty name, my name given
// twice, or one golden name given for two of my names (their tensors would share keys).
Expected<std::vector<Rename>> parse_rename_file(std::string_view text);
// The same for a file on disk; the error also says when the file cannot be read.
Expected<std::vector<Rename>> read_rename_file(const std::filesystem::path& path);

// An op name as pairing compares it: "--" (1.1/1.2 scope separator), '/', '\\', '.' and ' ' all
// written '_' (dump spec §3.1, §3.2, §3.4).
std::string key_spelling(std::string_view op_name);

// --- options and result -------------------------------------------------------------------------

struct PairOptions {
  bool key_task_id = false;  // --key-task-id: task_id is part of the key (msprobe, spec §3.4)
  bool last_only = false;    // --last-only: only the last occurrence of a key (msaccucmp, §3.1.6)
  bool exact_names = false;  // compare op names as written, without key_spelling
  // --rename: applied to my side's op names before pairing. My name matches the op name as the
  // dump writes it, or as key_spelling writes it.
  std::vector<Rename> renames;
  unsigned jobs = 1;  // workers opening DumpData containers and unknown files
};

// Where a directory's tensors pair: the levels counted for this comparison (see above), the rest
// absent.
struct DirectoryKey {
  std::optional<uint64_t> iteration;
  std::optional<uint32_t> rank;
  std::optional<uint32_t> graph;
  std::optional<std::string> net;
  bool constants = false;
  std::string path;  // below the input, for directories outside every known layout

  // "rank 0, net Net, graph 0, iteration 3"; "the input" when nothing is keyed.
  std::string describe() const;
  auto operator<=>(const DirectoryKey&) const = default;
};

// A directory of one side that holds tensors.
struct SideDirectory {
  std::filesystem::path path;
  std::string display;  // as the walker spells it, starting with the input
  dump::DumpLocation where;
  DirectoryKey key;                            // the pairing key (levels of both sides only)
  std::optional<std::string> execution_order;  // display of the execution-order file used
};

// One tensor of one side: which file holds it and which of its tensors it is.
struct TensorRef {
  enum class Source {
    File,           // the file is the tensor (npy, .bin, msprobe raw)
    ContainerSlot,  // one input or output of a DumpData container: `io` and `slot`
    StatisticRow,   // one row of statistic.csv: `statistic_line`
  };
  Source source = Source::File;
  size_t file = 0;       // index into PairedSide::files
  size_t directory = 0;  // index into PairedSide::directories
  std::optional<uint64_t> statistic_line;
  std::string op_type, op_name;  // as the dump names them (mapping.csv resolved)
  std::string key_name;          // renamed (my side) and spelled for pairing
  std::optional<dump::Io> io;
  std::optional<uint32_t> slot;
  std::optional<uint64_t> task_id, stream_id, timestamp;
  uint64_t occurrence = 0;                  // among tensors of one key in the directory group
  std::optional<uint64_t> execution_index;  // the op's place in the execution order
};

// Whether `tensor`, visited by read_dump_file on the file of `ref`, is the referenced tensor.
bool is_referenced(const TensorRef& ref, const dump::DumpTensor& tensor);

// A file that holds tensors but is not paired: overflow records.
struct SkippedFile {
  size_t file = 0;
  std::string reason;
};

struct PairedSide {
  std::string input;                       // the path the user gave
  std::vector<dump::DumpFile> files;       // every file a TensorRef points to (and skipped ones)
  std::vector<SideDirectory> directories;  // directories holding tensors, in walk order
  std::vector<TensorRef> superseded;       // last_only: earlier occurrences, not compared
  std::vector<SkippedFile> skipped;
  uint64_t tensors = 0;  // every tensor found, superseded ones included
};

// Directories of both sides with one key; a side may be empty (a directory on one side only).
struct DirectoryGroup {
  DirectoryKey key;
  std::vector<size_t> mine, golden;  // indices into PairedSide::directories
};

// One row of the comparison: a pair, or a tensor of one side that matched nothing.
struct PairRow {
  size_t group = 0;  // index into Pairing::groups
  std::optional<TensorRef> mine, golden;
};

struct PairCounts {
  uint64_t pairs = 0, only_mine = 0, only_golden = 0;
  uint64_t superseded_mine = 0, superseded_golden = 0;
  uint64_t directories_only_mine = 0, directories_only_golden = 0;
};

// A problem with one file or directory of one side; the pairing went on without it.
struct Problem {
  Side side = Side::Mine;
  std::string file;  // display path
  Error error;
  bool warning = false;  // unknown files, skipped entries; errors are damage
};

struct Pairing {
  PairedSide mine, golden;
  std::vector<DirectoryGroup> groups;  // in the order of rows
  std::vector<PairRow> rows;
  PairCounts counts;
  std::vector<Problem> problems;  // in walk order, my side first
};

// Pairs the tensors of `mine` and `golden` (each a dump tree, a directory within one, a single
// file, or "-" for standard input on one side). Damaged and unknown files, unreadable
// execution-order files and directories that collapse onto one key are `problems`; an Error only
// when an input itself cannot be read (missing, not a file or directory, an unreadable
// directory), naming the side: "my dump: cannot open: ...".
Expected<Pairing> pair_dumps(const std::string& mine, const std::string& golden,
                             const PairOptions& options);

}  // namespace msdt::compare
