#include "rdr/inspect.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <system_error>

#include "io/mapped_file.h"
#include "io/parallel.h"
#include "io/text.h"
#include "ir/draw.h"
#include "ir/load.h"
#include "ir/report.h"
#include "table/format.h"

namespace msdt::rdr {
namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace {

// ---- finding the recorder directories (spec §2) ----

std::optional<uint32_t> rank_of(const fs::path& directory) {
  std::string name = directory.filename().string();
  if (!name.starts_with("rank_")) return std::nullopt;
  return parse_unsigned<uint32_t>(std::string_view(name).substr(5));
}

bool is_dir(const fs::path& path) {
  std::error_code ec;
  return fs::is_directory(path, ec);
}

struct Place {
  std::optional<uint32_t> rank;
  fs::path directory;
};

// The 1.6+ rank_N/rdr/ directories under `input`; a rank_N or rdr directory given directly; or
// `input` itself (the 1.2-1.3 flat layout, 1.5 with a config file).
std::vector<Place> find_places(const fs::path& input) {
  std::vector<Place> places;
  std::error_code ec;
  for (fs::directory_iterator it(input, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_directory(ec)) continue;
    auto rank = rank_of(it->path());
    if (!rank) continue;
    fs::path rdr = it->path() / "rdr";
    places.push_back({rank, is_dir(rdr) ? rdr : it->path()});
  }
  if (!places.empty()) {
    std::sort(places.begin(), places.end(),
              [](const Place& a, const Place& b) { return *a.rank < *b.rank; });
    return places;
  }
  // The rank from the names: "rank_3", "rank_3/rdr", also given as "." or "../rdr".
  fs::path tidy = fs::absolute(input, ec).lexically_normal();
  if (!tidy.has_filename()) tidy = tidy.parent_path();
  if (is_dir(input / "rdr")) return {{rank_of(tidy), input / "rdr"}};
  if (tidy.filename() == "rdr") return {{rank_of(tidy.parent_path()), input}};
  return {{rank_of(tidy), input}};
}

// ---- reading one file ----

std::string_view first_line(std::string_view text) {
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = trim_blanks(text.substr(start, end - start));
    if (!line.empty()) return line;
    start = end + 1;
  }
  return {};
}

void load(RecorderFile& file) {
  auto mapped = MappedFile::open(file.path, Reading::Whole);
  if (!mapped) {
    file.problem = std::move(mapped.error());
    return;
  }
  Bytes bytes = mapped->bytes();
  file.bytes = bytes.size();
  std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  file.kind = classify(file.name.extension, text, &file.detail);
  auto keep = [&](auto parsed, auto& slot) {
    if (parsed)
      slot = std::move(*parsed);
    else
      file.problem = std::move(parsed.error());
  };
  switch (file.kind) {
    case Kind::Graph: {
      ir::Loaded loaded = ir::load_graph(bytes);
      ir::explain_line_endings(loaded, bytes, file.path);
      if (loaded.module)
        file.graph = std::make_shared<ir::Module>(std::move(*loaded.module));
      else
        file.problem = std::move(loaded.module.error());
      break;
    }
    case Kind::TaskInfo:
      keep(parse_task_info(text), file.tasks);
      break;
    case Kind::ExecOrder:
      keep(parse_exec_order(text), file.exec_order);
      break;
    case Kind::MemoryList:
      keep(parse_memory_list(text), file.memory);
      break;
    case Kind::StreamAssignment:
      keep(parse_stream_assignment(text), file.streams);
      break;
    case Kind::Somas:
    case Kind::Text: {
      std::string_view line = first_line(text);
      file.first_line = std::string(line.substr(0, utf8_boundary(line, 60)));
      break;
    }
    case Kind::Empty:
      break;
  }
}

std::string base_name(const std::string& path) { return fs::path(path).filename().string(); }

// Text from the files as the text views show it: bytes that are not printable UTF-8 as \xNN.
std::string shown(std::string_view text) { return printable_path(text); }

}  // namespace

Expected<Recording> read_recording(const std::string& input, const ReadOptions& options,
                                   Diagnostics& diagnostics) {
  if (!is_dir(input)) {
    std::error_code ec;
    if (!fs::exists(input, ec)) return Error("no such directory");
    return Error("not a directory: give the RDR path (the folder holding rank_N/rdr/)");
  }
  Recording recording;
  recording.input = input;
  std::vector<RecorderFile*> files;
  for (const Place& place : find_places(input)) {
    if (options.ranks && !(place.rank && options.ranks->contains(*place.rank))) continue;
    RankRecord rank;
    rank.rank = place.rank;
    rank.directory = place.directory.string();
    std::map<std::string, std::vector<RecorderFile>> by_time;
    std::error_code ec;
    std::vector<std::string> names;
    for (fs::directory_iterator it(place.directory, ec), end; !ec && it != end; it.increment(ec))
      if (it->is_regular_file(ec)) names.push_back(it->path().filename().string());
    std::sort(names.begin(), names.end(),
              [](const std::string& a, const std::string& b) { return natural_less(a, b); });
    for (const std::string& name : names) {
      auto parsed = parse_recorder_name(name);
      if (!parsed) {
        rank.ignored.push_back((place.directory / name).string());
        continue;
      }
      RecorderFile file;
      file.path = (place.directory / name).string();
      file.name = std::move(*parsed);
      by_time[file.name.timestamp].push_back(std::move(file));
    }
    if (options.timestamp && !by_time.empty()) {
      std::string wanted =
          *options.timestamp == "last" ? by_time.rbegin()->first : *options.timestamp;
      std::erase_if(by_time, [&](const auto& entry) { return entry.first != wanted; });
    }
    for (auto& [timestamp, group] : by_time) rank.failures.push_back({timestamp, std::move(group)});
    if (rank.failures.empty() && rank.ignored.empty()) continue;
    recording.ranks.push_back(std::move(rank));
  }
  for (RankRecord& rank : recording.ranks)
    for (Failure& failure : rank.failures)
      for (RecorderFile& file : failure.files) files.push_back(&file);
  if (files.empty()) {
    if (options.timestamp || options.ranks)
      return Error("no recorder file matches the --rank/--time selection");
    return Error(
        "no RDR recorder file here (names like SESSION.graph_exec_order.1.20240501120305.txt); "
        "is RDR on? see rdr-inspect(1), ENABLING RDR");
  }
  parallel_for(files.size(), options.jobs, [&](size_t i) { load(*files[i]); });
  for (RankRecord& rank : recording.ranks)
    for (Failure& failure : rank.failures) {
      std::stable_sort(failure.files.begin(), failure.files.end(),
                       [](const RecorderFile& a, const RecorderFile& b) {
                         return static_cast<int>(a.kind) < static_cast<int>(b.kind);
                       });
      for (const RecorderFile& file : failure.files)
        if (file.problem)
          diagnostics.error(
              file.path,
              Error(*file.problem).context(fmt::format("{}, skipped", kind_name(file.kind))));
    }
  return recording;
}

