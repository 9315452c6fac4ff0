#include "compare/pairing.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <system_error>
#include <tuple>
#include <unordered_map>

#include "dump/file_roles.h"
#include "dump/side_files.h"
#include "io/csv.h"
#include "io/mapped_file.h"
#include "io/parallel.h"
#include "io/report.h"
#include "io/text.h"

namespace msdt::compare {
namespace {

namespace fs = std::filesystem;
using dump::DumpDirectory;
using dump::DumpFile;
using dump::DumpTensor;
using dump::FileKind;

constexpr uint64_t kLast = std::numeric_limits<uint64_t>::max();

std::string_view as_text(Bytes bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

}  // namespace

std::string_view side_name(Side side) { return side == Side::Mine ? "my" : "golden"; }

// --- rename file --------------------------------------------------------------------------------

Expected<std::vector<Rename>> parse_rename_file(std::string_view text) {
  std::vector<Rename> renames;
  std::unordered_map<std::string, uint64_t> mine_line;
  std::unordered_map<std::string, size_t> golden_of;  // golden name -> index in renames
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  uint64_t line_number = 0;
  while (!text.empty()) {
    size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    ++line_number;
    if (line.ends_with('\r')) line.remove_suffix(1);
    std::string_view content = trim_blanks(line);
    if (content.empty() || content.front() == '#') continue;
    // One line at a time: a comment may hold anything, and names never span lines.
    CsvReader reader(line);
    auto row = reader.next_row();
    if (!row) return Error::at_line(line_number, row.error().message);
    std::vector<std::string> fields = row->value_or(std::vector<std::string>{});
    if (fields.size() != 2)
      return Error::at_line(
          line_number,
          fmt::format("expected 2 fields (my name, golden name), found {}", fields.size()));
    Rename rename{std::string(trim_blanks(fields[0])), std::string(trim_blanks(fields[1])),
                  line_number};
    if (rename.mine.empty()) return Error::at_line(line_number, "my name is empty");
    if (rename.golden.empty()) return Error::at_line(line_number, "golden name is empty");
    if (auto [it, added] = mine_line.emplace(rename.mine, line_number); !added)
      return Error::at_line(line_number, fmt::format("my name {} is already renamed on line {}",
                                                     quote_for_message(rename.mine), it->second));
    if (auto [it, added] = golden_of.emplace(rename.golden, renames.size()); !added) {
      const Rename& first = renames[it->second];
      return Error::at_line(
          line_number,
          fmt::format("golden name {} is already the golden name of {} on line {}: two of my "
                      "ops would share one key",
                      quote_for_message(rename.golden), quote_for_message(first.mine), first.line));
    }
    renames.push_back(std::move(rename));
  }
  return renames;
}

Expected<std::vector<Rename>> read_rename_file(const std::filesystem::path& path) {
  MSDT_TRY(MappedFile file, MappedFile::open(path, Reading::Whole));
  return parse_rename_file(as_text(file.bytes()));
}

std::string key_spelling(std::string_view op_name) {
  std::string out;
  out.reserve(op_name.size());
  for (size_t i = 0; i < op_name.size(); ++i) {
    char c = op_name[i];
    if (c == '-' && i + 1 < op_name.size() && op_name[i + 1] == '-') {
      out += '_';  // 1.1/1.2 write '/' as "--" (dump spec §3.1)
      ++i;
    } else if (c == '/' || c == '\\' || c == '.' || c == ' ') {
      out += '_';  // 2.3+ and DumpData names (§3.2, §3.4)
    } else {
      out += c;
    }
  }
  return out;
}

std::string DirectoryKey::describe() const {
  std::vector<std::string> parts;
  if (rank) parts.push_back(fmt::format("rank {}", *rank));
  if (net) parts.push_back(fmt::format("net {}", *net));
  if (graph) parts.push_back(fmt::format("graph {}", *graph));
  if (constants)
    parts.push_back("constants");
  else if (iteration == dump::kInitIteration)
    parts.push_back("iteration init");
  else if (iteration)
    parts.push_back(fmt::format("iteration {}", *iteration));
  if (!path.empty()) parts.push_back(fmt::format("directory {}", quote_for_message(path)));
  if (parts.empty()) return "the input";
  return fmt::format("{}", fmt::join(parts, ", "));
}

bool is_referenced(const TensorRef& ref, const dump::DumpTensor& tensor) {
  switch (ref.source) {
    case TensorRef::Source::File:
      return true;
    case TensorRef::Source::ContainerSlot:
      return ref.io && tensor.io == dump::io_name(*ref.io) && tensor.slot == ref.slot;
    case TensorRef::Source::StatisticRow:
      return tensor.statistics && ref.statistic_line &&
             tensor.statistics->line == *ref.statistic_line;
  }
  return false;
}

namespace {

// --- directory levels ---------------------------------------------------------------------------

// Which layout levels a directory key may hold.
struct Levels {
  bool iteration = false, graph = false, net = false, rank = false, path = false;
  Levels operator|(const Levels& o) const {
    return {iteration || o.iteration, graph || o.graph, net || o.net, rank || o.rank,
            path || o.path};
  }
  Levels operator&(const Levels& o) const {
    return {iteration && o.iteration, graph && o.graph, net && o.net, rank && o.rank,
            path && o.path};
  }
};

// The levels named by directories below the input: `depth` directories lie between the input and
// the directory holding the files.
Levels levels_below_input(const dump::DumpLocation& w, size_t depth) {
  const dump::DumpLocation::Depths& d = w.depth;
  auto below = [&](std::optional<size_t> k) { return k && *k < depth; };
  Levels levels{below(d.iteration), below(d.graph), below(d.net), below(d.rank), false};
  if (w.layout.empty()) levels.path = depth > 0;
  return levels;
}

DirectoryKey full_key(const dump::DumpLocation& w, const std::string& relative) {
  DirectoryKey key;
  key.iteration = w.iteration;
  key.rank = w.rank;
  key.graph = w.graph;
  if (!w.net.empty()) key.net = w.net;
  key.constants = w.constants;
  if (w.layout.empty()) key.path = relative;
  return key;
}

DirectoryKey masked(DirectoryKey key, const Levels& levels) {
  if (!levels.iteration) {
    key.iteration.reset();
    key.constants = false;
  }
  if (!levels.graph) key.graph.reset();
  if (!levels.net) key.net.reset();
  if (!levels.rank) key.rank.reset();
  if (!levels.path) key.path.clear();
  return key;
}

// The part of a directory's display below the input: the walker spells it input + "/" + names.
std::string relative_part(const std::string& input, const std::string& display) {
  std::string_view rest;
  if (input.empty() || input == ".") {
    rest = display == input ? std::string_view() : std::string_view(display);
  } else if (display.size() > input.size() && display.starts_with(input)) {
    rest = std::string_view(display).substr(input.size());
  }
  while (rest.starts_with('/')) rest.remove_prefix(1);
  return std::string(rest);
}

size_t component_count(std::string_view relative) {
  if (relative.empty()) return 0;
  return static_cast<size_t>(std::count(relative.begin(), relative.end(), '/')) + 1;
}

// --- execution order ----------------------------------------------------------------------------

// One execution order, looked up by an op name of any era: the full name as 2.3+, DumpData and
// 1.1/1.2 files spell it, else the last scope component (1.3-2.2 names keep only that).
struct ExecutionIndex {
  std::unordered_map<std::string, uint64_t> full, last;
  std::string display;

