#include "watch/check.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <tuple>
#include <unordered_map>

#include "dump/dump_file.h"
#include "dump/file_roles.h"
#include "dump/file_workers.h"
#include "dump/side_files.h"
#include "dump/tree.h"
#include "io/mapped_file.h"
#include "tensor/element_values.h"
#include "tensor/stats.h"

namespace msdt::watch {
namespace {

namespace fs = std::filesystem;
using dump::DumpDirectory;
using dump::DumpFile;
using dump::DumpTensor;
using dump::FileKind;

// The node name of a file as far as its name tells: format A writes the scope with "--".
std::string file_node(const DumpFile& file) {
  std::string name = file.name.op_name;
  if (file.name.kind == FileKind::LegacyBin) {
    std::string out;
    for (size_t i = 0; i < name.size(); ++i) {
      if (name.compare(i, 2, "--") == 0) {
        out += '/';
        ++i;
      } else {
        out += name[i];
      }
    }
    return out;
  }
  return name;
}

std::string tensor_node(const DumpFile& file, const DumpTensor& tensor) {
  if (tensor.container && !tensor.container->op_name.empty()) return tensor.container->op_name;
  if (tensor.format == "statistic") return tensor.op_name;
  return file_node(file);
}

bool holds_tensors(FileKind kind) {
  return dump::kind_holds_tensors(kind) || kind == FileKind::Unknown;
}

bool one_file_per_tensor(FileKind kind) {
  return kind == FileKind::Npy || kind == FileKind::LegacyBin || kind == FileKind::MsprobeRaw ||
         kind == FileKind::ConvertedNpy;
}

std::string tensor_key(std::string_view node, std::string_view io, std::optional<uint32_t> slot) {
  return fmt::format("{}\x1f{}\x1f{}", node, io, slot ? std::to_string(*slot) : "");
}

std::string io_of(const DumpFile& file) {
  return file.name.io ? std::string(dump::io_name(*file.name.io)) : std::string();
}

struct ExecutionOrder {
  std::unordered_map<std::string, uint64_t> index;  // node (as written, and with '_') -> place
  uint64_t size = 0;
};

// What the directories of one rank share: graph histories, execution orders, overflow files of
// rank_R/debug_files/{iteration}.
struct RankInfo {
  std::map<uint32_t, std::vector<uint64_t>> history;  // graph -> iterations, in file order
  std::map<uint32_t, std::string> history_file;
  std::map<uint32_t, ExecutionOrder> order;
  std::map<uint64_t, std::set<std::pair<uint64_t, uint64_t>>>
      overflow;  // iteration -> task, stream
};

// A directory of tensors as the first walk saw it, without its files: the tree's file list is
// not kept, only one iteration's worth at a time (the directories are read again when checked).
struct DirInfo {
  fs::path path;
  std::string display;
  dump::DumpLocation where;
  bool selected = true;    // by --iteration, --rank, --graph
  std::string rank_key;    // the rank directory: where execution_order/ and debug_files/ live
  std::string series_key;  // the directory holding the iteration directories
  // The folder of a lone file or of standard input: kept as the walk gave it (reading the folder
  // again would find other files).
  std::shared_ptr<const DumpDirectory> kept;
};

// A directory with its files, indexed for finding previous values.
struct TensorDir {
  const DirInfo* info = nullptr;
  DumpDirectory owned;
  const DumpDirectory* dir = &owned;
  // tensor key (node, io, slot) -> file; node -> container files
  std::unordered_map<std::string, const DumpFile*> by_tensor;
  std::unordered_map<std::string, std::vector<const DumpFile*>> containers;
};

bool newer(const DumpFile& a, const DumpFile& b) {
  // The newest file wins (§3.2): the larger timestamp, then the larger name.
  if (a.name.timestamp && b.name.timestamp && *a.name.timestamp != *b.name.timestamp)
    return *a.name.timestamp > *b.name.timestamp;
  return a.stored_name > b.stored_name;
}

void index_directory(TensorDir& t) {
  for (const DumpFile& f : t.dir->files) {
    if (!holds_tensors(f.name.kind) || f.name.kind == FileKind::StatisticCsv ||
        f.name.kind == FileKind::Overflow || f.name.kind == FileKind::OverflowJson)
      continue;
    std::string node = file_node(f);
    if (one_file_per_tensor(f.name.kind)) {
      auto [it, inserted] = t.by_tensor.emplace(tensor_key(node, io_of(f), f.name.slot), &f);
      if (!inserted && newer(f, *it->second)) it->second = &f;
    } else {
      t.containers[node].push_back(&f);
    }
  }
}

Expected<std::string> read_small_file(const DumpFile& file) {
  MSDT_TRY(auto mapped, dump::open_dump_file(file));
  Bytes b = mapped->bytes();
  return std::string(reinterpret_cast<const char*>(b.data()), b.size());
}

struct Row {
  CheckedTensor tensor;
  std::vector<Record> records;
  std::vector<const Watchpoint*> evaluated;
  std::string key;  // node, io, slot
};

class Checker {
 public:
  Checker(const CheckOptions& options, CheckListener& listener, Diagnostics& diagnostics)
      : options_(options), listener_(listener), diagnostics_(diagnostics) {}

