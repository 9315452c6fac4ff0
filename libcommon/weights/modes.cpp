#include "weights/modes.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <ostream>
#include <unordered_map>
#include <utility>

#include "compare/distance.h"
#include "compare/metrics.h"
#include "dump/list.h"
#include "dump/npy_output.h"
#include "dump/statistics.h"
#include "io/output_file.h"
#include "io/parallel.h"
#include "io/report.h"
#include "io/safe_name.h"
#include "model/checkpoint.h"
#include "model/safetensors.h"
#include "summary/output.h"
#include "table/format.h"
#include "tensor/stats.h"
#include "weights/model_file.h"

namespace msdt::weights {

namespace fs = std::filesystem;

namespace {

// Items read ahead of the one being written, per worker (bounded memory, ordered output).
constexpr size_t kWindowPerWorker = 16;
// Tensors from this size on are compared by all workers at once (in compare::distance_sums'
// chunks).
constexpr uint64_t kSplitBytes = uint64_t{16} << 20;
// --diff hands the workers chunks of pairs: up to this many, or fewer once they hold this many
// bytes (so that a large pair goes alone and the workers stay balanced).
constexpr size_t kChunkPairs = 256;
constexpr uint64_t kChunkBytes = uint64_t{1} << 20;
// Pairs from this size on are read from the disk ahead of their comparison.
constexpr uint64_t kPrefetchBytes = uint64_t{64} << 10;

bool selected(const Selection& selection, const Item& item) {
  return !selection.name || selection.name->search(item.name);
}

std::vector<const Item*> selected_items(const ModelFile& model, const Selection& selection) {
  std::vector<const Item*> out;
  for (const Item& item : model.items)
    if (selected(selection, item)) out.push_back(&item);
  return out;
}

// The dtype as the tools spell it ("float32"), else the file's own spelling.
std::string dtype_text(const model::Content& c) {
  return c.dtype ? std::string(dtype_name(*c.dtype)) : c.spelling;
}

table::Cell shape_cell(const std::vector<uint64_t>& shape) {
  return table::Composite{dump::format_shape(shape), nlohmann::ordered_json(shape)};
}

// "-1x1x4x4": a declared shape with a dynamic axis.
table::Cell dynamic_shape_cell(const Item& item) {
  return table::Composite{dump::format_shape(item.dynamic_dims()),
                          nlohmann::ordered_json(item.dynamic_dims())};
}

table::Cell text_cell(const std::string& text) {
  if (text.empty()) return {};
  return text;
}

// Opens `path` and reports why it cannot be listed; nullopt then.
std::optional<ModelFile> open_listable(const std::string& path, bool verify_crc,
                                       Diagnostics& diagnostics) {
  Expected<ModelFile> model = open_model(path, {.verify_crc = verify_crc});
  if (!model) {
    diagnostics.error(path, model.error());
    return std::nullopt;
  }
  for (const Error& problem : model->problems) diagnostics.error(path, problem);
  if (model->unlistable) {
    diagnostics.error(path, *model->unlistable);
    return std::nullopt;
  }
  return std::move(*model);
}

// --- listing -------------------------------------------------------------------------------------

const char* const kListFields[] = {"file",     "name",  "kind",   "dtype",   "type",  "shape",
                                   "elements", "bytes", "offset", "storage", "source"};

table::Schema list_schema(const ListOptions& options) {
  std::vector<std::string> fields(std::begin(kListFields), std::end(kListFields));
  std::vector<std::string> columns = {"name", "dtype", "shape", "elements", "bytes", "offset"};
  if (options.show_file) columns.insert(columns.begin(), "file");
  if (options.stats) {
    fields.insert(fields.end(), dump::stat_fields().begin(), dump::stat_fields().end());
    columns.insert(columns.end(), dump::stat_fields().begin() + 1, dump::stat_fields().end());
  }
  return table::Schema(std::move(fields), columns);
}

struct ListRow {
  table::Record record;
  std::optional<Error> error;
};

ListRow list_row(const ModelFile& model, const Item& item, const ListOptions& options,
                 unsigned stats_jobs) {
  const model::Content& c = item.content;
  std::optional<uint64_t> offset = item.offset;
  if (!offset && !c.segments.empty()) offset = c.segments.front().offset;
  ListRow row;
  row.record = {model.path,
                item.name,
                std::string(item.kind),
                dtype_text(c),
                c.spelling,
                item.dynamic_dims().empty() ? shape_cell(c.shape) : dynamic_shape_cell(item),
                item.dynamic_dims().empty() ? table::Cell(c.elements()) : table::Cell(),
                item.has_bytes ? table::Cell(item.bytes()) : table::Cell(),
                offset ? table::Cell(*offset) : table::Cell(),
                text_cell(item.storage()),
                text_cell(item.source())};
  if (!options.stats) return row;
  std::optional<dump::RowStats> stats;
  if (item.numeric()) {
    Expected<model::TensorData> data = model.data(item);
    if (data) {
      stats = dump::stats_from_tensor(compute_stats(data->view(), stats_jobs));
      model.drop(item);
    } else {
      row.error =
          std::move(data).error().with_context(fmt::format("'{}'", printable_path(item.name)));
    }
  }
  dump::append_stat_cells(row.record, stats ? &*stats : nullptr);
  return row;
}

}  // namespace

void list_models(const std::vector<std::string>& paths, const ListOptions& options,
                 std::ostream& out, Diagnostics& diagnostics) {
  const table::Schema schema = list_schema(options);
  std::unique_ptr<table::Sink> sink = table::make_sink(options.format, schema, options.header, out);
  for (const std::string& path : paths) {
    std::optional<ModelFile> model = open_listable(path, options.verify_crc, diagnostics);
    if (!model) continue;
    std::vector<const Item*> items = selected_items(*model, options.selection);
    // Few tensors share the workers inside each; many take one worker each.
    const unsigned jobs = options.stats ? options.jobs : 1;
    const unsigned stats_jobs = items.size() < jobs ? jobs : 1;
    ordered_parallel<ListRow>(
        items.size(), stats_jobs > 1 ? 1 : jobs, kWindowPerWorker * jobs,
        [&](size_t i) { return list_row(*model, *items[i], options, stats_jobs); },
        [&](size_t, ListRow row) {
          if (row.error) diagnostics.error(path, *row.error);
          sink->row(row.record);
        });
  }
  sink->finish();
}

// --- info ----------------------------------------------------------------------------------------

void describe_models(const std::vector<std::string>& paths, const InfoOptions& options,
                     std::ostream& out, Diagnostics& diagnostics) {
  bool first = true;
  for (const std::string& path : paths) {
    Expected<ModelFile> model = open_model(path, {.verify_crc = options.verify_crc});
    if (!model) {
      diagnostics.error(path, model.error());
      continue;
    }
    for (const Error& problem : model->problems) diagnostics.error(path, problem);
    nlohmann::ordered_json info;
    info["file"] = path;
    for (const auto& [key, value] : model->info.items()) info[key] = value;
    if (!model->unlistable) {
      uint64_t bytes = 0;
      std::map<std::string, uint64_t> dtypes;
      for (const Item& item : model->items) {
        if (item.has_bytes) bytes += item.bytes();
        ++dtypes[dtype_text(item.content)];
      }
      info["tensors"] = model->items.size();
      info["total_bytes"] = bytes;
      info["dtypes"] = dtypes;
    }
    info["problems"] = model->problems.size();
    if (options.json) {
      out << table::to_json_text(info, -1) << '\n';
    } else {
      if (!first) out << '\n';
      out << table::to_indented_text(info, 0);
    }
    first = false;
  }
}

// --- diff ----------------------------------------------------------------------------------------

namespace {

const char* const kDiffFields[] = {"name",   "status",  "dtype",   "shape",  "elements",
                                   "l2",     "cosine",  "max_abs", "rel_l2", "norm_a",
                                   "norm_b", "dtype_b", "shape_b"};
const char* const kDiffColumns[] = {"name", "status", "dtype",   "shape", "elements",
                                    "l2",   "cosine", "max_abs", "rel_l2"};

enum class Change : uint8_t { Same, Changed, OnlyA, OnlyB, Dtype, Shape };
const char* change_name(Change s) {
  static const char* const kNames[] = {"same", "changed", "only_a", "only_b", "dtype", "shape"};
  return kNames[static_cast<size_t>(s)];
}

struct DiffRow {
  std::string name;
  Change status = Change::Same;
  table::Cell dtype, shape;      // A's; "a->b" in the table formats when B's differs
  table::Cell dtype_b, shape_b;  // B's, when they differ from A's
  std::optional<uint64_t> elements;
  std::optional<double> l2, cosine, max_abs, rel_l2, norm_a, norm_b;
  std::optional<Error> error;  // a side's bytes could not be read (which side in the message)