  void add(const std::vector<std::string>& names) {
    const uint64_t base = next_;  // several graphs' files follow one another
    for (uint64_t i = 0; i < names.size(); ++i) {
      std::string_view name = names[i];
      full.emplace(key_spelling(name), base + i);
      if (auto slash = name.rfind('/'); slash != std::string_view::npos)
        last.emplace(key_spelling(name.substr(slash + 1)), base + i);
    }
    next_ = base + names.size();
  }

  std::optional<uint64_t> find(std::string_view op_name) const {
    std::string spelled = key_spelling(op_name);
    if (auto it = full.find(spelled); it != full.end()) return it->second;
    if (auto it = last.find(spelled); it != last.end()) return it->second;
    return std::nullopt;
  }

 private:
  uint64_t next_ = 0;
};

// Reads one execution-order file; nullopt when it does not exist.
std::optional<std::vector<std::string>> read_execution_order(const fs::path& path,
                                                             const std::string& display, Side side,
                                                             std::vector<Problem>& problems) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return std::nullopt;
  auto file = MappedFile::open(path, Reading::Whole);
  if (!file) {
    problems.push_back({side, display, file.error(), false});
    return std::nullopt;
  }
  auto names = dump::parse_execution_order(as_text(file->bytes()));
  if (!names) {
    problems.push_back({side, display, names.error(), false});
    return std::nullopt;
  }
  return std::move(*names);
}

// The execution orders of one side, read once per rank (or 1.1/1.2 device) directory and graph.
class ExecutionOrders {
 public:
  ExecutionOrders(Side side, std::vector<Problem>& problems) : side_(side), problems_(problems) {}