// ---- the diagnosis ----

namespace {

// "Default/network/conv1-Conv2d/Conv2D-op5" -> "Conv2D".
std::string op_type_of(std::string_view fullname) {
  size_t slash = fullname.rfind('/');
  std::string_view last = slash == std::string_view::npos ? fullname : fullname.substr(slash + 1);
  size_t op = last.rfind("-op");
  if (op != std::string_view::npos) last = last.substr(0, op);
  return std::string(last);
}

template <class Pred>
const RecorderFile* first_file(const Failure& failure, Kind kind, Pred pred) {
  for (const RecorderFile& file : failure.files)
    if (file.kind == kind && !file.problem && pred(file)) return &file;
  return nullptr;
}

// The execution order of graph `graph_id` (any when absent): the file named for it, else the one
// whose nodes carry it, else the only one.
const RecorderFile* exec_file_for(const Failure& failure, std::optional<uint64_t> graph_id) {
  const RecorderFile* any = nullptr;
  size_t count = 0;
  for (const RecorderFile& file : failure.files) {
    if (file.kind != Kind::ExecOrder || file.problem || !file.exec_order ||
        file.exec_order->blocks.empty())
      continue;
    ++count;
    any = &file;
    if (graph_id && file.name.graph_id && *file.name.graph_id == *graph_id) return &file;
  }
  if (graph_id)
    for (const RecorderFile& file : failure.files)
      if (file.kind == Kind::ExecOrder && !file.problem && file.exec_order &&
          !file.exec_order->blocks.empty() && !file.exec_order->blocks.back().nodes.empty() &&
          file.exec_order->blocks.back().nodes.front().graph_id == *graph_id)
        return &file;
  return count == 1 ? any : nullptr;
}

}  // namespace

Diagnosis diagnose(const Failure& failure) {
  Diagnosis d;
  d.memory_file = first_file(failure, Kind::MemoryList, [](const RecorderFile& f) {
    return f.memory && std::any_of(f.memory->kernels.begin(), f.memory->kernels.end(),
                                   [](const KernelMemory& k) { return !k.op.empty(); });
  });
  size_t slot = 0;  // the last kernel's place in the list
  if (d.memory_file) {
    const auto& kernels = d.memory_file->memory->kernels;
    for (size_t i = 0; i < kernels.size(); ++i)
      if (!kernels[i].op.empty()) {
        slot = i;
        ++d.launched;
      }
    d.memory = &kernels[slot];
    d.last_kernel = d.memory->op;
  }
  auto set_position = [&](const RecorderFile* exec, size_t index, std::string how) {
    if (!exec) return false;
    const ExecBlock& block = exec->exec_order->blocks.back();
    if (index >= block.nodes.size()) return false;
    d.exec_file = exec;
    d.block = exec->exec_order->blocks.size() - 1;
    d.position = index;
    d.total = block.nodes.size();
    d.located_by = std::move(how);
    return true;
  };
  // The stream assignment names every kernel by its full name at its execution-order index.
  for (const RecorderFile& file : failure.files) {
    if (d.last_kernel.empty() || file.kind != Kind::StreamAssignment || file.problem ||
        !file.streams || file.streams->arrays.empty())
      continue;
    for (const StreamNode& node : file.streams->arrays.back())
      if (node.node_name == d.last_kernel) {
        d.stream = &node;
        if (!d.position)
          set_position(exec_file_for(failure, file.name.graph_id), node.index,
                       "assign_stream's index for its name");
      }
  }
  // A graph file gives the kernel's node (full name -> debug name), which the execution order
  // names.
  for (const RecorderFile& file : failure.files) {
    if (d.node || d.last_kernel.empty() || file.kind != Kind::Graph || !file.graph) continue;
    for (const ir::Graph& graph : file.graph->graphs)
      for (const ir::Node& node : graph.nodes)
        if (!d.node && node.fullname == d.last_kernel) {
          d.graph_file = &file;
          d.graph = &graph;
          d.node = &node;
        }
    if (d.node && !d.position) {
      const RecorderFile* exec = exec_file_for(failure, file.name.graph_id);
      if (exec) {
        const auto& nodes = exec->exec_order->blocks.back().nodes;
        for (size_t i = 0; i < nodes.size(); ++i)
          if (nodes[i].name == d.node->name &&
              (nodes[i].graph.empty() || nodes[i].graph == d.graph->name)) {
            set_position(exec, i, "the graph file's node of that full name");
            break;
          }
      }
    }
  }
  // Without either: the memory list holds the kernels launched in the last step, in order (the
  // 1.2-1.4 GPU recorder: a slot per execution-order position).
  if (!d.position && d.launched > 0) {
    const RecorderFile* exec = exec_file_for(failure, std::nullopt);
    if (exec && set_position(exec, slot, "")) {
      const std::string& op = exec->exec_order->blocks.back().nodes[*d.position].op;
      std::string expected = op_type_of(d.last_kernel);
      d.located_by = op == expected ? "its place in the memory list (the op types agree)"
                                    : fmt::format(
                                          "its place in the memory list (but the "
                                          "execution order has {} there, not {}: a guess)",
                                          op.empty() ? "?" : op, expected);
    }
  }
  for (const RecorderFile& file : failure.files)
    if (!d.task && !d.last_kernel.empty() && file.kind == Kind::TaskInfo && file.tasks)
      for (const TaskInfo& task : file.tasks->tasks)
        if (task.op_name == d.last_kernel) {
          d.task = &task;
          break;
        }
  // The graph of the position found, when no node matched the full name.
  if (!d.node && d.position)
    for (const RecorderFile& file : failure.files) {
      if (d.node || file.kind != Kind::Graph || !file.graph) continue;
      const ExecNode& exec = d.exec_file->exec_order->blocks[d.block].nodes[*d.position];
      for (const ir::Graph& graph : file.graph->graphs)
        for (const ir::Node& node : graph.nodes)
          if (!d.node && node.name == exec.name &&
              (exec.graph.empty() || exec.graph == graph.name)) {
            d.graph_file = &file;
            d.graph = &graph;
            d.node = &node;
          }
    }

  // Which file to open next.
  for (const RecorderFile& file : failure.files)
    if (!d.broken_memory && file.kind == Kind::MemoryList && file.problem) d.broken_memory = &file;
  if (!d.memory_file && d.broken_memory) {
    d.next = fmt::format(
        "{} is malformed (reported above): its last op is the kernel that was "
        "running; read it by hand",
        base_name(d.broken_memory->path));
  } else if (!d.memory_file) {
    const RecorderFile* exec = exec_file_for(failure, std::nullopt);
    d.next = exec ? fmt::format(
                        "no memory address list was recorded, so the running kernel is "
                        "unknown: read the training log for the failing op, then find it "
                        "in {}",
                        base_name(exec->path))
                  : "no memory address list or execution order was recorded: read the training "
                    "log; RDR kept only what is listed above";
  } else if (d.node && !d.node->source.empty()) {
    d.next = fmt::format(
        "open {} at line {} ({}): the node of the kernel that was running, "
        "written at {}",
        base_name(d.graph_file->path), d.node->line, d.node->name, d.node->source.front());
  } else if (d.node) {
    d.next = fmt::format("open {} at line {} ({}): the node of the kernel that was running",
                         base_name(d.graph_file->path), d.node->line, d.node->name);
  } else if (d.position) {
    d.next = fmt::format(
        "open {} at line {}: the last kernel launched, and the kernels after it "
        "that never ran",
        base_name(d.exec_file->path),
        d.exec_file->exec_order->blocks[d.block].nodes[*d.position].line);
  } else {
    d.next = fmt::format("open {} at line {}: the last kernel launched ({})",
                         base_name(d.memory_file->path), d.memory->line, d.last_kernel);
  }
  return d;
}