  bool differs() const { return !error && status != Change::Same; }
  table::Record record() const {
    auto number = [](const std::optional<double>& v) {
      return v ? table::Cell(*v) : table::Cell();
    };
    return {name,
            change_name(status),
            dtype,
            shape,
            elements ? table::Cell(*elements) : table::Cell(),
            number(l2),
            number(cosine),
            number(max_abs),
            number(rel_l2),
            number(norm_a),
            number(norm_b),
            dtype_b,
            shape_b};
  }
};

// Bytes equal, for contents without element values (strings, opaque random_op states).
Expected<bool> same_bytes(const ModelFile& a, const Item& ia, const ModelFile& b, const Item& ib) {
  MSDT_TRY(model::TensorData da, a.data(ia));
  MSDT_TRY(model::TensorData db, b.data(ib));
  const Bytes x = da.view().data, y = db.view().data;
  return x.size() == y.size() && std::equal(x.begin(), x.end(), y.begin());
}

// The row's metrics from the norms, ||a - b||, max |a - b| and the cosine as computed, by
// msprobe's checkpoint rules: cosine 1 when both norms are 0, none when exactly one is (and 1
// exactly for identical tensors, not 1 - 1 ulp of the division); rel_l2 = ||a - b|| / ||a||. A
// parameter differs when max |a - b| is over the tolerance or unknown.
void set_distances(DiffRow& row, double norm_a, double norm_b, std::optional<double> l2,
                   std::optional<double> max_abs, std::optional<double> cosine, double tolerance) {
  row.norm_a = norm_a;
  row.norm_b = norm_b;
  row.l2 = l2;
  row.max_abs = max_abs;
  if ((norm_a == 0 && norm_b == 0) || (l2 && *l2 == 0 && norm_a != 0))
    row.cosine = 1.0;
  else if (norm_a != 0 && norm_b != 0)
    row.cosine = cosine;
  if (l2) {
    if (norm_a > 0)
      row.rel_l2 = *l2 / norm_a;
    else if (*l2 == 0)
      row.rel_l2 = 0.0;
  }
  if (!max_abs || !(*max_abs <= tolerance)) row.status = Change::Changed;
}

DiffRow diff_pair(const ModelFile& a, const Item& ia, const ModelFile& b, const Item& ib,
                  const DiffOptions& options) {
  DiffRow row;
  row.name = ia.name;
  const std::string da = dtype_text(ia.content), db = dtype_text(ib.content);
  row.dtype = da;
  if (da != db) {
    row.dtype = table::Composite{da + "->" + db, da};
    row.dtype_b = db;
  }
  row.shape = shape_cell(ia.content.shape);
  if (ia.content.shape != ib.content.shape) {
    row.shape = table::Composite{
        dump::format_shape(ia.content.shape) + "->" + dump::format_shape(ib.content.shape),
        nlohmann::ordered_json(ia.content.shape)};
    row.shape_b = shape_cell(ib.content.shape);
  }
  if (da != db || ia.numeric() != ib.numeric()) {
    row.status = Change::Dtype;
    return row;
  }
  if (ia.content.shape != ib.content.shape) {
    row.status = Change::Shape;
    return row;
  }
  row.elements = ia.content.elements();
  if (!ia.has_bytes || !ib.has_bytes) return row;  // graph parameters: nothing more to compare
  if (!ia.numeric() || !ib.numeric()) {
    Expected<bool> same = same_bytes(a, ia, b, ib);
    if (!same)
      row.error = std::move(same).error();
    else if (!*same)
      row.status = Change::Changed;
    return row;
  }
  Expected<model::TensorData> xa = a.data(ia);
  if (!xa) {
    row.error = std::move(xa).error().with_context("A");
    return row;
  }
  Expected<model::TensorData> xb = b.data(ib);
  if (!xb) {
    row.error = std::move(xb).error().with_context("B");
    return row;
  }
  // The floating-point parameters that fill a checkpoint take the lean kernel; other dtypes, NaN
  // and infinities the general one, with msprobe's NaN/Inf positions rule.
  const unsigned kernel_jobs = xa->view().data.size() >= kSplitBytes ? options.jobs : 1;
  if (std::optional<compare::DistanceSums> sums =
          compare::distance_sums(xa->view(), xb->view(), kernel_jobs)) {
    a.drop(ia);
    b.drop(ib);
    if (sums->count == 0) return row;
    set_distances(
        row, std::sqrt(sums->sum_aa), std::sqrt(sums->sum_bb), std::sqrt(sums->sum_dd),
        sums->max_abs,
        std::clamp(sums->sum_ab / (std::sqrt(sums->sum_aa) * std::sqrt(sums->sum_bb)), -1.0, 1.0),
        options.tolerance);
    return row;
  }
  compare::MetricOptions metric_options;
  metric_options.nan = compare::NanPolicy::SamePositions;
  metric_options.algorithms = compare::Algorithms();  // msprobe's metrics and the statistics only
  // A large tensor is cut among the workers too: sizes in a checkpoint span orders of magnitude,
  // and one worker on the largest would otherwise leave the others idle at the end.
  if (xa->view().data.size() >= kSplitBytes) metric_options.jobs = options.jobs;
  Expected<compare::PairMetrics> metrics =
      compare::compare_tensors(xa->view(), xb->view(), metric_options);
  a.drop(ia);
  b.drop(ib);
  if (!metrics) {
    row.error = std::move(metrics).error();
    return row;
  }
  const compare::PairMetrics& m = *metrics;
  if (m.pair_reason == compare::Reason::Empty) return row;
  // The dump metrics leave l2 and cosine out for one element (a "scalar" or "length 1"), where
  // msprobe's checkpoint compare takes them: |a - b| and the sign of ab.
  std::optional<double> l2 = m.euc_dist.value, cosine = m.mp_cosine.value;
  if (!l2 && m.compared == 1) l2 = m.mp_max_abs_err.value;
  if (!cosine && m.compared == 1 && m.my.mean && m.golden.mean)
    cosine = *m.my.mean * *m.golden.mean > 0 ? 1.0 : -1.0;
  // Differing NaN/Inf positions leave no metric: set_distances counts that as a change.
  set_distances(row, m.my.l2norm.value_or(0), m.golden.l2norm.value_or(0), l2,
                m.mp_max_abs_err.value, cosine, options.tolerance);
  return row;
}

}  // namespace

int diff_models(const std::string& path_a, const std::string& path_b, const DiffOptions& options,
                std::ostream& out, Diagnostics& diagnostics) {
  std::optional<ModelFile> a = open_listable(path_a, false, diagnostics);
  std::optional<ModelFile> b = open_listable(path_b, false, diagnostics);
  if (!a || !b) return kExitDiffUnreadable;
  bool unreadable = diagnostics.error_count() > 0;  // damage in a file: its good part is compared

  std::vector<const Item*> items_a = selected_items(*a, options.selection);
  std::vector<const Item*> items_b = selected_items(*b, options.selection);
  // One index, of B's names: A's items are paired through it, and B's left unpaired are those
  // it never gave (a bit each), so that memory holds one map, not two.
  std::unordered_map<std::string_view, size_t> by_name_b;
  by_name_b.reserve(items_b.size());
  for (size_t i = 0; i < items_b.size(); ++i) by_name_b.emplace(items_b[i]->name, i);

  struct Task {
    const Item* a = nullptr;
    const Item* b = nullptr;
  };
  std::vector<Task> tasks;
  tasks.reserve(items_a.size());
  std::vector<bool> paired_b(items_b.size());
  for (const Item* item : items_a) {
    auto it = by_name_b.find(item->name);
    if (it == by_name_b.end()) {
      tasks.push_back({item, nullptr});
      continue;
    }
    tasks.push_back({item, items_b[it->second]});
    paired_b[it->second] = true;
  }
  for (size_t i = 0; i < items_b.size(); ++i)
    if (!paired_b[i]) tasks.push_back({nullptr, items_b[i]});
  // The map's buckets go with it (clear() would keep them).
  decltype(by_name_b)().swap(by_name_b);

  // Pairs go to the workers in chunks: handing one result over costs more than comparing an
  // empty or a small tensor, so a chunk takes a run of small pairs (and a large pair alone).
  // Memory follows the chunks in flight, whatever the number of parameters.
  auto task_bytes = [](const Task& t) {
    return (t.a && t.a->has_bytes ? t.a->bytes() : 0) + (t.b && t.b->has_bytes ? t.b->bytes() : 0);
  };
  std::vector<size_t> chunks;  // the first task of each chunk
  for (size_t i = 0, count = 0, bytes = 0; i < tasks.size(); ++i) {
    if (i == 0 || count >= kChunkPairs || bytes >= kChunkBytes) {
      chunks.push_back(i);
      count = 0;
      bytes = 0;
    }
    ++count;
    bytes += task_bytes(tasks[i]);
  }
  auto chunk_end = [&](size_t c) { return c + 1 < chunks.size() ? chunks[c + 1] : tasks.size(); };

  const table::Schema schema(
      std::vector<std::string>(std::begin(kDiffFields), std::end(kDiffFields)),
      std::vector<std::string>(std::begin(kDiffColumns), std::end(kDiffColumns)));
  std::unique_ptr<table::Sink> sink = table::make_sink(options.format, schema, options.header, out);
  bool differs = false;
  // --top: the structural rows (one side only, dtype, shape) are printed as they come, in file
  // order, as they rank first; of the others only the N largest changes are kept (largest l2
  // first, none or NaN counting as the largest, file order among equals), in a heap whose top is
  // the one to drop next.
  struct Ranked {
    double l2;
    size_t index;
    DiffRow row;
  };
  auto better = [](const Ranked& x, const Ranked& y) {
    return x.l2 > y.l2 || (x.l2 == y.l2 && x.index < y.index);
  };
  std::vector<Ranked> kept;  // a heap under `better`: kept.front() is the worst kept
  size_t row_index = 0;
  ordered_parallel<std::vector<DiffRow>>(
      chunks.size(), options.jobs, kWindowPerWorker * options.jobs,
      [&](size_t c) {
        // The disk reads the pairs a worker takes next while these are compared (large ones:
        // a small tensor's page is read when touched).
        if (c + options.jobs < chunks.size())
          for (size_t i = chunks[c + options.jobs]; i < chunk_end(c + options.jobs); ++i)
            if (tasks[i].a && tasks[i].b && task_bytes(tasks[i]) >= kPrefetchBytes) {
              a->prefetch(*tasks[i].a);
              b->prefetch(*tasks[i].b);
            }
        std::vector<DiffRow> rows;
        rows.reserve(chunk_end(c) - chunks[c]);
        for (size_t i = chunks[c]; i < chunk_end(c); ++i) {
          const Task& t = tasks[i];
          if (t.a && t.b) {
            rows.push_back(diff_pair(*a, *t.a, *b, *t.b, options));
            continue;
          }
          const Item& only = t.a ? *t.a : *t.b;
          DiffRow& row = rows.emplace_back();
          row.name = only.name;
          row.status = t.a ? Change::OnlyA : Change::OnlyB;
          row.dtype = dtype_text(only.content);
          row.shape = shape_cell(only.content.shape);
          row.elements = only.content.elements();
        }
        return rows;
      },
      [&](size_t, std::vector<DiffRow> rows) {
        for (DiffRow& row : rows) {
          const size_t index = row_index++;
          if (row.error) {
            diagnostics.error(
                fmt::format("{} / {}", path_a, path_b),
                std::move(*row.error).with_context(fmt::format("'{}'", printable_path(row.name))));
            unreadable = true;
          }
          differs = differs || row.differs();
          const bool structural = row.status != Change::Same && row.status != Change::Changed;
          if (!options.top || structural) {
            sink->row(row.record());
            continue;
          }
          if (*options.top == 0) continue;
          const double l2 = row.l2 && !std::isnan(*row.l2) ? *row.l2 : INFINITY;
          if (kept.size() == *options.top) {
            if (!better(Ranked{l2, index, {}}, kept.front())) continue;
            std::pop_heap(kept.begin(), kept.end(), better);
            kept.pop_back();
          }
          kept.push_back({l2, index, std::move(row)});
          std::push_heap(kept.begin(), kept.end(), better);
        }
      });
  std::sort_heap(kept.begin(), kept.end(), better);
  for (const Ranked& r : kept) sink->row(r.row.record());
  sink->finish();
  if (unreadable) return kExitDiffUnreadable;
  return differs ? kExitDiffers : kExitOk;
}

// --- export --------------------------------------------------------------------------------------

namespace {

Status write_item(const ModelFile& model, const Item& item, const OpenDirectory& directory,
                  const ExportOptions& options, bool& output_failed) {
  if (item.kind == "str") {
    // Strings are .ckpt parameters only: UTF-32 in the checkpoint, UTF-8 text out.
    MSDT_TRY(std::string text, model::string_value(model.file().bytes(), item.content));
    Expected<AtomicFile> created = AtomicFile::create(directory, safe_file_name(item.name, ".txt"));
    if (!created) return output_failed = true, created.error();
    AtomicFile& file = *created;
    if (Status s = file.write(text + "\n")) return output_failed = true, s;
    if (Status s = file.commit()) return output_failed = true, s;
    return std::nullopt;
  }
  MSDT_TRY(model::TensorData data, model.data(item));
  const bool npy = item.numeric();
  Expected<AtomicFile> created =
      AtomicFile::create(directory, safe_file_name(item.name, npy ? ".npy" : ".bin"));
  if (!created) return output_failed = true, created.error();
  AtomicFile& file = *created;
  const bool in_file = item.source().empty() && !data.copied();
  dump::FileSink sink(file, in_file ? model.file().fd() : -1,
                      in_file ? model.file().bytes().data() : nullptr);
  dump::PlannedOutput planned;
  planned.kind = npy ? dump::PlannedOutput::Kind::Npy : dump::PlannedOutput::Kind::Raw;
  planned.view = data.view();
  Status status = dump::write_output(planned, options.bf16, model.file().bytes(), sink);
  if (status && sink.output_failed()) output_failed = true;
  if (!status && (status = file.commit())) output_failed = true;  // renaming into place: output
  model.drop(item);
  return status;
}

}  // namespace

void export_npy(const std::string& path, const std::string& directory, const ExportOptions& options,
                Diagnostics& diagnostics) {
  std::optional<ModelFile> model = open_listable(path, false, diagnostics);
  if (!model) return;
  std::error_code ec;
  fs::create_directories(directory, ec);
  Expected<OpenDirectory> dir = OpenDirectory::open(directory);
  if (!dir) {
    diagnostics.output_error(directory, dir.error());
    return;
  }
  std::vector<const Item*> items;
  for (const Item* item : selected_items(*model, options.selection))
    if (item->has_bytes) items.push_back(item);
  if (items.empty() && !model->items.empty())
    diagnostics.warning(path, Error("no tensor bytes to export"));
  struct Outcome {
    Status status;
    bool output_failed = false;
  };
  ordered_parallel<Outcome>(
      items.size(), options.jobs, kWindowPerWorker * options.jobs,
      [&](size_t i) {
        Outcome outcome;
        outcome.status = write_item(*model, *items[i], *dir, options, outcome.output_failed);
        return outcome;
      },
      [&](size_t i, Outcome outcome) {
        if (!outcome.status) return;
        Error error = std::move(*outcome.status)
                          .with_context(fmt::format("'{}'", printable_path(items[i]->name)));
        if (outcome.output_failed)
          diagnostics.output_error(directory, error);
        else
          diagnostics.error(path, error);
      });
}

void export_safetensors(const std::string& path, const std::string& output,
                        const Selection& selection, Diagnostics& diagnostics) {
  std::optional<ModelFile> model = open_listable(path, false, diagnostics);
  if (!model) return;
  std::vector<const Item*> items;
  std::vector<model::SafetensorsEntry> entries;
  // MindSpore's own marker (spec §8.2, 2.7): its loader then reads the file as one of its own,
  // and an Int4 tensor kept as its int8 view keeps saying so.
  std::vector<std::pair<std::string, std::string>> metadata = {{"format", "ms"}};
  for (const Item* item : selected_items(*model, selection)) {
    // No bytes in the file (a graph's inputs and activations, a -graph.meta parameter, a damaged
    // external entry already reported): nothing to convert, as --export.
    if (!item->has_bytes) continue;
    std::optional<std::string_view> name =
        item->numeric() ? model::safetensors_dtype_name(*item->content.dtype) : std::nullopt;
    const bool encoded = item->storage() == "compressed";  // MindIR: not the elements
    if (!name || encoded || !item->consistent()) {
      diagnostics.warning(path,
                          Error(fmt::format("'{}' ({} {}) left out: {}", printable_path(item->name),
                                            item->kind, dtype_text(item->content),
                                            !name     ? "safetensors has no such dtype"
                                            : encoded ? "its bytes are compressed"
                                                      : "its bytes do not match its shape")));
      continue;
    }
    if (item->storage() == "Int4") metadata.emplace_back(item->name, "Int4");
    items.push_back(item);
    entries.push_back({item->name, *item->content.dtype, item->content.shape, item->bytes()});
  }
  const fs::path target(output);
  const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
  Expected<OpenDirectory> dir = OpenDirectory::open(folder);
  if (!dir) {
    diagnostics.output_error(output, dir.error());
    return;
  }
  // The user named it: a link to a device (/dev/stdout) is written through.
  Expected<AtomicFile> file = AtomicFile::create(*dir, target.filename().string(), Links::Follow);
  if (!file) {
    diagnostics.output_error(output, file.error());
    return;
  }
  // A tensor whose bytes cannot be read (an external data file missing, say) is the input's
  // fault, not the output's: it is reported against the model and nothing is written.
  std::optional<Error> unreadable;
  Status status = model::write_safetensors(
      *file, entries, metadata, [&](size_t i) -> Expected<model::TensorData> {
        if (i > 0) model->drop(*items[i - 1]);
        Expected<model::TensorData> data = model->data(*items[i]);
        if (!data) {
          unreadable = data.error();
          unreadable->context(fmt::format("'{}'", items[i]->name));
        }
        return data;
      });
  if (unreadable) {
    unreadable->message += fmt::format(" (nothing written to '{}')", printable_path(output));
    diagnostics.error(path, *unreadable);
    return;
  }
  if (!status) status = file->commit();
  if (status) diagnostics.output_error(output, *status);
}

}  // namespace msdt::weights