  // The order for the tensors of `dir`, or null: rank_R/execution_order/..._graph_G.csv three
  // levels above a rank-layout iteration directory; every graph's file of
  // {net}/device_D/execution_order/ above a 1.1/1.2 iteration directory, in graph order (its
  // iteration directories hold every graph).
  const ExecutionIndex* find(const SideDirectory& dir) {
    const dump::DumpLocation& w = dir.where;
    size_t up = 0;
    if (w.layout == "rank" && w.graph && !w.constants)
      up = 3;
    else if (w.layout == "sync-1.1")
      up = 1;
    else
      return nullptr;
    std::error_code ec;
    fs::path owner = fs::absolute(dir.path, ec).lexically_normal();
    if (ec) return nullptr;
    if (!owner.has_filename()) owner = owner.parent_path();  // a trailing '/'
    for (size_t i = 0; i < up; ++i) owner = owner.parent_path();
    std::string owner_display = (fs::path(dir.display) / std::string(up == 3 ? "../../.." : ".."))
                                    .lexically_normal()
                                    .string();
    if (!owner_display.empty() && owner_display.back() == '/') owner_display.pop_back();
    std::string cache_key = owner.string();
    if (up == 3) cache_key += fmt::format("\x1fgraph {}", *w.graph);
    if (auto it = cache_.find(cache_key); it != cache_.end()) return it->second.get();

    std::unique_ptr<ExecutionIndex> index;
    fs::path order_dir = owner / "execution_order";
    std::string order_display = (fs::path(owner_display) / "execution_order").string();
    std::vector<std::pair<uint32_t, std::string>> graphs;  // graph id, file name
    if (up == 3) {
      graphs.emplace_back(*w.graph, fmt::format("ms_execution_order_graph_{}.csv", *w.graph));
    } else {
      for (fs::directory_iterator it(order_dir, ec), end; !ec && it != end; it.increment(ec)) {
        std::string name = it->path().filename().string();
        dump::DumpFileName parsed = dump::parse_dump_file_name(name);
        if (parsed.kind == FileKind::ExecutionOrder && parsed.graph_id)
          graphs.emplace_back(*parsed.graph_id, name);
      }
      std::sort(graphs.begin(), graphs.end());
    }
    for (const auto& [graph, name] : graphs) {
      std::string display = (fs::path(order_display) / name).string();
      auto names = read_execution_order(order_dir / name, display, side_, problems_);
      if (!names) continue;
      if (!index) index = std::make_unique<ExecutionIndex>();
      index->add(*names);
      index->display = index->display.empty() ? display : index->display + ", " + display;
    }
    return (cache_[cache_key] = std::move(index)).get();
  }