// ---- the views ----

namespace {

std::string rank_label(const RankRecord& rank) {
  return rank.rank ? fmt::format("rank {}", *rank.rank) : std::string("no rank");
}

json rank_json(const RankRecord& rank) { return rank.rank ? json(*rank.rank) : json(nullptr); }

uint64_t total_bytes(const std::vector<Buffer>& buffers) {
  uint64_t sum = 0;
  for (const Buffer& b : buffers) sum += b.size;
  return sum;
}

std::string hex(uint64_t address) { return fmt::format("{:#x}", address); }

// A one-line account of what a file held, for the listing.
std::string file_summary(const RecorderFile& file) {
  if (file.problem) return "malformed: " + file.problem->describe();
  switch (file.kind) {
    case Kind::Graph: {
      if (!file.graph) return file.detail;
      uint64_t nodes = 0;
      for (const ir::Graph& g : file.graph->graphs) nodes += g.nodes.size();
      return fmt::format("{}, {}, {} graph{}, {} nodes", file.detail,
                         file.graph->entry.empty() ? "-" : file.graph->entry,
                         file.graph->graphs.size(), file.graph->graphs.size() == 1 ? "" : "s",
                         nodes);
    }
    case Kind::ExecOrder: {
      const auto& blocks = file.exec_order->blocks;
      return fmt::format("{} block{}, {} kernels in the last", blocks.size(),
                         blocks.size() == 1 ? "" : "s",
                         blocks.empty() ? 0 : blocks.back().nodes.size());
    }
    case Kind::StreamAssignment: {
      std::set<uint64_t> streams;
      size_t kernels = 0;
      if (!file.streams->arrays.empty()) {
        kernels = file.streams->arrays.back().size();
        for (const StreamNode& n : file.streams->arrays.back()) streams.insert(n.stream_id);
      }
      return fmt::format("{} kernels on {} stream{}", kernels, streams.size(),
                         streams.size() == 1 ? "" : "s");
    }
    case Kind::MemoryList:
      return fmt::format("{} kernels launched in the last step",
                         std::count_if(file.memory->kernels.begin(), file.memory->kernels.end(),
                                       [](const KernelMemory& k) { return !k.op.empty(); }));
    case Kind::TaskInfo:
      return fmt::format("{} tasks", file.tasks->tasks.size());
    case Kind::Somas:
    case Kind::Text:
      return file.first_line;
    case Kind::Empty:
      return "nothing written";
  }
  return "";
}

json file_json(const RecorderFile& file) {
  json j;
  j["path"] = file.path;
  j["module"] = file.name.module;
  j["name"] = file.name.name;
  j["graph_id"] = file.name.graph_id ? json(*file.name.graph_id) : json(nullptr);
  j["kind"] = kind_key(file.kind);
  j["detail"] = file.detail.empty() ? json(nullptr) : json(file.detail);
  j["bytes"] = file.bytes;
  j["summary"] = file_summary(file);
  j["problem"] = file.problem ? json(file.problem->describe()) : json(nullptr);
  return j;
}

json buffers_json(const std::vector<Buffer>& buffers) {
  json list = json::array();
  for (const Buffer& b : buffers) list.push_back({{"address", hex(b.address)}, {"size", b.size}});
  return list;
}

json diagnosis_json(const Diagnosis& d) {
  json j;
  j["last_kernel"] = d.last_kernel.empty() ? json(nullptr) : json(d.last_kernel);
  j["kernels_launched"] = d.launched;
  if (d.position) {
    const ExecNode& node = d.exec_file->exec_order->blocks[d.block].nodes[*d.position];
    j["exec_order"] = {{"file", d.exec_file->path},
                       {"block", d.block},
                       {"position", *d.position},
                       {"total", d.total},
                       {"graph", node.graph},
                       {"name", node.name},
                       {"op", node.op},
                       {"stream_label", node.stream_label},
                       {"line", node.line},
                       {"located_by", d.located_by}};
  } else {
    j["exec_order"] = nullptr;
  }
  if (d.stream)
    j["stream"] = {{"stream_id", d.stream->stream_id},
                   {"logic_id", d.stream->logic_id},
                   {"event_id", d.stream->event_id}};
  else if (d.task)
    j["stream"] = {{"stream_id", d.task->stream_id}, {"logic_id", nullptr}, {"event_id", nullptr}};
  else
    j["stream"] = nullptr;
  if (d.node) {
    json node;
    node["file"] = d.graph_file->path;
    node["graph"] = d.graph->name;
    node["graph_nodes"] = d.graph->nodes.size();
    node["name"] = d.node->name;
    node["op"] = d.node->op;
    node["line"] = d.node->line;
    node["input_types"] = d.node->input_types;
    node["output_type"] = d.node->output_type;
    node["source"] = d.node->source;
    j["node"] = node;
  } else {
    j["node"] = nullptr;
  }
  if (d.memory)
    j["memory"] = {{"inputs", buffers_json(d.memory->inputs)},
                   {"workspaces", buffers_json(d.memory->workspaces)},
                   {"outputs", buffers_json(d.memory->outputs)},
                   {"bytes", total_bytes(d.memory->inputs) + total_bytes(d.memory->workspaces) +
                                 total_bytes(d.memory->outputs)}};
  else
    j["memory"] = nullptr;
  j["next"] = d.next;
  return j;
}

// Where each rank stopped: (rank, failure, diagnosis), for the side-by-side table.
struct Stop {
  const RankRecord* rank;
  const Failure* failure;
  Diagnosis diagnosis;
  bool earliest = false;
};

std::vector<Stop> stops_of(const std::vector<Recording>& recordings) {
  std::vector<Stop> stops;
  for (const Recording& recording : recordings)
    for (const RankRecord& rank : recording.ranks)
      for (const Failure& failure : rank.failures)
        stops.push_back({&rank, &failure, diagnose(failure)});
  // A rank that stopped earlier than the others is the usual culprit of a distributed hang:
  // marked when the positions differ. Each rank's last failure counts, and only positions in one
  // graph's execution order compare.
  std::map<const RankRecord*, Stop*> last;
  for (Stop& s : stops) last[s.rank] = &s;
  std::optional<size_t> lowest, highest;
  std::set<std::optional<uint32_t>> graphs;
  for (auto& [rank, s] : last)
    if (s->diagnosis.position) {
      lowest = std::min(lowest.value_or(*s->diagnosis.position), *s->diagnosis.position);
      highest = std::max(highest.value_or(0), *s->diagnosis.position);
      graphs.insert(s->diagnosis.exec_file->name.graph_id);
    }
  if (last.size() > 1 && graphs.size() == 1 && lowest && *lowest != *highest)
    for (auto& [rank, s] : last) s->earliest = s->diagnosis.position == lowest;
  return stops;
}

bool several_ranks(const std::vector<Stop>& stops) {
  std::set<const RankRecord*> ranks;
  for (const Stop& s : stops) ranks.insert(s.rank);
  return ranks.size() > 1;
}

std::string position_text(const Diagnosis& d) {
  return d.position ? fmt::format("{}/{}", *d.position, d.total) : std::string("-");
}

std::string stream_text(const Diagnosis& d) {
  if (d.stream) return std::to_string(d.stream->stream_id);
  if (d.task) return std::to_string(d.task->stream_id);
  return "-";
}

// Aligned rows, each line indented by `pad`, cells escaped (shown), no trailing blanks.
std::string indent_rows(std::vector<std::vector<std::string>> rows, std::string_view pad) {
  for (auto& row : rows)
    for (std::string& cell : row) cell = shown(cell);
  std::string out;
  std::string table = table::align_columns(rows);
  for (size_t start = 0; start < table.size();) {
    size_t end = table.find('\n', start);
    if (end == std::string::npos) end = table.size();
    std::string_view line(table.data() + start, end - start);
    while (line.ends_with(' ')) line.remove_suffix(1);
    out += pad;
    out += line;
    out += '\n';
    start = end + 1;
  }
  return out;
}

std::string stops_text(const std::vector<Stop>& stops) {
  std::vector<std::vector<std::string>> rows{
      {"rank", "failure", "position", "stream", "kernel", ""}};
  for (const Stop& s : stops)
    rows.push_back({s.rank->rank ? std::to_string(*s.rank->rank) : "?",
                    readable_time(s.failure->timestamp), position_text(s.diagnosis),
                    stream_text(s.diagnosis),
                    s.diagnosis.last_kernel.empty() ? "-" : s.diagnosis.last_kernel,
                    s.earliest ? "<- stopped earliest" : ""});
  return "where each rank stopped:\n" + indent_rows(std::move(rows), "  ");
}

json stops_json(const std::vector<Stop>& stops) {
  json list = json::array();
  for (const Stop& s : stops)
    list.push_back(
        {{"rank", rank_json(*s.rank)},
         {"timestamp", s.failure->timestamp},
         {"position", s.diagnosis.position ? json(*s.diagnosis.position) : json(nullptr)},
         {"total", s.diagnosis.total},
         {"stream_id", s.diagnosis.stream ? json(s.diagnosis.stream->stream_id)
                       : s.diagnosis.task ? json(s.diagnosis.task->stream_id)
                                          : json(nullptr)},
         {"kernel",
          s.diagnosis.last_kernel.empty() ? json(nullptr) : json(s.diagnosis.last_kernel)},
         {"stopped_earliest", s.earliest}});
  return list;
}

std::string failure_heading(const Stop& s) {
  if (!s.rank->rank)
    return fmt::format("{} (no rank: the flat layout), failure at {}\n", shown(s.rank->directory),
                       readable_time(s.failure->timestamp));
  return fmt::format("rank {} ({}), failure at {}\n", *s.rank->rank, shown(s.rank->directory),
                     readable_time(s.failure->timestamp));
}

std::string report_text(const Stop& s) {
  const Diagnosis& d = s.diagnosis;
  std::string out = failure_heading(s);
  out += "  recorded:\n";
  std::vector<std::vector<std::string>> rows;
  for (const RecorderFile& file : s.failure->files)
    rows.push_back({std::string(kind_name(file.kind)), base_name(file.path), file_summary(file)});
  out += indent_rows(rows, "    ");
  out += "  diagnosis:\n";
  std::vector<std::vector<std::string>> lines;
  bool exec_recorded = false, exec_broken = false;
  for (const RecorderFile& file : s.failure->files)
    if (file.kind == Kind::ExecOrder) (file.problem ? exec_broken : exec_recorded) = true;
  lines.push_back({"last kernel launched:", !d.last_kernel.empty() ? d.last_kernel
                                            : d.broken_memory
                                                ? "unknown (the memory address list is malformed)"
                                                : "unknown (no memory address list)"});
  if (d.position) {
    const ExecNode& node = d.exec_file->exec_order->blocks[d.block].nodes[*d.position];
    lines.push_back(
        {"execution order:",
         fmt::format("index {} of {} kernels ({} {}), {} line {}; found by {}", *d.position,
                     d.total, node.name.empty() ? "?" : node.name, node.op.empty() ? "?" : node.op,
                     base_name(d.exec_file->path), node.line, d.located_by)});
  } else if (!d.last_kernel.empty()) {
    std::string where = d.stream ? fmt::format("index {} by assign_stream; ", d.stream->index) : "";
    lines.push_back({"execution order:", where + (exec_recorded ? "not found in the execution order"
                                                  : exec_broken ? "the execution order is malformed"
                                                                : "no execution order recorded")});
  }
  if (d.stream)
    lines.push_back({"stream:", fmt::format("{} (logic stream {}, event {})", d.stream->stream_id,
                                            d.stream->logic_id, d.stream->event_id)});
  else if (d.task)
    lines.push_back({"stream:", fmt::format("{} (task_info_graph)", d.task->stream_id)});
  if (d.node) {
    std::string inputs;
    for (const std::string& type : d.node->input_types)
      inputs += (inputs.empty() ? "" : ", ") + type;
    lines.push_back({"graph:", fmt::format("{} in {} ({} nodes)", d.graph->name,
                                           base_name(d.graph_file->path), d.graph->nodes.size())});
    lines.push_back(
        {"node:", fmt::format("{} = {}({}) -> {}", d.node->name, d.node->op, inputs,
                              d.node->output_type.empty() ? "?" : d.node->output_type)});
    for (const std::string& source : d.node->source) lines.push_back({"source:", source});
  }
  if (d.memory)
    lines.push_back(
        {"memory:",
         fmt::format("{} input{} ({} B), {} workspace{} ({} B), {} output{} ({} B)",
                     d.memory->inputs.size(), d.memory->inputs.size() == 1 ? "" : "s",
                     total_bytes(d.memory->inputs), d.memory->workspaces.size(),
                     d.memory->workspaces.size() == 1 ? "" : "s", total_bytes(d.memory->workspaces),
                     d.memory->outputs.size(), d.memory->outputs.size() == 1 ? "" : "s",
                     total_bytes(d.memory->outputs))});
  out += indent_rows(lines, "    ");
  if (d.memory) {
    std::vector<std::vector<std::string>> buffers;
    auto add = [&](std::string_view role, const std::vector<Buffer>& list) {
      for (size_t i = 0; i < list.size(); ++i)
        buffers.push_back(
            {fmt::format("{} {}", role, i), hex(list[i].address), std::to_string(list[i].size)});
    };
    add("input", d.memory->inputs);
    add("workspace", d.memory->workspaces);
    add("output", d.memory->outputs);
    if (!buffers.empty()) out += indent_rows(buffers, "      ");
  }
  out += "  next: " + shown(d.next) + "\n";
  if (!s.rank->ignored.empty())
    out += fmt::format("  ignored: {} file{} whose names are not the recorder's\n",
                       s.rank->ignored.size(), s.rank->ignored.size() == 1 ? "" : "s");
  return out;
}

json report_json(const Stop& s) {
  json j;
  j["timestamp"] = s.failure->timestamp;
  j["time"] = readable_time(s.failure->timestamp);
  json files = json::array();
  for (const RecorderFile& file : s.failure->files) files.push_back(file_json(file));
  j["files"] = files;
  j["diagnosis"] = diagnosis_json(s.diagnosis);
  return j;
}

// ---- --exec-order ----

// The kernels of one block to show: --context kernels each side of each marked one (windows
// that touch are merged), or the whole block when nothing is marked and nothing was asked for.
struct Window {
  std::vector<std::pair<size_t, size_t>> ranges;  // [first, last), in order
  std::set<size_t> marked;
  bool whole = false;
};

// `diagnosed`: this block holds the diagnosis's position; `only`: no block of the failure does
// (each block is then shown whole).
Window window_of(const ExecBlock& block, const Diagnosis& d, bool diagnosed, bool only,
                 const ViewOptions& options) {
  Window w;
  size_t n = block.nodes.size();
  if (options.around) {
    for (size_t i = 0; i < n; ++i)
      if (options.around->search(block.nodes[i].debug_string)) w.marked.insert(i);
  } else if (diagnosed && d.position) {
    w.marked.insert(*d.position);
  }
  if (w.marked.empty()) {
    if (!options.around && only && n > 0) {
      w.ranges.push_back({0, n});
      w.whole = true;
    }
    return w;
  }
  for (size_t i : w.marked) {
    size_t first = i > options.context ? i - options.context : 0;
    size_t last = std::min(n, i + options.context + 1);
    if (!w.ranges.empty() && first <= w.ranges.back().second)
      w.ranges.back().second = last;
    else
      w.ranges.push_back({first, last});
  }
  w.whole = w.ranges.size() == 1 && w.ranges[0].first == 0 && w.ranges[0].second == n;
  return w;
}

// The stream assignment of each execution-order index of `exec`'s graph, looked up once per file
// (a whole block of tens of thousands of kernels is shown when no kernel was located).
std::vector<const StreamNode*> streams_by_index(const Failure& failure, const RecorderFile& exec) {
  size_t kernels = 0;
  for (const ExecBlock& block : exec.exec_order->blocks)
    kernels = std::max(kernels, block.nodes.size());
  std::vector<const StreamNode*> by_index(kernels, nullptr);
  for (const RecorderFile& file : failure.files)
    if (file.kind == Kind::StreamAssignment && file.streams && !file.streams->arrays.empty() &&
        (!file.name.graph_id || !exec.name.graph_id || *file.name.graph_id == *exec.name.graph_id))
      for (const StreamNode& node : file.streams->arrays.back())
        if (node.index < kernels && !by_index[node.index]) by_index[node.index] = &node;
  return by_index;
}

std::string exec_order_text(const Stop& s, const ViewOptions& options) {
  std::string out = failure_heading(s);
  bool any = false;
  for (const RecorderFile& file : s.failure->files) {
    if (file.kind != Kind::ExecOrder || !file.exec_order) continue;
    const auto& blocks = file.exec_order->blocks;
    const auto streams = streams_by_index(*s.failure, file);
    for (size_t b = 0; b < blocks.size(); ++b) {
      bool diagnosed = s.diagnosis.exec_file == &file && s.diagnosis.block == b;
      Window w = window_of(blocks[b], s.diagnosis, diagnosed, !s.diagnosis.position, options);
      if (w.ranges.empty()) continue;
      any = true;
      out += fmt::format("  {} block {} of {}: {} kernels{}\n", shown(base_name(file.path)), b + 1,
                         blocks.size(), blocks[b].nodes.size(), w.whole ? "" : ", part shown");
      std::vector<std::vector<std::string>> rows{
          {"", "index", "graph", "name", "op", "label", "stream", "inputs"}};
      for (size_t r = 0; r < w.ranges.size(); ++r) {
        if (r > 0) rows.push_back({"", "...", "", "", "", "", "", ""});
        for (size_t i = w.ranges[r].first; i < w.ranges[r].second; ++i) {
          const ExecNode& n = blocks[b].nodes[i];
          const StreamNode* stream = streams[i];
          std::string inputs;
          for (const std::string& input : n.inputs) inputs += (inputs.empty() ? "" : ", ") + input;
          rows.push_back({w.marked.contains(i) ? ">" : "", std::to_string(n.index),
                          n.graph.empty() ? "-" : n.graph, n.name.empty() ? n.debug_string : n.name,
                          n.op.empty() ? "-" : n.op, std::to_string(n.stream_label),
                          stream ? std::to_string(stream->stream_id) : "-",
                          inputs.empty() ? "-" : inputs});
        }
      }
      out += indent_rows(rows, "  ");
    }
  }
  if (!any)
    out += options.around ? "  no kernel of the execution order matches --around\n"
                          : "  no execution order recorded\n";
  return out;
}

json exec_order_json(const Stop& s, const ViewOptions& options) {
  json blocks_out = json::array();
  for (const RecorderFile& file : s.failure->files) {
    if (file.kind != Kind::ExecOrder || !file.exec_order) continue;
    const auto& blocks = file.exec_order->blocks;
    const auto streams = streams_by_index(*s.failure, file);
    for (size_t b = 0; b < blocks.size(); ++b) {
      bool diagnosed = s.diagnosis.exec_file == &file && s.diagnosis.block == b;
      Window w = window_of(blocks[b], s.diagnosis, diagnosed, !s.diagnosis.position, options);
      if (w.ranges.empty()) continue;
      json nodes = json::array();
      for (const auto& [first, last] : w.ranges)
        for (size_t i = first; i < last; ++i) {
          const ExecNode& n = blocks[b].nodes[i];
          const StreamNode* stream = streams[i];
          nodes.push_back({{"index", n.index},
                           {"graph", n.graph},
                           {"name", n.name},
                           {"op", n.op},
                           {"inputs", n.inputs},
                           {"debug_string", n.debug_string},
                           {"stream_label", n.stream_label},
                           {"graph_id", n.graph_id},
                           {"stream_id", stream ? json(stream->stream_id) : json(nullptr)},
                           {"line", n.line},
                           {"marked", w.marked.contains(i)}});
        }
      blocks_out.push_back({{"file", file.path},
                            {"block", b},
                            {"declared", blocks[b].declared},
                            {"kernels", blocks[b].nodes.size()},
                            {"nodes", nodes}});
    }
  }
  return {{"timestamp", s.failure->timestamp}, {"blocks", blocks_out}};
}

// ---- --memory ----

struct Held {
  size_t kernel = 0;  // index in the memory list
  const KernelMemory* memory = nullptr;
  std::string role;  // input, workspace, output
  size_t slot = 0;
  Buffer buffer;
  std::vector<std::string> overlaps;
};

std::vector<Held> held_buffers(const MemoryList& list) {
  std::vector<Held> held;
  for (size_t k = 0; k < list.kernels.size(); ++k) {
    const KernelMemory& m = list.kernels[k];
    auto add = [&](const char* role, const std::vector<Buffer>& buffers) {
      for (size_t i = 0; i < buffers.size(); ++i) held.push_back({k, &m, role, i, buffers[i], {}});
    };
    add("input", m.inputs);
    add("workspace", m.workspaces);
    add("output", m.outputs);
  }
  // Two buffers of one kernel overlap when their ranges intersect without being the same range
  // (an input and an output at one address and size is an in-place kernel). Buffers of different
  // kernels may share memory legitimately (the memory planner reuses what a dead tensor held), so
  // they are not compared. Each kernel's buffers (consecutive in `held`) are sorted by address and
  // each is compared with the ones of the kernel that start before it ends: n log n over the list,
  // however much memory the kernels share (a sweep over every buffer at once would compare each
  // with all the other kernels' buffers at the addresses the planner reuses). The parser keeps
  // every end within 64 bits.
  auto label = [&](const Held& h) { return fmt::format("{} {}", h.role, h.slot); };
  std::vector<size_t> order;
  for (size_t begin = 0, end = 0; begin < held.size(); begin = end) {
    while (end < held.size() && held[end].kernel == held[begin].kernel) ++end;
    order.clear();
    for (size_t i = begin; i < end; ++i) order.push_back(i);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return held[a].buffer.address < held[b].buffer.address;
    });
    for (size_t i = 0; i < order.size(); ++i) {
      Held& a = held[order[i]];
      if (a.buffer.size == 0) continue;
      uint64_t a_end = a.buffer.address + a.buffer.size;
      for (size_t j = i + 1; j < order.size(); ++j) {
        Held& b = held[order[j]];
        if (b.buffer.address >= a_end) break;
        if (b.buffer.size == 0) continue;
        if (a.buffer.address == b.buffer.address && a.buffer.size == b.buffer.size) continue;
        a.overlaps.push_back(label(b));
        b.overlaps.push_back(label(a));
      }
    }
  }
  std::stable_sort(held.begin(), held.end(),
                   [](const Held& a, const Held& b) { return a.buffer.size > b.buffer.size; });
  return held;
}

