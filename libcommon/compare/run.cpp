#include "compare/run.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <memory>

#include "dump/dump_file.h"
#include "dump/file_workers.h"
#include "io/mapped_file.h"
#include "io/parallel.h"
#include "tensor/layout.h"
#include "tensor/stats.h"

namespace msdt::compare {

namespace {

// The host layout a DumpData tensor stored in `layout` is compared in: its origin format when the
// transform knows it, else ND (the channel-first host layout of device formats); none when the
// tensor is stored in a host layout already.
std::optional<std::string> host_format_for(const dump::AscendLayout& layout) {
  const std::string& from = layout.format;
  if (from == "ND" || from == "DefaultFormat" || is_host_format(from)) return std::nullopt;
  const std::string& origin = layout.original_format;
  if (!origin.empty() && origin != from && can_transform(from, origin)) return origin;
  if (can_transform(from, "ND")) return std::string("ND");
  return std::nullopt;
}

TensorStats stats_of_row(const dump::StatisticRow& r) {
  TensorStats s;
  if (r.count) {
    s.count = *r.count;
  } else if (auto n = element_count(r.shape)) {
    s.count = *n;
  }
  s.min = r.min;
  s.max = r.max;
  s.mean = r.avg;
  s.l2norm = r.l2norm;
  s.nan = r.nan_count.value_or(0);
  s.pos_inf = r.positive_inf_count.value_or(0);
  s.neg_inf = r.negative_inf_count.value_or(0);
  s.zero =
      r.zero_count.value_or(r.negative_zero_count.value_or(0) + r.positive_zero_count.value_or(0));
  return s;
}

// The metrics of a row with a statistic.csv row on at least one side.
PairMetrics statistics_only(const TensorStats& my, const TensorStats& golden, const ComparedSide& a,
                            const ComparedSide& b) {
  PairMetrics m;
  m.my = my;
  m.golden = golden;
  m.shapes_equal = a.shape == b.shape;
  m.dtypes_equal = a.dtype == b.dtype;
  m.set_pair_reason(Reason::StatisticsOnly);
  if (my.mean) m.mean_my = Metric::of(*my.mean);
  if (golden.mean) m.mean_golden = Metric::of(*golden.mean);
  m.statistics = diff_statistics(summary_of(my), summary_of(golden));
  return m;
}

// A row and the errors met reading it, reported on the calling thread when the row is handed on
// (a worker writing to stderr would flush standard output under the consumer's feet).
struct RowResult {
  ComparedRow row;
  dump::DeferredDiagnostics diagnostics;
};

void fill_statistics(const dump::StatisticRow& r, LoadedTensor& out) {
  out.side.source = "statistic.csv";
  out.side.dtype = r.dtype;
  out.side.shape = r.shape;
  out.side.shape_known = true;
  out.statistics = stats_of_row(r);
}

// The statistic.csv files the rows refer to, each read once (a row of a pair reads only its line):
// side (0 mine, 1 golden) and file index to the file's rows by line, or the error reading it.
struct StatisticFile {
  std::map<uint64_t, LoadedTensor> rows;
  Status error;
};
using StatisticFiles = std::map<std::pair<int, size_t>, StatisticFile>;

StatisticFiles read_statistic_files(const Pairing& pairing, const std::vector<size_t>& rows,
                                    unsigned jobs, Diagnostics& diagnostics) {
  // Errors are reported on this thread, in file order, after the workers are done.
  StatisticFiles files;
  for (size_t i : rows) {
    const PairRow& r = pairing.rows[i];
    if (r.mine && r.mine->source == TensorRef::Source::StatisticRow) files[{0, r.mine->file}];
    if (r.golden && r.golden->source == TensorRef::Source::StatisticRow) files[{1, r.golden->file}];
  }
  std::vector<std::pair<const std::pair<int, size_t>, StatisticFile>*> order;
  for (auto& entry : files) order.push_back(&entry);
  parallel_for(order.size(), jobs, [&](size_t k) {
    const std::pair<int, size_t>& key = order[k]->first;
    StatisticFile& out = order[k]->second;
    const dump::DumpFile& file = (key.first == 0 ? pairing.mine : pairing.golden).files[key.second];
    auto mapped = dump::open_dump_file(file, Reading::Whole);
    if (mapped)
      out.error = dump::read_dump_file(file, (*mapped)->bytes(), [&](const dump::DumpTensor& t) {
        if (!t.statistics) return;
        LoadedTensor& row = out.rows[t.statistics->line];
        row.side.file = file.display;
        fill_statistics(*t.statistics, row);
      });
    else
      out.error = std::move(mapped).error();
  });
  for (auto* entry : order)
    if (entry->second.error) {
      const PairedSide& side = entry->first.first == 0 ? pairing.mine : pairing.golden;
      diagnostics.error(side.files[entry->first.second].display, *entry->second.error);
    }
  return files;
}

}  // namespace

Expected<LoadedTensor> load_tensor(const PairedSide& side, const TensorRef& ref, Load load) {
  const dump::DumpFile& file = side.files.at(ref.file);
  LoadedTensor out;
  out.side.file = file.display;
  out.side.source = "tensor";
  auto mapped =
      dump::open_dump_file(file, load == Load::Elements ? Reading::Whole : Reading::Parts);
  if (!mapped) return std::move(mapped).error();
  std::shared_ptr<const MappedFile> bytes = *mapped;
  bool found = false;
  Status problem;
  auto status = dump::read_dump_file(file, bytes->bytes(), [&](const dump::DumpTensor& t) {
    if (found || !is_referenced(ref, t)) return;
    found = true;
    out.side.dtype = t.dtype;
    out.side.shape = t.shape;
    out.side.shape_known = t.shape_known;
    if (t.statistics) {
      fill_statistics(*t.statistics, out);
      return;
    }
    if (!t.view) {
      problem = Error(fmt::format("the {} tensor holds no elements to compare", t.format));
      return;
    }
    out.view = *t.view;
    out.keep = bytes;
    if (!t.ascend) return;
    out.side.address = t.ascend->address;
    const dump::AscendLayout layout = dump::ascend_layout(*t.ascend, *t.view);
    const auto to = host_format_for(layout);
    if (!to) {
      // A host layout: original_shape names the shape when it holds as many elements.
      auto stored = element_count(t.view->shape), host = element_count(layout.original_shape);
      if (!layout.original_shape.empty() && stored && host && *stored == *host)
        out.view->shape = out.side.shape = layout.original_shape;
      return;
    }
    out.side.format = layout.format;
    if (load == Load::Header) {
      // The shape the elements would have; they are not rearranged.
      if (!layout.original_shape.empty()) out.side.shape = layout.original_shape;
      out.view.reset();
      return;
    }
    auto result = transform_layout(*t.view, layout.format, *to, layout.original_shape,
                                   layout.groups, layout.original_format);
    if (!result) {
      problem = std::move(result).error().with_context(
          fmt::format("{} {} from {} to {}", t.io, t.slot.value_or(0), layout.format, *to));
      return;
    }
    auto owned = std::make_shared<std::vector<std::byte>>(std::move(result->data));
    out.view = TensorView{t.view->dtype, result->shape, Bytes(*owned)};
    out.side.shape = result->shape;
    out.keep = owned;
  });
  if (status) return std::move(*status);
  if (problem) return std::move(*problem);
  if (!found) {
    std::string what = ref.source == TensorRef::Source::StatisticRow
                           ? fmt::format("line {}", ref.statistic_line.value_or(0))
                           : fmt::format("{} {}", ref.io ? dump::io_name(*ref.io) : "tensor",
                                         ref.slot.value_or(0));
    return Error(fmt::format("the file no longer holds {}", what));
  }
  return out;
}

Thresholds row_thresholds(const CompareOptions& options, std::optional<DType> golden_dtype,
                          bool statistics_only) {
  Thresholds t = preset_thresholds(options.preset, golden_dtype.value_or(DType::Float32));
  for (const ThresholdSetting& s : options.thresholds) apply(t, s);
  if (statistics_only) t.magnitude_warning = true;
  return t;
}

namespace {

ComparedRow compare_row(const Pairing& pairing, size_t index, const CompareOptions& options,
                        const MetricOptions& metric_options, const StatisticFiles& statistics,
                        dump::DeferredDiagnostics& errors) {
  const PairRow& pair = pairing.rows[index];
  ComparedRow row;
  row.index = index;
  row.pair = &pair;
  if (!pair.mine || !pair.golden) {
    const PairedSide& side = pair.mine ? pairing.mine : pairing.golden;
    const TensorRef& ref = pair.mine ? *pair.mine : *pair.golden;
    ComparedSide& out = pair.mine ? row.mine : row.golden;
    out.file = side.files.at(ref.file).display;
    out.source = ref.source == TensorRef::Source::StatisticRow ? "statistic.csv" : "tensor";
    row.verdict = RowVerdict::unmatched(pair.mine ? "only in my dump" : "only in the golden dump");
    // Its dtype and shape, for the peers' columns; nothing is compared, so a file that cannot be
    // read here is not reported (the row says what it is).
    if (ref.source != TensorRef::Source::StatisticRow) {
      if (auto loaded = load_tensor(side, ref, Load::Header)) out = loaded->side;
    } else if (auto file = statistics.find({pair.mine ? 0 : 1, ref.file});
               file != statistics.end()) {
      if (auto it = file->second.rows.find(ref.statistic_line.value_or(0));
          it != file->second.rows.end())
        out = it->second.side;
    }
    return row;
  }
  // A statistic.csv that could not be read was reported once, not once per row.
  std::array<bool, 2> reported{};
  auto load = [&](int which, const TensorRef& ref) -> Expected<LoadedTensor> {
    const PairedSide& side = which == 0 ? pairing.mine : pairing.golden;
    if (ref.source != TensorRef::Source::StatisticRow) return load_tensor(side, ref);
    const StatisticFile& file = statistics.at({which, ref.file});
    if (file.error) {
      reported[which] = true;
      return *file.error;
    }
    auto it = file.rows.find(ref.statistic_line.value_or(0));
    if (it == file.rows.end())
      return Error(fmt::format("the file no longer holds line {}", ref.statistic_line.value_or(0)));
    return it->second;
  };
  auto my = load(0, *pair.mine);
  auto golden = load(1, *pair.golden);
  for (auto [loaded, side, ref, out] :
       {std::tuple{&my, &pairing.mine, &*pair.mine, &row.mine},
        std::tuple{&golden, &pairing.golden, &*pair.golden, &row.golden}}) {
    if (*loaded) {
      *out = (*loaded)->side;
      continue;
    }
    out->file = side->files.at(ref->file).display;
    if (!reported[side == &pairing.mine ? 0 : 1]) errors.error(out->file, loaded->error());
    std::string why = fmt::format("{} side unreadable: {}", side == &pairing.mine ? "my" : "golden",
                                  loaded->error().describe());
    row.problem = row.problem ? *row.problem + "; " + why : why;
  }
  if (row.problem) {
    row.verdict = RowVerdict::skipped(*row.problem);
    return row;
  }
  const bool stats_only = !my->view || !golden->view;
  if (stats_only) {
    auto stats = [&](const LoadedTensor& t) {
      if (t.view) return compute_stats(*t.view);
      return *t.statistics;
    };
    row.metrics = statistics_only(stats(*my), stats(*golden), row.mine, row.golden);
  } else {
    auto metrics = compare_tensors(*my->view, *golden->view, metric_options);
    if (!metrics) {
      errors.error(row.mine.file, metrics.error());
      row.problem = metrics.error().describe();
      row.verdict = RowVerdict::skipped(*row.problem);
      return row;
    }
    row.metrics = std::move(*metrics);
  }
  row.verdict = judge(*row.metrics, row_thresholds(options, row.golden.dtype, stats_only));
  return row;
}

}  // namespace

void run_compare(const Pairing& pairing, const CompareOptions& options,
                 const std::vector<size_t>& wanted, CompareListener& listener,
                 Diagnostics& diagnostics) {
  std::vector<size_t> all;
  const std::vector<size_t>* rows = &wanted;
  if (wanted.empty()) {
    all.resize(pairing.rows.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = i;
    rows = &all;
  }
  const unsigned jobs = std::max(1u, options.jobs);
  // Few pairs: the workers go into each pair instead (results do not depend on it).
  MetricOptions metric_options = options.metrics;
  metric_options.jobs = rows->size() < jobs ? jobs : 1;
  // Wide, as dump/file_workers.h explains: rows are small and pair sizes vary over decades, so a
  // narrow window lets one large pair hold every worker up behind it.
  size_t window = options.window ? options.window : size_t{32} * jobs;
  const StatisticFiles statistics = read_statistic_files(pairing, *rows, jobs, diagnostics);
  ordered_parallel<RowResult>(
      rows->size(), jobs, window,
      [&](size_t i) {
        RowResult result;
        result.row = compare_row(pairing, (*rows)[i], options, metric_options, statistics,
                                 result.diagnostics);
        return result;
      },
      [&](size_t, RowResult result) {
        result.diagnostics.replay(diagnostics);
        listener.row(result.row);
      });
}

void report_problems(const Pairing& pairing, Diagnostics& diagnostics) {
  for (const Problem& p : pairing.problems) {
    Error e = p.error;
    e.context(fmt::format("{} dump", side_name(p.side)));
    if (p.warning)
      diagnostics.warning(p.file, e);
    else
      diagnostics.error(p.file, e);
  }
}

PairCounts count_rows(const Pairing& pairing, const std::vector<size_t>& rows) {
  if (rows.empty()) return pairing.counts;
  PairCounts c = pairing.counts;
  c.pairs = c.only_mine = c.only_golden = 0;
  for (size_t i : rows) {
    const PairRow& r = pairing.rows[i];
    if (r.mine && r.golden)
      ++c.pairs;
    else if (r.mine)
      ++c.only_mine;
    else
      ++c.only_golden;
  }
  return c;
}

std::vector<size_t> rows_in_ranks(const Pairing& pairing, const dump::IdList& ranks) {
  std::vector<size_t> out;
  for (size_t i = 0; i < pairing.rows.size(); ++i) {
    const DirectoryKey& key = pairing.groups.at(pairing.rows[i].group).key;
    if (!key.rank || ranks.contains(*key.rank)) out.push_back(i);
  }
  return out;
}

}  // namespace msdt::compare