 private:
  Side side_;
  std::vector<Problem>& problems_;
  std::map<std::string, std::unique_ptr<ExecutionIndex>> cache_;
};

// --- collecting one side ------------------------------------------------------------------------

bool one_tensor_per_file(FileKind kind) {
  return kind == FileKind::Npy || kind == FileKind::LegacyBin || kind == FileKind::MsprobeRaw ||
         kind == FileKind::ConvertedNpy;
}

TensorRef ref_from_name(const DumpFile& file, size_t file_index, size_t directory) {
  TensorRef ref;
  ref.source = TensorRef::Source::File;
  ref.file = file_index;
  ref.directory = directory;
  ref.op_type = file.name.op_type;
  ref.op_name = file.name.op_name;
  ref.io = file.name.io;
  ref.slot = file.name.slot;
  ref.task_id = file.name.task_id;
  ref.stream_id = file.name.stream_id;
  ref.timestamp = file.name.timestamp;
  return ref;
}

TensorRef ref_from_tensor(const DumpTensor& tensor, size_t file_index, size_t directory) {
  TensorRef ref;
  if (tensor.statistics) {
    ref.source = TensorRef::Source::StatisticRow;
    ref.statistic_line = tensor.statistics->line;
  } else if (tensor.ascend) {
    ref.source = TensorRef::Source::ContainerSlot;
  }
  ref.file = file_index;
  ref.directory = directory;
  ref.op_type = tensor.op_type;
  ref.op_name = tensor.op_name;
  if (tensor.io == "input")
    ref.io = dump::Io::Input;
  else if (tensor.io == "output")
    ref.io = dump::Io::Output;
  ref.slot = tensor.slot;
  ref.task_id = tensor.task_id;
  ref.stream_id = tensor.stream_id;
  ref.timestamp = tensor.timestamp;
  return ref;
}

struct Collected {
  PairedSide side;
  std::vector<TensorRef> tensors;       // every tensor, before keys and occurrences
  std::vector<DirectoryKey> full_keys;  // per directory
  Levels levels;                        // levels below the input, over all directories
  bool lone = false;                    // the input is one file or standard input
};

Expected<Collected> collect(const std::string& input, Side side, const PairOptions& options,
                            std::vector<Problem>& problems) {
  Collected c;
  c.side.input = input;
  std::error_code ec;
  c.lone = input == "-" || fs::is_regular_file(input, ec);

  std::vector<DumpDirectory> walked;
  std::optional<Error> input_error;
  dump::WalkCallbacks callbacks;
  callbacks.directory = [&](const DumpDirectory& d) { walked.push_back(d); };
  callbacks.error = [&](const std::string& display, const Error& e) {
    if (display == input && walked.empty())
      input_error = e;
    else
      problems.push_back({side, display, e, false});
  };
  callbacks.warning = [&](const std::string& display, const Error& w) {
    problems.push_back({side, display, w, true});
  };
  dump::walk_dump_tree(std::span<const std::string>(&input, 1), callbacks);
  if (input_error)
    return std::move(*input_error)
        .with_context(fmt::format("{} dump {}", side_name(side), quote_for_message(input)));

  // Files are sorted into the ones their names pair and the ones that must be opened.
  struct Candidate {
    size_t file;
    size_t directory;
  };
  std::vector<Candidate> to_read;
  std::vector<SideDirectory> directories;
  for (const DumpDirectory& d : walked) {
    const size_t di = directories.size();
    bool has_tensor_files = std::any_of(d.files.begin(), d.files.end(), [](const DumpFile& f) {
      return dump::kind_holds_tensors(f.name.kind);
    });
    bool any = false;
    for (const DumpFile& f : d.files) {
      FileKind kind = f.name.kind;
      if (dump::kind_is_side_file(kind)) continue;
      // With saved_data "full", statistic.csv repeats the tensors beside it (dump spec §6.1).
      if (kind == FileKind::StatisticCsv && has_tensor_files) {
        problems.push_back({side, f.display,
                            Error("left out: the tensor files beside it are compared (saved_data "
                                  "\"full\" writes both)"),
                            true});
        continue;
      }
      const size_t fi = c.side.files.size();
      c.side.files.push_back(f);
      any = true;
      if (kind == FileKind::Overflow || kind == FileKind::OverflowJson)
        c.side.skipped.push_back({fi, "overflow record"});
      else if (one_tensor_per_file(kind))
        c.tensors.push_back(ref_from_name(f, fi, di));
      else
        to_read.push_back({fi, di});  // DumpData, statistic.csv, names no grammar knows
    }
    if (!any) continue;
    SideDirectory dir;
    dir.path = d.path;
    dir.display = d.display;
    dir.where = d.where;
    directories.push_back(std::move(dir));
  }

  // Only headers are read: the payloads of a container are never touched (Reading::Parts maps).
  struct Read {
    std::vector<TensorRef> tensors;
    std::vector<Problem> problems;
  };
  std::vector<Read> reads(to_read.size());
  parallel_for(to_read.size(), options.jobs, [&](size_t i) {
    const DumpFile& file = c.side.files[to_read[i].file];
    Read& out = reads[i];
    auto mapped = dump::open_dump_file(file, Reading::Parts);
    if (!mapped) {
      out.problems.push_back({side, file.display, mapped.error(), false});
      return;
    }
    Bytes contents = (*mapped)->bytes();
    auto warn = [&](const Error& w) {
      // Two single files pair whatever their names: a name outside the grammars is no news.
      if (c.lone && w.message.find("grammar") != std::string::npos) return;
      out.problems.push_back({side, file.display, w, true});
    };
    auto status = dump::read_dump_file(file, contents, warn, [&](const DumpTensor& tensor) {
      if (tensor.format == "overflow" || tensor.format == "overflow-json") return;
      out.tensors.push_back(ref_from_tensor(tensor, to_read[i].file, to_read[i].directory));
    });
    if (status) {
      // A damaged file pairs nothing: its tensors would fail to read when compared.
      out.tensors.clear();
      std::string why;
      if (dump::is_unknown_file(file, contents, *status, why))
        out.problems.push_back({side, file.display, Error("unknown file: " + why), true});
      else
        out.problems.push_back({side, file.display, *status, false});
    }
  });
  for (Read& r : reads) {
    for (TensorRef& t : r.tensors) c.tensors.push_back(std::move(t));
    for (Problem& p : r.problems) problems.push_back(std::move(p));
  }

  // Directories that turned out to hold no tensor are dropped; the others keep walk order.
  std::vector<bool> used(directories.size(), false);
  for (const TensorRef& t : c.tensors) used[t.directory] = true;
  std::vector<size_t> renumber(directories.size());
  for (size_t i = 0; i < directories.size(); ++i) {
    if (!used[i]) continue;
    renumber[i] = c.side.directories.size();
    c.side.directories.push_back(std::move(directories[i]));
  }
  for (TensorRef& t : c.tensors) t.directory = renumber[t.directory];
  c.side.tensors = c.tensors.size();

  for (const SideDirectory& dir : c.side.directories) {
    std::string relative = c.lone ? std::string() : relative_part(input, dir.display);
    c.levels = c.levels | levels_below_input(dir.where, component_count(relative));
    c.full_keys.push_back(full_key(dir.where, relative));
  }

  // Execution order: each side's own, for the order of its rows.
  ExecutionOrders orders(side, problems);
  std::vector<const ExecutionIndex*> order_of(c.side.directories.size());
  for (size_t i = 0; i < c.side.directories.size(); ++i) {
    order_of[i] = orders.find(c.side.directories[i]);
    if (order_of[i]) c.side.directories[i].execution_order = order_of[i]->display;
  }
  for (TensorRef& t : c.tensors)
    if (const ExecutionIndex* index = order_of[t.directory])
      t.execution_index = index->find(t.op_name);

  // An input without a single tensor is almost always a wrong path or an unfinished dump: an
  // error (exit 3), not merely a warning; the other side's tensors are still listed, unmatched.
  if (c.tensors.empty())
    problems.push_back({side, input, Error("no tensors found in this dump"), false});
  return c;
}

// --- keys and order -----------------------------------------------------------------------------

using TensorKey = std::tuple<std::string, std::optional<dump::Io>, std::optional<uint32_t>,
                             std::optional<uint64_t>, uint64_t>;

// The stable order of rows (see pairing.h).
using OrderKey =
    std::tuple<int, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t>;

OrderKey order_key(const TensorRef& r) {
  uint64_t io = r.io ? static_cast<uint64_t>(*r.io == dump::Io::Input ? 0 : 1) : 2;
  uint64_t slot = r.slot ? *r.slot : kLast;
  uint64_t time = r.timestamp.value_or(kLast);
  uint64_t line = r.statistic_line.value_or(0);
  if (r.execution_index) return {0, *r.execution_index, r.occurrence, io, slot, time, r.file, line};
  return {1, time, r.file, line, io, slot, 0, 0};
}

// Op names of my side renamed (as written or as key_spelling writes them).
class Renamer {
 public:
  explicit Renamer(const std::vector<Rename>& renames) {
    for (const Rename& r : renames) {
      exact_.emplace(r.mine, r.golden);
      spelled_.emplace(key_spelling(r.mine), r.golden);
    }
  }
  const std::string& apply(const std::string& name) const {
    if (exact_.empty()) return name;
    if (auto it = exact_.find(name); it != exact_.end()) return it->second;
    if (auto it = spelled_.find(key_spelling(name)); it != spelled_.end()) return it->second;
    return name;
  }