  void run() {
    std::set<std::string> lone;  // roots that are files or standard input
    for (const std::string& root : options_.roots) {
      std::error_code ec;
      if (root == "-" || fs::is_regular_file(root, ec)) lone.insert(root);
    }
    dump::WalkCallbacks callbacks;
    callbacks.directory = [&](const DumpDirectory& d) { classify(d, lone); };
    callbacks.error = [&](const std::string& display, const Error& e) {
      diagnostics_.error(display, e);
    };
    callbacks.warning = [&](const std::string& display, const Error& w) {
      diagnostics_.warning(display, w);
    };
    dump::walk_dump_tree(options_.roots, callbacks);
    order();
    for (size_t i : order_) {
      // One directory's files in memory at a time (two while a change condition reads the
      // previous iteration's): the tree's size does not matter.
      if (!check_directory(*load(dirs_[i]))) return;
    }
  }

 private:
  static std::string rank_key_of(const DumpDirectory& d) {
    // rank_R/{net}/{graph}/{iteration}: three levels up; rank_R/execution_order: one.
    if (d.where.layout == "rank" && d.where.graph)
      return d.path.parent_path().parent_path().parent_path().string();
    return d.path.parent_path().string();
  }

  // The files of a directory, read again (errors were reported by the first walk).
  std::shared_ptr<TensorDir> load(const DirInfo& info) const {
    auto t = std::make_shared<TensorDir>();
    t->info = &info;
    if (info.kept) {
      t->owned = *info.kept;
    } else {
      dump::WalkCallbacks quiet;
      const std::string root = info.path.string();
      quiet.directory = [&](const DumpDirectory& d) {
        if (d.path != info.path) return;
        t->owned = d;
        // The displays as the first walk spelled them (from the user's argument).
        if (info.display != d.display)
          for (DumpFile& f : t->owned.files)
            if (f.display.starts_with(d.display))
              f.display = info.display + f.display.substr(d.display.size());
        t->owned.display = info.display;
      };
      quiet.error = [](const std::string&, const Error&) {};
      dump::walk_dump_tree(std::span<const std::string>(&root, 1), quiet);
      t->owned.where = info.where;
    }
    index_directory(*t);
    return t;
  }

  void classify(const DumpDirectory& d, const std::set<std::string>& lone) {
    bool side = false;
    for (const DumpFile& f : d.files) {
      if (f.name.kind == FileKind::GlobalExecutionOrder && f.name.graph_id) {
        side = true;
        RankInfo& info = ranks_[d.path.parent_path().string()];
        auto text = read_small_file(f);
        auto list = text ? dump::parse_global_execution_order(*text)
                         : Expected<std::vector<uint64_t>>(text.error());
        if (!list) {
          diagnostics_.error(f.display, list.error());
          continue;
        }
        info.history[*f.name.graph_id] = std::move(*list);
        info.history_file[*f.name.graph_id] = f.display;
      } else if (f.name.kind == FileKind::ExecutionOrder && f.name.graph_id) {
        side = true;
        RankInfo& info = ranks_[d.path.parent_path().string()];
        auto text = read_small_file(f);
        auto list = text ? dump::parse_execution_order(*text)
                         : Expected<std::vector<std::string>>(text.error());
        if (!list) {
          diagnostics_.error(f.display, list.error());
          continue;
        }
        ExecutionOrder& order = info.order[*f.name.graph_id];
        order.size = list->size();
        for (uint64_t i = 0; i < list->size(); ++i) {
          order.index.emplace((*list)[i], i);
          order.index.emplace(scope_with_underscores((*list)[i]), i);
          // 1.3-2.2 file names carry the name without its scope.
          std::string_view full = (*list)[i];
          if (auto slash = full.rfind('/'); slash != std::string_view::npos)
            order.index.emplace(std::string(full.substr(slash + 1)), i);
        }
      }
    }
    if (side || d.where.constants) return;
    if (d.where.iteration && d.where.layout == "rank" && !d.where.graph) {
      // rank_R/debug_files/{iteration}: overflow files for every graph of the rank.
      RankInfo& info = ranks_[d.path.parent_path().parent_path().string()];
      for (const DumpFile& f : d.files)
        if ((f.name.kind == FileKind::Overflow || f.name.kind == FileKind::OverflowJson) &&
            f.name.task_id && f.name.stream_id)
          info.overflow[*d.where.iteration].insert({*f.name.task_id, *f.name.stream_id});
      return;
    }
    const dump::DumpLocation& w = d.where;
    DirInfo info;
    info.path = d.path;
    info.display = d.display;
    info.where = w;
    // Directories outside the selection are still listed: they may hold previous values.
    info.selected =
        !(options_.iterations && (!w.iteration || !options_.iterations->contains(*w.iteration))) &&
        !(options_.ranks && (!w.rank || !options_.ranks->contains(*w.rank))) &&
        !(options_.graphs && (!w.graph || !options_.graphs->contains(*w.graph)));
    info.rank_key = rank_key_of(d);
    info.series_key = d.path.parent_path().string();
    if (d.files.size() == 1 && lone.contains(d.files[0].display))
      info.kept = std::make_shared<const DumpDirectory>(d);
    dirs_.push_back(std::move(info));
  }