std::string memory_text(const Stop& s) {
  std::string out = failure_heading(s);
  const RecorderFile* file = s.diagnosis.memory_file;
  if (!file) return out + "  no memory address list recorded\n";
  std::vector<Held> held = held_buffers(*file->memory);
  out += fmt::format("  {}: {} kernels, {} buffers, largest first\n", shown(base_name(file->path)),
                     s.diagnosis.launched, held.size());
  std::vector<std::vector<std::string>> rows{
      {"size", "address", "end", "role", "kernel", "overlaps"}};
  std::map<std::string, uint64_t> totals;
  uint64_t overlapping = 0;
  for (const Held& h : held) {
    totals[h.role] += h.buffer.size;
    if (!h.overlaps.empty()) ++overlapping;
    rows.push_back(
        {std::to_string(h.buffer.size), hex(h.buffer.address),
         hex(h.buffer.address + h.buffer.size), fmt::format("{} {}", h.role, h.slot),
         fmt::format("{} {}", h.kernel, h.memory->op),
         h.overlaps.empty()
             ? ""
             : "OVERLAPS " + h.overlaps.front() +
                   (h.overlaps.size() > 1 ? fmt::format(" (+{} more)", h.overlaps.size() - 1)
                                          : "")});
  }
  out += indent_rows(rows, "  ");
  out += fmt::format(
      "  total: inputs {} B, workspaces {} B, outputs {} B; {} buffer{} overlap{} "
      "another of the same kernel\n",
      totals["input"], totals["workspace"], totals["output"], overlapping,
      overlapping == 1 ? "" : "s", overlapping == 1 ? "s" : "");
  return out;
}