 private:
  std::unordered_map<std::string, std::string> exact_, spelled_;
};

// Gives the tensors of one side of a group their key names and occurrences; in last-only mode
// moves the earlier occurrences to `superseded`. Returns the tensors to pair, with their keys.
std::vector<std::pair<TensorKey, TensorRef>> keyed_tensors(
    std::vector<TensorRef> tensors, const Collected& side, const Renamer* renamer, bool by_name,
    bool by_io_slot, const PairOptions& options, std::vector<TensorRef>& superseded) {
  for (TensorRef& t : tensors) {
    if (!by_name) {
      t.key_name.clear();
      continue;
    }
    // A file outside every grammar (read by content) pairs by its name on disk.
    std::string name = t.op_name.empty() ? side.side.files[t.file].stored_name : t.op_name;
    if (renamer) name = renamer->apply(name);
    t.key_name = options.exact_names ? name : key_spelling(name);
  }
  auto bucket_of = [&](const TensorRef& t) {
    return TensorKey{t.key_name, by_io_slot ? t.io : std::nullopt,
                     by_io_slot ? t.slot : std::nullopt,
                     options.key_task_id ? t.task_id : std::nullopt, 0};
  };
  std::map<TensorKey, std::vector<size_t>> buckets;
  for (size_t i = 0; i < tensors.size(); ++i) buckets[bucket_of(tensors[i])].push_back(i);
  std::vector<std::pair<TensorKey, TensorRef>> out;
  for (auto& [bucket, members] : buckets) {
    std::sort(members.begin(), members.end(), [&](size_t a, size_t b) {
      const TensorRef &x = tensors[a], &y = tensors[b];
      return std::tuple(x.timestamp.value_or(kLast), x.file, x.statistic_line.value_or(0)) <
             std::tuple(y.timestamp.value_or(kLast), y.file, y.statistic_line.value_or(0));
    });
    for (size_t n = 0; n < members.size(); ++n) {
      TensorRef& t = tensors[members[n]];
      t.occurrence = n;
      if (options.last_only && n + 1 < members.size()) {
        superseded.push_back(std::move(t));
        continue;
      }
      TensorKey key = bucket;
      std::get<4>(key) = options.last_only ? 0 : n;
      out.emplace_back(std::move(key), std::move(t));
    }
  }
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return order_key(a.second) < order_key(b.second); });
  return out;
}