  void order() {
    for (size_t i = 0; i < dirs_.size(); ++i) {
      if (dirs_[i].where.iteration) series_[dirs_[i].series_key][*dirs_[i].where.iteration] = i;
      if (dirs_[i].selected) order_.push_back(i);
    }
    std::sort(order_.begin(), order_.end(), [&](size_t a, size_t b) {
      const dump::DumpLocation &x = dirs_[a].where, &y = dirs_[b].where;
      auto key = [](const dump::DumpLocation& l) {
        // Absent fields first, as jq's sort_by orders null (README's merge recipe).
        return std::tuple(l.iteration, l.rank, l.graph, l.net);
      };
      if (key(x) != key(y)) return key(x) < key(y);
      return dirs_[a].path < dirs_[b].path;
    });
  }

  // The watchpoints that apply to a directory: INIT ones only in `init`, the others elsewhere.
  std::vector<const Watchpoint*> applicable(const dump::DumpLocation& w) const {
    std::vector<const Watchpoint*> out;
    bool init = w.iteration == dump::kInitIteration;
    for (const Watchpoint& wp : options_.watchpoints)
      if ((wp.condition->backend == Backend::Init) == init && watches_location(wp, w.rank, w.graph))
        out.push_back(&wp);
    return out;
  }

  struct PreviousPlace {
    Previous state = Previous::NotNeeded;
    std::string reason;
    std::shared_ptr<const TensorDir> dir;
    uint64_t iteration = 0;
  };

  PreviousPlace previous_of(const TensorDir& t) const {
    PreviousPlace p;
    const dump::DumpLocation& w = t.dir->where;
    if (!w.iteration) {
      p.state = Previous::NoIteration;
      p.reason = "the iteration of this file is unknown";
      return p;
    }
    uint64_t it = *w.iteration;
    std::optional<uint64_t> prev;
    auto rank = ranks_.find(t.info->rank_key);
    bool old_layout = w.layout == "sync-1.1" || w.layout == "async-1.1";
    const std::vector<uint64_t>* history = nullptr;
    if (rank != ranks_.end() && w.graph) {
      auto h = rank->second.history.find(*w.graph);
      if (h != rank->second.history.end()) history = &h->second;
    }
    auto series = series_.find(t.info->series_key);
    if (history) {
      auto pos = std::find(history->begin(), history->end(), it);
      if (pos == history->end()) {
        p.state = Previous::NoIteration;
        p.reason = fmt::format("iteration {} is not in the history of graph {}", it, *w.graph);
        return p;
      }
      if (pos == history->begin()) {
        p.state = Previous::NoIteration;
        p.reason =
            fmt::format("iteration {} is the first in the history of graph {}", it, *w.graph);
        return p;
      }
      prev = *(pos - 1);
    } else if (old_layout || !w.graph) {
      // 1.x trees have no history file: the nearest lower iteration on disk, as MindSpore 1.2.
      if (series != series_.end()) {
        auto here = series->second.find(it);
        if (here != series->second.end() && here != series->second.begin())
          prev = std::prev(here)->first;
      }
      if (!prev) {
        p.state = Previous::NoIteration;
        p.reason = fmt::format("no iteration before {} on disk", it);
        return p;
      }
    } else {
      p.state = Previous::NoHistory;
      p.reason = fmt::format("execution_order/ms_global_execution_order_graph_{}.csv is missing",
                             *w.graph);
      return p;
    }
    p.iteration = *prev;
    if (series != series_.end()) {
      auto d = series->second.find(*prev);
      if (d != series->second.end()) p.dir = load(dirs_[d->second]);  // read again, released after
    }
    if (!p.dir) {
      p.state = Previous::NotFound;
      p.reason = fmt::format("the previous iteration {} has no directory", *prev);
      return p;
    }
    p.state = Previous::Present;
    return p;
  }