json memory_json(const Stop& s) {
  const RecorderFile* file = s.diagnosis.memory_file;
  std::vector<Held> held = file ? held_buffers(*file->memory) : std::vector<Held>{};
  json buffers = json::array();
  std::map<std::string, uint64_t> totals{{"input", 0}, {"workspace", 0}, {"output", 0}};
  for (const Held& h : held) {
    totals[h.role] += h.buffer.size;
    buffers.push_back({{"size", h.buffer.size},
                       {"address", hex(h.buffer.address)},
                       {"role", h.role},
                       {"slot", h.slot},
                       {"kernel_index", h.kernel},
                       {"kernel", h.memory->op},
                       {"overlaps", h.overlaps}});
  }
  return {{"timestamp", s.failure->timestamp},
          {"file", file ? json(file->path) : json(nullptr)},
          {"kernels", s.diagnosis.launched},
          {"totals",
           {{"inputs", totals["input"]},
            {"workspaces", totals["workspace"]},
            {"outputs", totals["output"]}}},
          {"buffers", buffers}};
}

// ---- --streams ----

struct StreamUse {
  uint64_t kernels = 0;
  std::optional<uint64_t> first, last;
  std::set<uint64_t> sends, waits, active,
      labels;  // events sent and waited for (Send/Recv kernels)
};

