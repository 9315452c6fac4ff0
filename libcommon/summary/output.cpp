#include "summary/output.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <ostream>
#include <sstream>

#include "io/output_file.h"
#include "io/safe_name.h"
#include "io/text.h"
#include "ir/draw.h"
#include "ir/graph_proto.h"
#include "ir/report.h"
#include "table/format.h"
#include "tensor/element_values.h"
#include "tensor/npy.h"
#include "tensor/stats.h"

namespace msdt::summary {
namespace fs = std::filesystem;

// ---- Selection ---------------------------------------------------------------------------------

bool Selection::matches_step(const std::optional<int64_t>& step) const {
  if (!first_step && !last_step) return true;
  if (!step) return false;
  return (!first_step || *step >= *first_step) && (!last_step || *step <= *last_step);
}

bool Selection::matches(const Event& event, const Value& value) const {
  if (!kinds.empty() && !kinds.contains(value.kind)) return false;
  if (!matches_step(event.step)) return false;
  return !tag || tag->search(value.tag);
}

Expected<std::pair<std::optional<int64_t>, std::optional<int64_t>>> parse_step_range(
    std::string_view text) {
  auto number = [](std::string_view t) -> std::optional<int64_t> {
    auto v = parse_unsigned<uint64_t>(t);
    if (!v || *v > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
    return static_cast<int64_t>(*v);
  };
  size_t dash = text.find('-');
  std::optional<int64_t> a, b;
  if (dash == std::string_view::npos) {
    a = b = number(text);
    if (!a) return Error(fmt::format("expected a step or a range A-B, A-, -B, found '{}'", text));
    return std::pair(a, b);
  }
  std::string_view left = text.substr(0, dash), right = text.substr(dash + 1);
  if (!left.empty() && !(a = number(left)))
    return Error(fmt::format("expected a step or a range A-B, A-, -B, found '{}'", text));
  if (!right.empty() && !(b = number(right)))
    return Error(fmt::format("expected a step or a range A-B, A-, -B, found '{}'", text));
  if (!a && !b) return Error("expected a step or a range A-B, A-, -B, found '-'");
  if (a && b && *a > *b) return Error(fmt::format("the range {} ends before it starts", text));
  return std::pair(a, b);
}

// ---- Spelling values ---------------------------------------------------------------------------

std::string python_float(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  return table::format_double(value);
}

namespace {

std::string size_text(uint64_t bytes) {
  if (bytes < 1024) return fmt::format("{} B", bytes);
  if (bytes < 1024 * 1024) return fmt::format("{:.1f} KiB", bytes / 1024.0);
  return fmt::format("{:.1f} MiB", bytes / (1024.0 * 1024.0));
}

std::string shape_text(const std::vector<uint64_t>& dims) {
  std::string out = "(";
  for (size_t i = 0; i < dims.size(); ++i) out += (i ? ", " : "") + std::to_string(dims[i]);
  if (dims.size() == 1) out += ",";
  return out + ")";
}

std::string image_format(Bytes encoded) {
  static constexpr unsigned char kPng[] = {0x89, 'P', 'N', 'G'};
  static constexpr unsigned char kJpeg[] = {0xFF, 0xD8, 0xFF};
  if (encoded.size() >= 4 && std::memcmp(encoded.data(), kPng, 4) == 0) return "PNG";
  if (encoded.size() >= 3 && std::memcmp(encoded.data(), kJpeg, 3) == 0) return "JPEG";
  if (encoded.size() >= 3 && std::memcmp(encoded.data(), "GIF", 3) == 0) return "GIF";
  return "image";
}

std::string tensor_dtype_text(const Tensor& t) {
  if (t.declared) return std::string(dtype_name(*t.declared));
  if (!t.declared_name.empty()) return t.declared_name;
  return std::string(dtype_name(t.stored));
}

// Statistics of a numeric tensor with elements (libcommon's one-pass kernel).
std::optional<TensorStats> tensor_stats(const Tensor& t) {
  if (!t.strings.empty() || t.bytes().empty()) return std::nullopt;
  return compute_stats(t.view());
}

std::string number_text(const std::optional<double>& v) {
  return v ? table::format_double(*v) : "-";
}

}  // namespace

std::string render_value(const Value& v) {
  switch (v.kind) {
    case ValueKind::Scalar:
      return table::format_double(v.scalar);
    case ValueKind::Image:
      return fmt::format("{} {}x{}, {}", image_format(v.image.encoded), v.image.width,
                         v.image.height, size_text(v.image.encoded.size()));
    case ValueKind::Histogram: {
      const Histogram& h = *v.histogram;
      std::string out =
          fmt::format("[{}, {}] n={}, {} buckets", number_text(h.min), number_text(h.max),
                      table::format_double(h.total()), h.buckets.size());
      if (h.nan || h.pos_inf || h.neg_inf)
        out += fmt::format(", nan={} +inf={} -inf={}", h.nan, h.pos_inf, h.neg_inf);
      return out;
    }
    case ValueKind::Tensor: {
      std::string out =
          fmt::format("{} {}", tensor_dtype_text(*v.tensor), shape_text(v.tensor->dims));
      auto stats = tensor_stats(*v.tensor);
      if (stats && stats->count)
        out += fmt::format(" min={} max={} mean={}", number_text(stats->min),
                           number_text(stats->max), number_text(stats->mean));
      if (stats && (stats->nan || stats->pos_inf || stats->neg_inf))
        out += fmt::format(" nan={} inf={}", stats->nan, stats->pos_inf + stats->neg_inf);
      return out;
    }
    case ValueKind::Landscape: {
      const Landscape& l = *v.landscape;
      return fmt::format(
          "landscape {} {}{}{}", shape_text(l.z.dims),
          l.decomposition.empty() ? "" : l.decomposition, l.unit.empty() ? "" : ", unit " + l.unit,
          l.path_z ? fmt::format(", path of {} points",
                                 l.path_z->bytes().size() /
                                     std::max<uint64_t>(1, *dtype_bytes(l.path_z->stored, 1)))
                   : "");
    }
    case ValueKind::Text: {
      std::string joined;
      for (size_t i = 0; i < v.tensor->strings.size(); ++i)
        joined += (i ? " | " : "") + escape_invalid_utf8(v.tensor->strings[i]);
      return joined;
    }
    case ValueKind::Audio:
      return fmt::format("audio, {}", size_text(v.tensor->data.size()));
    case ValueKind::Lineage:
    case ValueKind::Explain: {
      // The record on one line, cut after kRecordShown characters (whole in --json and
      // lineage.json).
      constexpr size_t kRecordShown = 120;
      std::string text = table::to_json_text(*v.record, -1);
      if (text.size() > kRecordShown) {
        text = text.substr(0, utf8_boundary(text, kRecordShown)) + "...";
      }
      return text;
    }
  }
  return "";
}

nlohmann::ordered_json value_json(const Value& v) {
  nlohmann::ordered_json j;
  switch (v.kind) {
    case ValueKind::Scalar:
      return v.scalar;
    case ValueKind::Image:
      j["format"] = image_format(v.image.encoded);
      j["width"] = v.image.width;
      j["height"] = v.image.height;
      j["colorspace"] = v.image.colorspace;
      j["bytes"] = v.image.encoded.size();
      return j;
    case ValueKind::Histogram: {
      const Histogram& h = *v.histogram;
      j["min"] = h.min ? nlohmann::ordered_json(*h.min) : nullptr;
      j["max"] = h.max ? nlohmann::ordered_json(*h.max) : nullptr;
      j["sum"] = h.sum ? nlohmann::ordered_json(*h.sum) : nullptr;
      j["count"] = h.total();
      j["nan"] = h.nan;
      j["pos_inf"] = h.pos_inf;
      j["neg_inf"] = h.neg_inf;
      auto& buckets = j["buckets"] = nlohmann::ordered_json::array();
      for (const Bucket& b : h.buckets) buckets.push_back({b.left, b.width, b.count});
      return j;
    }
    case ValueKind::Tensor: {
      j["dtype"] = tensor_dtype_text(*v.tensor);
      j["stored"] = std::string(dtype_name(v.tensor->stored));
      j["shape"] = v.tensor->dims;
      if (auto stats = tensor_stats(*v.tensor)) {
        j["count"] = stats->count;
        j["min"] = stats->min ? nlohmann::ordered_json(*stats->min) : nullptr;
        j["max"] = stats->max ? nlohmann::ordered_json(*stats->max) : nullptr;
        j["mean"] = stats->mean ? nlohmann::ordered_json(*stats->mean) : nullptr;
        j["std"] = stats->std ? nlohmann::ordered_json(*stats->std) : nullptr;
        j["nan"] = stats->nan;
        j["pos_inf"] = stats->pos_inf;
        j["neg_inf"] = stats->neg_inf;
      }
      return j;
    }
    case ValueKind::Landscape: {
      const Landscape& l = *v.landscape;
      j["shape"] = l.z.dims;
      j["decomposition"] = l.decomposition;
      j["unit"] = l.unit;
      j["step_per_epoch"] = l.step_per_epoch;
      j["intervals"] = l.intervals;
      return j;
    }
    case ValueKind::Text: {
      auto& list = j = nlohmann::ordered_json::array();
      for (const std::string& s : v.tensor->strings) list.push_back(escape_invalid_utf8(s));
      return j;
    }
    case ValueKind::Audio:
      j["bytes"] = v.tensor->data.size();
      return j;
    case ValueKind::Lineage:
    case ValueKind::Explain:
      return *v.record;
  }
  return j;
}

// ---- Listings ----------------------------------------------------------------------------------

namespace {

std::vector<std::string> with_run(bool run, std::vector<std::string> columns) {
  if (run) columns.insert(columns.begin(), "run");
  return columns;
}

table::Cell step_cell(const Event& e) { return e.step ? table::Cell(*e.step) : table::Cell(); }

}  // namespace

namespace {

table::Schema lister_schema(const ListOptions& options, bool scalars_only) {
  // parse_summary's title names the unit; JSON keeps the plain key.
  std::string wall_time = scalars_only && options.format != table::Format::Json
                              ? "wall_time (unit: seconds)"
                              : "wall_time";
  std::vector<std::string> columns =
      scalars_only ? std::vector<std::string>{"tag", "step", wall_time, "value"}
                   : std::vector<std::string>{"step", wall_time, "tag", "kind", "value"};
  return table::Schema({"run", "file", "step", wall_time, "tag", "kind", "value"},
                       with_run(options.show_run, std::move(columns)));
}

}  // namespace

ValueLister::ValueLister(const ListOptions& options, const Selection& selection, bool scalars_only,
                         std::ostream& out)
    : options_(options),
      selection_(selection),
      scalars_only_(scalars_only),
      schema_(lister_schema(options, scalars_only)),
      out_(out),
      sink_(table::make_sink(options.format, schema_, options.header, out)) {}

void ValueLister::rows(table::Sink& sink, table::Record& row, const Source& source,
                       const Event& e) const {
  // `row` is reused value after value: its strings keep their memory.
  row.resize(7);
  for (const Value& v : e.values) {
    if ((scalars_only_ && v.kind != ValueKind::Scalar) || !selection_.matches(e, v)) continue;
    row[0] = source.run;
    row[1] = source.file;
    row[2] = step_cell(e);
    row[3] = e.wall_time;
    row[4] = v.tag;
    row[5] = std::string(value_kind_name(v.kind));
    if (v.kind == ValueKind::Scalar)
      row[6] = v.scalar;
    else if (options_.format == table::Format::Json)
      row[6] = table::Composite{"", value_json(v)};
    else
      row[6] = render_value(v);
    sink.row(row);
  }
}

void ValueLister::event(const Source& source, const Event& e) { rows(*sink_, row_, source, e); }

// One batch's rows, made on the reading thread (the events decoded and selected there) and
// written out in order by merge(): spelled there too, except aligned text, whose rows are held
// and given to the lister's one sink, which aligns them together.
class ValueLister::Part final : public EventPart {
 public:
  Part(ValueLister& lister, const Source& source) : lister_(lister), source_(source) {
    if (lister.options_.format == table::Format::Text) {
      auto held = std::make_unique<table::HeldRows>();
      held_ = held.get();
      sink_ = std::move(held);
    } else {
      sink_ = table::make_sink(lister.options_.format, lister.schema_, false, text_);
    }
  }
  void event(const Event& e) override { lister_.rows(*sink_, row_, source_, e); }
  void merge() override {
    if (held_) {
      held_->hand_to(*lister_.sink_);
      return;
    }
    sink_->finish();
    std::string text = std::move(text_).str();
    lister_.out_.write(text.data(), static_cast<std::streamsize>(text.size()));
  }

 private:
  ValueLister& lister_;
  const Source& source_;
  std::ostringstream text_;
  std::unique_ptr<table::Sink> sink_;
  table::HeldRows* held_ = nullptr;  // sink_, for aligned text
  table::Record row_;
};

std::unique_ptr<EventPart> ValueLister::part(const Source& source) {
  return std::make_unique<Part>(*this, source);
}

void ValueLister::finish() { sink_->finish(); }

TagTable::TagTable(const ListOptions& options, const Selection& selection, std::ostream& out)
    : options_(options), selection_(selection), out_(out) {}

TagTable::Entry& TagTable::Tally::entry(const std::string& run, const std::string& tag,
                                        ValueKind kind) {
  auto key = std::make_tuple(std::string_view(run), std::string_view(tag), kind);
  auto it = index.find(key);
  if (it == index.end()) {
    it = index.emplace(std::make_tuple(run, tag, kind), entries.size()).first;
    Entry& entry = entries.emplace_back();
    entry.run = run;
    entry.tag = tag;
    entry.kind = kind;
  }
  return entries[it->second];
}

void TagTable::add(Tally& tally, const Source& source, const Event& e, const EventRun& run) const {
  // The guesses hold for one run: another source (another file) starts them again.
  if (tally.source != &source) {
    tally.by_position.clear();
    tally.source = &source;
  }
  for (size_t position = 0; position < e.values.size(); ++position) {
    const Value& v = e.values[position];
    if (!selection_.matches(e, v)) continue;
    // Writers repeat their tags in the same order step after step: the entry the value at this
    // position had last time is tried before the index.
    if (tally.by_position.size() <= position) tally.by_position.resize(position + 1, SIZE_MAX);
    size_t& guess = tally.by_position[position];
    if (guess == SIZE_MAX || tally.entries[guess].kind != v.kind ||
        !same_text(tally.entries[guess].tag, v.tag))
      guess = static_cast<size_t>(&tally.entry(source.run, v.tag, v.kind) - tally.entries.data());
    Entry& entry = tally.entries[guess];
    // (A run follows an event of its tags: its first values are never the tag's first.)
    if (entry.steps == 0) {
      entry.first_step = run.first_step;
      if (tally.part && v.kind != ValueKind::Scalar)
        entry.unshown_first = v;
      else
        set_shown(entry.first, v);
    }
    if (entry.steps && run.first_step && entry.last_step && *run.first_step < *entry.last_step)
      ++entry.out_of_order;
    entry.out_of_order += run.steps_back;
    entry.steps += run.count;
    entry.last_step = e.step;
    if (tally.part && v.kind != ValueKind::Scalar)
      entry.unshown_last = v;
    else
      set_shown(entry.last, v);
  }
}

void TagTable::event(const Source& source, const Event& e) {
  add(tally_, source, e, EventRun{1, e.step, 0});
}

void TagTable::merge(Tally&& part) {
  for (Entry& p : part.entries) {
    Entry& m = tally_.entry(p.run, p.tag, p.kind);
    if (m.steps == 0) {
      m.first_step = p.first_step;
      m.first = std::move(p.first);
      m.unshown_first = std::move(p.unshown_first);
    } else if (p.first_step && m.last_step && *p.first_step < *m.last_step) {
      ++m.out_of_order;  // the step went back between the batches
    }
    m.out_of_order += p.out_of_order;
    m.steps += p.steps;
    m.last_step = p.last_step;
    m.last = std::move(p.last);
    m.unshown_last = std::move(p.unshown_last);
  }
}

void TagTable::settle() {
  for (Entry& e : tally_.entries) {
    if (e.unshown_first) set_shown(e.first, *e.unshown_first);
    if (e.unshown_last) set_shown(e.last, *e.unshown_last);
    e.unshown_first.reset();
    e.unshown_last.reset();
  }
}

class TagTable::Part final : public EventPart {
 public:
  Part(TagTable& table, const Source& source) : table_(table), source_(source) {
    tally_.part = true;
  }
  void event(const Event& e) override { table_.add(tally_, source_, e, EventRun{1, e.step, 0}); }
  void merge() override { table_.merge(std::move(tally_)); }
  bool takes_runs() const override { return true; }
  bool counts_step(int64_t step) const override { return table_.selection_.matches_step(step); }
  void run(const Event& last, const EventRun& run) override {
    table_.add(tally_, source_, last, run);
  }

 private:
  TagTable& table_;
  const Source& source_;
  Tally tally_;
};

std::unique_ptr<EventPart> TagTable::part(const Source& source) {
  return std::make_unique<Part>(*this, source);
}

void TagTable::set_shown(Shown& shown, const Value& v) const {
  if (v.kind == ValueKind::Scalar) {
    shown.scalar = v.scalar;
    return;
  }
  shown.text = render_value(v);
  if (options_.format == table::Format::Json) shown.json = value_json(v);
}

void TagTable::finish() {
  table::Schema schema({"run", "tag", "kind", "steps", "first_step", "last_step", "first_value",
                        "last_value", "out_of_order"},
                       with_run(options_.show_run, {"tag", "kind", "steps", "first_step",
                                                    "last_step", "first_value", "last_value"}));
  auto sink = table::make_sink(options_.format, schema, options_.header, out_);
  auto opt = [](const std::optional<int64_t>& v) { return v ? table::Cell(*v) : table::Cell(); };
  for (const Entry& e : tally_.entries) {
    auto cell = [&](const Shown& s) -> table::Cell {
      if (e.kind == ValueKind::Scalar) return s.scalar;
      if (options_.format == table::Format::Json) return table::Composite{s.text, s.json};
      return s.text;
    };
    table::Cell first = cell(e.first), last = cell(e.last);
    sink->row({e.run, e.tag, std::string(value_kind_name(e.kind)), e.steps, opt(e.first_step),
               opt(e.last_step), std::move(first), std::move(last), e.out_of_order});
  }
  sink->finish();
}

// ---- Export ------------------------------------------------------------------------------------

namespace {

// A directory of the export, made and opened at its first use; a failure is reported once.
struct SubDir {
  bool tried = false;
  std::optional<OpenDirectory> dir;
  explicit operator bool() const { return tried; }
};

}  // namespace

struct Exporter::RunFiles {
  fs::path dir;          // for messages: DIR, or DIR/<run> with --runs
  std::string relative;  // under DIR: empty, or <run> with --runs
  SubDir root, image, tensor, histogram;
  std::string scalars = "tag,step,wall_time (unit: seconds),value\r\n";
  std::map<std::string, std::string> histograms;  // the tag's own bytes → CSV text
  std::vector<std::string> histogram_order;
  std::optional<ir::Module> graph;
  nlohmann::ordered_json lineage = nlohmann::ordered_json::array();
};

Exporter::Exporter(fs::path dir, const Selection& selection, Diagnostics& diagnostics, bool per_run)
    : dir_(std::move(dir)), selection_(selection), diagnostics_(diagnostics), per_run_(per_run) {}

Exporter::~Exporter() = default;

namespace {

// `sub` ("", "image", …) of the run's folder: DIR itself is the user's (made, links followed);
// everything below it is made and opened beneath it, so that a symbolic link planted there that
// leads outside is refused instead of written through.
SubDir open_subdir(const fs::path& top, const fs::path& run_dir, const std::string& run_relative,
                   std::string_view sub, Diagnostics& diagnostics) {
  SubDir result;
  result.tried = true;
  std::string relative = run_relative;
  if (!sub.empty()) relative += (relative.empty() ? "" : "/") + std::string(sub);
  const fs::path shown = sub.empty() ? run_dir : run_dir / std::string(sub);
  std::error_code ec;
  fs::create_directories(top, ec);
  if (ec) {
    diagnostics.output_error(top.string(), Error(fmt::format("cannot create: {}", ec.message())));
    return result;
  }
  auto root = OpenDirectory::open(top);
  if (!root) {
    diagnostics.output_error(top.string(), root.error());
    return result;
  }
  if (relative.empty()) {
    result.dir.emplace(std::move(*root));
    return result;
  }
  auto dir = root->below(relative, true);
  if (!dir) {
    diagnostics.output_error(shown.string(), dir.error());
    return result;
  }
  result.dir.emplace(std::move(*dir));
  return result;
}

void write_in(const SubDir& dir, const fs::path& dir_path, const std::string& name,
              std::initializer_list<Bytes> parts, Diagnostics& diagnostics) {
  if (!dir.dir) return;
  std::string shown = (dir_path / name).string();
  auto file = AtomicFile::create(*dir.dir, name);
  if (!file) {
    diagnostics.output_error(shown, file.error());
    return;
  }
  for (Bytes part : parts)
    if (auto s = file->write(part)) {
      diagnostics.output_error(shown, *s);
      return;
    }
  if (auto s = file->commit()) diagnostics.output_error(shown, *s);
}

Bytes text_bytes(std::string_view text) {
  return {reinterpret_cast<const std::byte*>(text.data()), text.size()};
}

// A file name for a tag (its own bytes) and a step: io/safe_name.h's, the step kept.
std::string tag_file(const Value& v, std::optional<int64_t> step, std::string_view ext) {
  std::string suffix = (step ? "_" + std::to_string(*step) : std::string()) + std::string(ext);
  return safe_file_name(v.raw_tag.empty() ? v.tag : v.raw_tag, suffix);
}

}  // namespace

Exporter::RunFiles& Exporter::run_files(const std::string& run) {
  auto& slot = runs_[per_run_ ? run : std::string()];
  if (!slot) {
    slot = std::make_unique<RunFiles>();
    // With --runs each run gets its own folder, its name quoted like a tag.
    slot->dir = per_run_ ? dir_ / safe_file_name(run) : dir_;
    if (per_run_) slot->relative = safe_file_name(run);
  }
  return *slot;
}

void Exporter::event(const Source& source, const Event& e) {
  RunFiles& r = run_files(source.run);
  if (!r.root) r.root = open_subdir(dir_, r.dir, r.relative, "", diagnostics_);
  if (e.kind == EventKind::Graph && !r.graph && source.dialect == Dialect::MindSpore) {
    auto module = ir::parse_graph_proto(e.graph, e.graph_offset);
    if (module)
      r.graph = std::move(*module);
    else
      diagnostics_.error(source.file, std::move(module).error().with_context("graph"));
  }
  if (e.kind == EventKind::Lineage || e.kind == EventKind::Explain) {
    nlohmann::ordered_json item;
    item["file"] = source.file;
    item["wall_time"] = e.wall_time;
    if (e.step) item["step"] = *e.step;
    for (auto& [key, value] : e.detail.items()) item[key] = value;
    r.lineage.push_back(std::move(item));
  }
  for (const Value& v : e.values) {
    if (!selection_.matches(e, v)) continue;
    switch (v.kind) {
      case ValueKind::Scalar:
        r.scalars += fmt::format("{},{},{},{}\r\n", table::escape_csv(v.tag),
                                 e.step ? std::to_string(*e.step) : "", python_float(e.wall_time),
                                 python_float(v.scalar));
        break;
      case ValueKind::Image: {
        if (!r.image) r.image = open_subdir(dir_, r.dir, r.relative, "image", diagnostics_);
        write_in(r.image, r.dir / "image", tag_file(v, e.step.value_or(0), ".png"),
                 {v.image.encoded}, diagnostics_);
        break;
      }
      case ValueKind::Tensor: {
        if (!v.tensor->strings.empty()) break;
        // Only what NumPy loads is written (tensor/npy.h).
        if (Status bad = check_npy_loadable(v.tensor->stored, v.tensor->dims)) {
          diagnostics_.error(source.file, std::move(*bad).with_context(fmt::format(
                                              "tensor {} at step {} not exported",
                                              quote_for_message(v.tag), e.step.value_or(0))));
          break;
        }
        if (!r.tensor) r.tensor = open_subdir(dir_, r.dir, r.relative, "tensor", diagnostics_);
        std::string header = make_npy_header(v.tensor->stored, v.tensor->dims);
        write_in(r.tensor, r.dir / "tensor", tag_file(v, e.step.value_or(0), ".npy"),
                 {text_bytes(header), v.tensor->bytes()}, diagnostics_);
        break;
      }
      case ValueKind::Histogram: {
        const std::string& raw = v.raw_tag.empty() ? v.tag : v.raw_tag;
        auto [it, added] = r.histograms.try_emplace(
            raw, "step,wall_time,left,right,count,min,max,sum,total,nan,pos_inf,neg_inf\n");
        if (added) r.histogram_order.push_back(raw);
        const Histogram& h = *v.histogram;
        auto opt = [](const std::optional<double>& x) { return x ? python_float(*x) : ""; };
        for (const Bucket& b : h.buckets)
          it->second += fmt::format(
              "{},{},{},{},{},{},{},{},{},{},{},{}\n", e.step ? std::to_string(*e.step) : "",
              python_float(e.wall_time), python_float(b.left), python_float(b.left + b.width),
              python_float(b.count), opt(h.min), opt(h.max), opt(h.sum), python_float(h.total()),
              h.nan, h.pos_inf, h.neg_inf);
        break;
      }
      default:
        break;
    }
  }
}

void Exporter::finish() {
  if (runs_.empty()) run_files(".");
  for (auto& [run, rp] : runs_) {
    RunFiles& r = *rp;
    if (!r.root) r.root = open_subdir(dir_, r.dir, r.relative, "", diagnostics_);
    write_in(r.root, r.dir, "scalar.csv", {text_bytes(r.scalars)}, diagnostics_);
    // parse_summary always makes image/.
    if (!r.image) r.image = open_subdir(dir_, r.dir, r.relative, "image", diagnostics_);
    if (!r.histograms.empty()) {
      r.histogram = open_subdir(dir_, r.dir, r.relative, "histogram", diagnostics_);
      for (const std::string& tag : r.histogram_order)
        write_in(r.histogram, r.dir / "histogram", safe_file_name(tag, ".csv"),
                 {text_bytes(r.histograms[tag])}, diagnostics_);
    }
    if (r.graph) {
      ir::DrawOptions draw;
      draw.max_nodes = 0;
      auto dot = ir::draw_dot(*r.graph, draw);
      if (dot)
        write_in(r.root, r.dir, "graph.dot", {text_bytes(*dot)}, diagnostics_);
      else
        diagnostics_.error(run, dot.error());
      std::string json = ir::module_json_text(*r.graph);
      write_in(r.root, r.dir, "graph.json", {text_bytes(json)}, diagnostics_);
    }
    if (!r.lineage.empty()) {
      std::string json = table::to_json_text(r.lineage, 2) + "\n";
      write_in(r.root, r.dir, "lineage.json", {text_bytes(json)}, diagnostics_);
    }
  }
}

// ---- Plots -------------------------------------------------------------------------------------

plot::HistogramStep histogram_step(int64_t step, const Histogram& histogram) {
  plot::HistogramStep out{step, {}};
  double min = histogram.min && std::isfinite(*histogram.min)
                   ? *histogram.min
                   : -std::numeric_limits<double>::infinity();
  double max = histogram.max && std::isfinite(*histogram.max)
                   ? *histogram.max
                   : std::numeric_limits<double>::infinity();
  for (const auto& b : histogram.buckets)
    out.bins.push_back({std::max(b.left, min), std::min(b.left + b.width, max), b.count});
  return out;
}

Plotter::Plotter(PlotRequest request, const Selection& selection, Diagnostics& diagnostics)
    : request_(std::move(request)), selection_(selection), diagnostics_(diagnostics) {}

void Plotter::event(const Source& source, const Event& e) {
  for (const Value& v : e.values) {
    if (!selection_.matches(e, v)) continue;
    double step = static_cast<double>(e.step.value_or(0));
    if (v.kind == ValueKind::Scalar && !request_.scalars.empty()) {
      auto& by_run = scalars_[v.tag];
      if (by_run.empty()) tag_order_.push_back(v.tag);
      if (std::find(runs_.begin(), runs_.end(), source.run) == runs_.end())
        runs_.push_back(source.run);
      by_run[source.run].push_back({step, v.scalar});
    } else if (v.kind == ValueKind::Histogram && !request_.histograms.empty()) {
      plot::HistogramSeries& s = histograms_[v.tag];
      s.title = v.tag;
      s.steps.push_back(histogram_step(e.step.value_or(0), *v.histogram));
    } else if (v.kind == ValueKind::Tensor && !request_.tensors.empty() &&
               v.tensor->dims.size() == 2 && v.tensor->strings.empty()) {
      plot::Heatmap h;
      h.title = fmt::format("{} (step {})", v.tag, e.step.value_or(0));
      h.rows = v.tensor->dims[0];
      h.cols = v.tensor->dims[1];
      uint64_t n = h.rows * h.cols;
      if (n > (uint64_t{1} << 24)) continue;  // too large to draw cell by cell
      if (!has_real_values(v.tensor->stored)) continue;
      h.values.resize(n);
      if (elements_to_double(v.tensor->view(), 0, n, h.values.data())) continue;
      tensors_[v.tag] = std::move(h);
    }
  }
}

void Plotter::finish() {
  auto write = [&](const fs::path& path, Expected<std::string> png) {
    if (!png) {
      diagnostics_.error(path.string(), png.error());
      return;
    }
    if (auto s = write_file_atomically(path, *png)) diagnostics_.output_error(path.string(), *s);
  };
  if (!request_.scalars.empty()) {
    std::vector<plot::Panel> panels;
    bool several_runs = runs_.size() > 1;
    for (const std::string& tag : tag_order_) {
      if (panels.empty() || !request_.overlay) panels.push_back(plot::Panel{tag, {}});
      for (const std::string& run : runs_) {
        auto it = scalars_[tag].find(run);
        if (it == scalars_[tag].end()) continue;
        // One run needs no legend: the panel's title names the tag.
        std::string label = request_.overlay ? (several_runs ? run + ": " + tag : tag)
                            : several_runs   ? run
                                             : "";
        std::vector<plot::Point> points = it->second;
        std::stable_sort(points.begin(), points.end(),
                         [](const plot::Point& a, const plot::Point& b) { return a.x < b.x; });
        panels.back().series.push_back(plot::Series{label, std::move(points)});
      }
    }
    if (request_.overlay && !panels.empty()) panels.front().title = "scalars";
    write(request_.scalars, plot::lines(panels, request_.options));
  }
  if (!request_.histograms.empty()) {
    std::vector<plot::HistogramSeries> panels;
    for (auto& [tag, series] : histograms_) panels.push_back(std::move(series));
    write(request_.histograms,
          plot::histograms(panels, request_.histogram_style, request_.options));
  }
  if (!request_.tensors.empty()) {
    std::vector<plot::Heatmap> panels;
    for (auto& [tag, map] : tensors_) panels.push_back(std::move(map));
    write(request_.tensors, plot::heatmaps(panels, request_.options));
  }
}

}  // namespace msdt::summary