  // The previous iteration's value of a tensor, kept readable while it is compared.
  struct PreviousValue {
    std::shared_ptr<const MappedFile> bytes;
    std::optional<TensorView> view;
  };

  // Finds the previous value of a tensor; says in `facts` why there is none.
  PreviousValue find_previous(const PreviousPlace& place, const std::string& node,
                              const std::string& file_level_node, const DumpTensor& tensor,
                              TensorFacts& facts, dump::DeferredDiagnostics& problems) {
    facts.previous = place.state;
    facts.previous_reason = place.reason;
    if (place.state != Previous::Present) return {};
    const DumpFile* file = nullptr;
    auto it = place.dir->by_tensor.find(tensor_key(file_level_node, tensor.io, tensor.slot));
    if (it != place.dir->by_tensor.end()) file = it->second;
    if (!file) {
      auto c = place.dir->containers.find(file_level_node);
      if (c != place.dir->containers.end() && !c->second.empty())
        file =
            *std::max_element(c->second.begin(), c->second.end(),
                              [](const DumpFile* a, const DumpFile* b) { return newer(*b, *a); });
    }
    facts.previous = Previous::NotFound;
    facts.previous_reason =
        fmt::format("iteration {} has no {} {}{}", place.iteration, node, tensor.io,
                    tensor.slot ? fmt::format(" {}", *tensor.slot) : "");
    if (!file) return {};
    auto mapped = dump::open_dump_file(*file, Reading::Whole);
    if (!mapped) {
      problems.error(file->display, mapped.error());
      return {};
    }
    PreviousValue value;
    value.bytes = *mapped;
    auto status = dump::read_dump_file(*file, value.bytes->bytes(), [&](const DumpTensor& t) {
      if (!value.view && t.view && t.io == tensor.io && t.slot == tensor.slot) value.view = t.view;
    });
    if (status) {
      problems.error(file->display, *status);
      return {};
    }
    if (value.view) {
      facts.previous = Previous::Present;
      facts.previous_reason.clear();
    }
    return value;
  }