std::map<uint64_t, StreamUse> stream_uses(const Failure& failure, std::string* source) {
  std::map<uint64_t, StreamUse> uses;
  for (const RecorderFile& file : failure.files)
    if (file.kind == Kind::StreamAssignment && file.streams && !file.streams->arrays.empty()) {
      *source += (source->empty() ? "" : ", ") + base_name(file.path);
      for (const StreamNode& n : file.streams->arrays.back()) {
        StreamUse& u = uses[n.stream_id];
        ++u.kernels;
        u.first = std::min(u.first.value_or(n.index), n.index);
        u.last = std::max(u.last.value_or(n.index), n.index);
        // event_id means something only on the event kernels (StreamSend, StreamRecv).
        std::string op = op_type_of(n.node_name);
        if (op.ends_with("Send")) u.sends.insert(n.event_id);
        if (op.ends_with("Recv")) u.waits.insert(n.event_id);
        u.active.insert(n.active_streams.begin(), n.active_streams.end());
        u.labels.insert(n.label_ids.begin(), n.label_ids.end());
      }
    }
  if (!uses.empty()) return uses;
  for (const RecorderFile& file : failure.files)
    if (file.kind == Kind::TaskInfo && file.tasks) {
      *source += (source->empty() ? "" : ", ") + base_name(file.path);
      for (const TaskInfo& t : file.tasks->tasks) {
        StreamUse& u = uses[t.stream_id];
        ++u.kernels;
        u.first = std::min(u.first.value_or(t.task_index), t.task_index);
        u.last = std::max(u.last.value_or(t.task_index), t.task_index);
      }
    }
  return uses;
}