// Says so when several directories of one side share a key: their tensors are numbered together.
void warn_shared_key(const DirectoryGroup& group, const std::vector<size_t>& members,
                     const PairedSide& side, Side which, std::vector<Problem>& problems) {
  if (members.size() < 2) return;
  std::vector<std::string> names;
  for (size_t i = 1; i < members.size() && i < 4; ++i)
    names.push_back(printable_path(side.directories[members[i]].display));
  if (members.size() > 4) names.push_back("...");
  problems.push_back(
      {which, side.directories[members[0]].display,
       Error(fmt::format("{} directories pair as one ({}), their tensors numbered together: also "
                         "{}",
                         members.size(), group.key.describe(), fmt::join(names, ", "))),
       true});
}

}  // namespace

Expected<Pairing> pair_dumps(const std::string& mine, const std::string& golden,
                             const PairOptions& options) {
  Pairing result;
  std::vector<Problem> golden_problems;
  MSDT_TRY(Collected my_side, collect(mine, Side::Mine, options, result.problems));
  MSDT_TRY(Collected golden_side, collect(golden, Side::Golden, options, golden_problems));

  // Directory groups: the levels below both inputs.
  const Levels levels = my_side.levels & golden_side.levels;
  std::map<DirectoryKey, DirectoryGroup> groups;
  for (size_t i = 0; i < my_side.side.directories.size(); ++i) {
    DirectoryKey key = masked(my_side.full_keys[i], levels);
    my_side.side.directories[i].key = key;
    groups[key].mine.push_back(i);
  }
  for (size_t i = 0; i < golden_side.side.directories.size(); ++i) {
    DirectoryKey key = masked(golden_side.full_keys[i], levels);
    golden_side.side.directories[i].key = key;
    groups[key].golden.push_back(i);
  }
  std::vector<size_t> group_of_mine(my_side.side.directories.size()),
      group_of_golden(golden_side.side.directories.size());
  for (auto& [key, group] : groups) {
    group.key = key;
    const size_t g = result.groups.size();
    for (size_t i : group.mine) group_of_mine[i] = g;
    for (size_t i : group.golden) group_of_golden[i] = g;
    warn_shared_key(group, group.mine, my_side.side, Side::Mine, result.problems);
    warn_shared_key(group, group.golden, golden_side.side, Side::Golden, golden_problems);
    if (group.golden.empty()) ++result.counts.directories_only_mine;
    if (group.mine.empty()) ++result.counts.directories_only_golden;
    result.groups.push_back(std::move(group));
  }

  std::vector<std::vector<TensorRef>> my_by_group(result.groups.size()),
      golden_by_group(result.groups.size());
  for (TensorRef& t : my_side.tensors)
    my_by_group[group_of_mine[t.directory]].push_back(std::move(t));
  for (TensorRef& t : golden_side.tensors)
    golden_by_group[group_of_golden[t.directory]].push_back(std::move(t));

  // Two lone files pair whatever their names; one tensor each, whatever their slots too.
  const bool lone = my_side.lone && golden_side.lone;
  const bool by_io_slot = !(lone && my_side.side.tensors == 1 && golden_side.side.tensors == 1);
  Renamer renamer(options.renames);

  for (size_t g = 0; g < result.groups.size(); ++g) {
    auto my_keyed = keyed_tensors(std::move(my_by_group[g]), my_side, &renamer, !lone, by_io_slot,
                                  options, my_side.side.superseded);
    auto golden_keyed = keyed_tensors(std::move(golden_by_group[g]), golden_side, nullptr, !lone,
                                      by_io_slot, options, golden_side.side.superseded);
    std::map<TensorKey, size_t> golden_index;
    for (size_t i = 0; i < golden_keyed.size(); ++i) golden_index.emplace(golden_keyed[i].first, i);
    std::vector<bool> matched(golden_keyed.size(), false);
    for (auto& [key, ref] : my_keyed) {
      PairRow row;
      row.group = g;
      row.mine = std::move(ref);
      if (auto it = golden_index.find(key); it != golden_index.end()) {
        row.golden = golden_keyed[it->second].second;
        matched[it->second] = true;
        ++result.counts.pairs;
      } else {
        ++result.counts.only_mine;
      }
      result.rows.push_back(std::move(row));
    }
    for (size_t i = 0; i < golden_keyed.size(); ++i) {
      if (matched[i]) continue;
      PairRow row;
      row.group = g;
      row.golden = std::move(golden_keyed[i].second);
      ++result.counts.only_golden;
      result.rows.push_back(std::move(row));
    }
  }
  result.counts.superseded_mine = my_side.side.superseded.size();
  result.counts.superseded_golden = golden_side.side.superseded.size();
  result.mine = std::move(my_side.side);
  result.golden = std::move(golden_side.side);
  for (Problem& p : golden_problems) result.problems.push_back(std::move(p));
  return result;
}

}  // namespace msdt::compare