  std::optional<Row> check_tensor(const TensorDir& t, const std::vector<const Watchpoint*>& wps,
                                  const std::set<std::pair<uint64_t, uint64_t>>& overflow,
                                  const PreviousPlace& previous, const DumpFile& file,
                                  const DumpTensor& tensor, unsigned stats_jobs,
                                  dump::DeferredDiagnostics& problems) {
    if (tensor.format == "overflow" || tensor.format == "overflow-json") return std::nullopt;
    const dump::DumpLocation& w = t.dir->where;
    std::string node = tensor_node(file, tensor);
    std::vector<const Watchpoint*> mine;
    for (const Watchpoint* wp : wps)
      if (watches(*wp, node, tensor.op_type, tensor.io, tensor.slot)) mine.push_back(wp);
    if (mine.empty() && !options_.every_tensor) return std::nullopt;

    Row row;
    row.key = tensor_key(file_node(file), tensor.io, tensor.slot);
    CheckedTensor& ct = row.tensor;
    ct.iteration = w.iteration;
    ct.rank = w.rank;
    ct.graph = w.graph;
    ct.net = w.net;
    ct.node = node;
    ct.op_type = tensor.op_type;
    ct.io = tensor.io;
    ct.slot = tensor.slot;
    ct.file = file.display;

    Needs needs;
    for (const Watchpoint* wp : mine) needs.add(*wp);
    TensorFacts facts;
    if (tensor.format == "statistic") {
      const dump::StatisticRow& r = *tensor.statistics;
      facts.source = "statistic.csv";
      facts.count = r.count.value_or(0);
      if (!r.count && r.shape.empty() == false) {
        uint64_t n = 1;
        for (uint64_t d : r.shape) n *= d;
        facts.count = n;
      }
      facts.nan = r.nan_count;
      if (r.negative_inf_count && r.positive_inf_count)
        facts.inf = *r.negative_inf_count + *r.positive_inf_count;
      facts.zero = r.zero_count;
      facts.min = r.min;
      facts.max = r.max;
      facts.mean = r.avg;
    } else if (!tensor.view) {
      facts.has_value = false;
      facts.no_value_reason = "the file holds no elements for this tensor";
    } else if (!has_real_values(tensor.view->dtype)) {
      facts.has_value = false;
      facts.no_value_reason =
          fmt::format("{} elements are not checked", dtype_name(tensor.view->dtype));
    } else {
      // One pass over the elements: statistics, range counts and the previous value together.
      PreviousValue before;
      if (needs.previous)
        before = find_previous(previous, node, file_node(file), tensor, facts, problems);
      PassRequest request;
      request.ranges = needs.ranges;
      request.previous = before.view ? &*before.view : nullptr;
      request.tolerances = needs.tolerances;
      TensorPass pass = one_pass(*tensor.view, stats_jobs, request);
      if (pass.stats.count == 0) {
        facts.has_value = false;
        facts.no_value_reason = "the tensor is empty";
      } else {
        facts_from_stats(pass.stats, facts);
        facts.range_counts = std::move(pass.range_counts);
        if (pass.change) {
          facts.change = std::move(pass.change);
        } else if (pass.change_error) {
          facts.previous = Previous::SizeDiffers;
          facts.previous_reason =
              fmt::format("iteration {}: {}", previous.iteration, pass.change_error->message);
        }
        if (pass.extras_error) problems.error(file.display, *pass.extras_error);
      }
    }
    facts.overflow = tensor.task_id && tensor.stream_id &&
                     overflow.contains({*tensor.task_id, *tensor.stream_id});
    ct.source = facts.source;
    ct.count = facts.count;
    ct.nan = facts.nan;
    ct.inf = facts.inf;
    ct.min = facts.min;
    ct.max = facts.max;

    for (const Watchpoint* wp : mine) {
      Verdict v = evaluate(*wp, needs, facts);
      row.evaluated.push_back(wp);
      if (!v.hit && v.error_code == 0 && !options_.all_records) continue;
      Record rec;
      rec.tensor = ct;
      rec.watchpoint = wp;
      rec.verdict = std::move(v);
      row.records.push_back(std::move(rec));
    }
    return row;
  }

  uint64_t order_of(const TensorDir& t, const std::string& node, uint64_t position) const {
    auto rank = ranks_.find(t.info->rank_key);
    if (rank != ranks_.end() && t.dir->where.graph) {
      auto o = rank->second.order.find(*t.dir->where.graph);
      if (o != rank->second.order.end()) {
        auto i = o->second.index.find(node);
        if (i == o->second.index.end()) i = o->second.index.find(scope_with_underscores(node));
        if (i != o->second.index.end()) return i->second;
        return o->second.size + position;
      }
    }
    return position;
  }