std::string joined(const std::set<uint64_t>& values) {
  std::string out;
  for (uint64_t v : values) out += (out.empty() ? "" : ",") + std::to_string(v);
  return out.empty() ? "-" : out;
}

std::string streams_text(const Stop& s) {
  std::string out = failure_heading(s);
  std::string source;
  auto uses = stream_uses(*s.failure, &source);
  if (uses.empty())
    return out +
           "  no stream assignment recorded (assign_stream and task_info_graph are Ascend's)\n";
  out += "  from " + source + "\n";
  std::vector<std::vector<std::string>> rows{
      {"stream", "kernels", "first", "last", "sends", "waits", "activates", "labels", ""}};
  for (const auto& [id, u] : uses)
    rows.push_back(
        {std::to_string(id), std::to_string(u.kernels), std::to_string(*u.first),
         std::to_string(*u.last), joined(u.sends), joined(u.waits), joined(u.active),
         joined(u.labels),
         (s.diagnosis.stream && s.diagnosis.stream->stream_id == id) ||
                 (!s.diagnosis.stream && s.diagnosis.task && s.diagnosis.task->stream_id == id)
             ? "<- the last kernel launched"
             : ""});
  out += indent_rows(rows, "  ");
  return out;
}

json streams_json(const Stop& s) {
  std::string source;
  auto uses = stream_uses(*s.failure, &source);
  json list = json::array();
  for (const auto& [id, u] : uses)
    list.push_back({{"stream_id", id},
                    {"kernels", u.kernels},
                    {"first_index", *u.first},
                    {"last_index", *u.last},
                    {"sends_events", u.sends},
                    {"waits_events", u.waits},
                    {"active_streams", u.active},
                    {"label_ids", u.labels}});
  const Diagnosis& d = s.diagnosis;
  return {{"timestamp", s.failure->timestamp},
          {"source", source.empty() ? json(nullptr) : json(source)},
          {"last_kernel_stream", d.stream ? json(d.stream->stream_id)
                                 : d.task ? json(d.task->stream_id)
                                          : json(nullptr)},
          {"streams", list}};
}