  // Returns false when the listener asked to stop.
  bool check_directory(const TensorDir& t) {
    const DumpDirectory& d = *t.dir;
    std::vector<const Watchpoint*> wps = applicable(d.where);
    if (wps.empty() && !options_.every_tensor) return true;

    std::set<std::pair<uint64_t, uint64_t>> overflow;
    if (auto r = ranks_.find(t.info->rank_key); r != ranks_.end())
      if (auto o = r->second.overflow.find(d.where.iteration.value_or(kUnknownIteration));
          o != r->second.overflow.end())
        overflow = o->second;
    std::vector<const DumpFile*> files, statistics;
    std::unordered_map<const DumpFile*, uint64_t> position;
    std::unordered_map<std::string, const DumpFile*> newest_container;
    for (uint64_t i = 0; i < d.files.size(); ++i) {
      const DumpFile& f = d.files[i];
      position[&f] = i;
      if ((f.name.kind == FileKind::Overflow || f.name.kind == FileKind::OverflowJson) &&
          f.name.task_id && f.name.stream_id)
        overflow.insert({*f.name.task_id, *f.name.stream_id});
    }
    bool previous_needed = false;
    for (const Watchpoint* wp : wps) previous_needed |= needs_previous(wp->condition->backend);
    PreviousPlace previous;
    if (previous_needed) previous = previous_of(t);

    for (const DumpFile& f : d.files) {
      if (f.name.kind == FileKind::StatisticCsv) {
        statistics.push_back(&f);
        continue;
      }
      if (!holds_tensors(f.name.kind) || f.name.kind == FileKind::Overflow ||
          f.name.kind == FileKind::OverflowJson)
        continue;
      // Outside a dump layout (no iteration: a folder of watch files, say), only files a dump
      // grammar names are read, and standard input.
      if (!d.where.iteration && f.name.kind == FileKind::Unknown && !f.standard_input) continue;
      std::string node = file_node(f);
      if (f.name.kind != FileKind::Unknown) {
        // Only the newest file of a tensor counts (§3.2).
        if (one_file_per_tensor(f.name.kind)) {
          auto it = t.by_tensor.find(tensor_key(node, io_of(f), f.name.slot));
          if (it != t.by_tensor.end() && it->second != &f) continue;
        } else {
          auto c = t.containers.find(node);
          if (c != t.containers.end() &&
              std::any_of(c->second.begin(), c->second.end(),
                          [&](const DumpFile* o) { return o != &f && newer(*o, f); }))
            continue;
        }
        bool wanted = options_.every_tensor;
        for (const Watchpoint* wp : wps) wanted = wanted || watches_node(*wp, node, f.name.op_type);
        if (!wanted) continue;
      }
      files.push_back(&f);
    }

    std::vector<Row> rows;
    std::set<std::string> seen;
    dump::read_files_in_order<Row>(
        files, options_.jobs,
        [&](const DumpFile& file, const DumpTensor& tensor, unsigned stats_jobs,
            dump::DeferredDiagnostics& problems) {
          return check_tensor(t, wps, overflow, previous, file, tensor, stats_jobs, problems);
        },
        [&](const DumpFile& file, std::vector<Row>&& got) {
          for (Row& r : got) {
            seen.insert(r.key);
            uint64_t pos = position[&file];
            for (Record& rec : r.records) rec.order = order_of(t, rec.tensor.node, pos);
            rows.push_back(std::move(r));
          }
        },
        diagnostics_, Reading::Whole);

    // statistic.csv rows for the tensors that have no file of their own (§ Statistics-only dumps).
    for (const DumpFile* f : statistics) {
      dump::DeferredDiagnostics problems;
      dump::read_one_file(
          *f,
          [&](const DumpTensor& tensor) {
            if (seen.contains(tensor_key(tensor.op_name, tensor.io, tensor.slot))) return;
            if (auto r = check_tensor(t, wps, overflow, previous, *f, tensor, 1, problems)) {
              // Each row its own place, after every file of the directory, in the CSV's order.
              uint64_t place = d.files.size() + (tensor.statistics ? tensor.statistics->line : 0);
              for (Record& rec : r->records) rec.order = order_of(t, rec.tensor.node, place);
              rows.push_back(std::move(*r));
            }
          },
          problems);
      problems.replay(diagnostics_);
    }

    std::map<const Watchpoint*, uint64_t> evaluated;
    std::vector<std::pair<const CheckedTensor*, Record*>> out;
    for (Row& r : rows) {
      for (const Watchpoint* wp : r.evaluated) ++evaluated[wp];
      for (Record& rec : r.records) out.push_back({&r.tensor, &rec});
    }
    for (Row& r : rows) listener_.tensor(r.tensor);
    std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
      const Record &x = *a.second, &y = *b.second;
      return std::tuple(x.order, x.tensor.io, x.tensor.slot, x.watchpoint->id) <
             std::tuple(y.order, y.tensor.io, y.tensor.slot, y.watchpoint->id);
    });
    // A folder outside any layout (beside a lone file) counts only when it held a tensor.
    if (d.where.iteration || !rows.empty())
      for (const Watchpoint* wp : wps)
        listener_.evaluated(*wp, d.where.iteration, evaluated.contains(wp) ? evaluated[wp] : 0);
    for (auto& [tensor, rec] : out)
      if (!listener_.record(*rec)) return false;
    return true;
  }

  const CheckOptions& options_;
  CheckListener& listener_;
  Diagnostics& diagnostics_;
  std::vector<DirInfo> dirs_;
  std::vector<size_t> order_;
  std::map<std::string, RankInfo> ranks_;
  std::map<std::string, std::map<uint64_t, size_t>> series_;
};

}  // namespace

void run_check(const CheckOptions& options, CheckListener& listener, Diagnostics& diagnostics) {
  Checker(options, listener, diagnostics).run();
}

}  // namespace msdt::watch