// ---- --graph ID ----

const RecorderFile* graph_file(const std::vector<Stop>& stops, uint32_t id, const Stop** owner) {
  for (const Stop& s : stops)
    for (const RecorderFile& file : s.failure->files)
      if (file.kind == Kind::Graph && file.graph && file.name.graph_id &&
          *file.name.graph_id == id) {
        *owner = &s;
        return &file;
      }
  return nullptr;
}

template <class PerStop>
json per_rank_json(const std::vector<Recording>& recordings, const std::vector<Stop>& stops,
                   const char* key, PerStop per_stop) {
  json out = json::array();
  for (const Recording& recording : recordings) {
    json ranks = json::array();
    for (const RankRecord& rank : recording.ranks) {
      json failures = json::array();
      for (const Stop& s : stops)
        if (s.rank == &rank) failures.push_back(per_stop(s));
      ranks.push_back({{"rank", rank_json(rank)},
                       {"directory", rank.directory},
                       {"ignored", rank.ignored},
                       {key, failures}});
    }
    out.push_back({{"input", recording.input}, {"ranks", ranks}});
  }
  return out;
}

}  // namespace

Expected<std::string> render(const std::vector<Recording>& recordings, const ViewOptions& options) {
  std::vector<Stop> stops = stops_of(recordings);
  if (options.view == View::Graph || options.view == View::Dot) {
    const Stop* owner = nullptr;
    const RecorderFile* file = graph_file(stops, *options.graph_id, &owner);
    if (!file)
      return Error(fmt::format("no graph file of graph {} was recorded", *options.graph_id));
    if (options.view == View::Dot) return ir::draw_dot(*file->graph, ir::DrawOptions{});
    ir::Counts counts = ir::count_nodes(*file->graph, 3);
    if (options.json)
      return table::to_json_text(json{{"file", file->path},
                                      {"rank", rank_json(*owner->rank)},
                                      {"timestamp", owner->failure->timestamp},
                                      {"style", file->detail},
                                      {"entry", file->graph->entry},
                                      {"counts", ir::counts_json(counts)}},
                                 2) +
             "\n";
    return fmt::format("{} ({}, {})\n", file->path, rank_label(*owner->rank),
                       readable_time(owner->failure->timestamp)) +
           fmt::format("style: {}\nentry: {}\n", file->detail,
                       file->graph->entry.empty() ? "-" : file->graph->entry) +
           ir::counts_text(counts);
  }
  if (options.json) {
    json doc;
    switch (options.view) {
      case View::Report:
        doc["recordings"] = per_rank_json(recordings, stops, "failures", report_json);
        doc["ranks_compared"] = several_ranks(stops) ? stops_json(stops) : json(nullptr);
        break;
      case View::ExecOrder:
        doc["recordings"] = per_rank_json(recordings, stops, "failures", [&](const Stop& s) {
          return exec_order_json(s, options);
        });
        break;
      case View::Memory:
        doc["recordings"] = per_rank_json(recordings, stops, "failures", memory_json);
        break;
      case View::Streams:
        doc["recordings"] = per_rank_json(recordings, stops, "failures", streams_json);
        break;
      default:
        break;
    }
    return table::to_json_text(doc, 2) + "\n";
  }
  std::string out;
  for (const Stop& s : stops) {
    if (!out.empty()) out += "\n";
    switch (options.view) {
      case View::Report:
        out += report_text(s);
        break;
      case View::ExecOrder:
        out += exec_order_text(s, options);
        break;
      case View::Memory:
        out += memory_text(s);
        break;
      case View::Streams:
        out += streams_text(s);
        break;
      default:
        break;
    }
  }
  if (options.view == View::Report && several_ranks(stops)) out += "\n" + stops_text(stops);
  return out;
}

}  // namespace msdt::rdr
