#include "compare/detail.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <queue>

#include "io/output_file.h"
#include "io/safe_name.h"
#include "plot/plot.h"
#include "table/format.h"
#include "tensor/element_values.h"

namespace msdt::compare {

namespace {

bool names_op(const TensorRef& ref, const std::string& op) {
  return ref.op_name == op || key_spelling(ref.op_name) == key_spelling(op);
}

std::string tensor_text(dump::Io io, uint32_t slot) {
  return fmt::format("{} {}", dump::io_name(io), slot);
}

struct Element {
  double key = 0;  // the error ranked (non-finite errors rank last)
  uint64_t index = 0;
  double x = 0, y = 0, abs = 0, rel = 0;
};
struct Ranked {
  bool operator()(const Element& a, const Element& b) const {
    if (a.key != b.key) return a.key > b.key;  // min-heap on key: the smallest kept is on top
    return a.index < b.index;
  }
};

class TopN {
 public:
  explicit TopN(size_t n) : n_(n) {}
  void offer(const Element& e) {
    if (heap_.size() < n_) {
      heap_.push(e);
    } else if (Ranked{}(e, heap_.top())) {
      heap_.pop();
      heap_.push(e);
    }
  }
  std::vector<Element> sorted() {
    std::vector<Element> out;
    while (!heap_.empty()) {
      out.push_back(heap_.top());
      heap_.pop();
    }
    std::reverse(out.begin(), out.end());
    return out;
  }

 private:
  size_t n_;
  std::priority_queue<Element, std::vector<Element>, Ranked> heap_;
};

std::string cell(double v) { return fmt::format("{:.6f}\t", v); }
std::string error_cell(double v, bool boolean) {
  if (boolean || !std::isfinite(v)) return "-";
  return cell(v);
}

std::vector<std::string> coordinate_titles(size_t rank) {
  if (rank == 4) return {"N", "C", "H", "W"};
  std::vector<std::string> out;
  for (size_t i = 0; i < rank; ++i) out.push_back(fmt::format("D{}", i));
  return out;
}

void append_coordinates(std::string& out, uint64_t index, const std::vector<uint64_t>& shape) {
  std::vector<uint64_t> c(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    uint64_t n = shape[d] ? shape[d] : 1;
    c[d] = index % n;
    index /= n;
  }
  for (uint64_t v : c) out += fmt::format(",{}", v);
}

}  // namespace

Status parse_tensor_spec(std::string_view text, DetailOptions& options) {
  size_t colon = text.find(':');
  std::string_view io = text.substr(0, colon), slot;
  if (colon != std::string_view::npos) slot = text.substr(colon + 1);
  uint32_t value = 0;
  auto [end, ec] = std::from_chars(slot.data(), slot.data() + slot.size(), value);
  if ((io != "input" && io != "output") || slot.empty() || ec != std::errc() ||
      end != slot.data() + slot.size())
    return Error(fmt::format("expected input:N or output:N, not '{}'", text));
  options.io = io == "input" ? dump::Io::Input : dump::Io::Output;
  options.slot = value;
  return std::nullopt;
}

Expected<size_t> find_detail_row(const Pairing& pairing, const DetailOptions& o) {
  std::optional<size_t> one_side;
  std::vector<std::string> has;
  for (size_t i = 0; i < pairing.rows.size(); ++i) {
    const PairRow& r = pairing.rows[i];
    for (const auto* ref : {&r.mine, &r.golden}) {
      if (!*ref || !names_op(**ref, o.op)) continue;
      const TensorRef& t = **ref;
      std::string what = t.io ? tensor_text(*t.io, t.slot.value_or(0)) : "tensor";
      if (t.occurrence) what += fmt::format(" #{}", t.occurrence + 1);
      if (std::find(has.begin(), has.end(), what) == has.end()) has.push_back(what);
      if (t.io != o.io || t.slot.value_or(0) != o.slot || t.occurrence != o.occurrence) continue;
      if (r.mine && r.golden) return i;
      one_side = i;
    }
  }
  std::string wanted = tensor_text(o.io, o.slot);
  if (o.occurrence) wanted += fmt::format(" #{}", o.occurrence + 1);
  if (one_side)
    return Error(fmt::format("{} of op '{}' is only in {} dump: nothing to compare", wanted, o.op,
                             pairing.rows[*one_side].mine ? "my" : "the golden"));
  if (has.empty()) {
    // The last part of a scoped name ("Conv2D-op5" for "Default/network/conv2/Conv2D-op5"), when
    // it names one op.
    const std::string tail = "_" + key_spelling(o.op);
    std::vector<std::string> full;
    for (const PairRow& r : pairing.rows)
      for (const auto* ref : {&r.mine, &r.golden})
        if (*ref && key_spelling((*ref)->op_name).ends_with(tail) &&
            std::find(full.begin(), full.end(), (*ref)->op_name) == full.end())
          full.push_back((*ref)->op_name);
    if (full.size() == 1) {
      DetailOptions named = o;
      named.op = full.front();
      return find_detail_row(pairing, named);
    }
    if (full.size() > 1)
      return Error(fmt::format("'{}' ends the names of {} ops ({}): give the whole name", o.op,
                               full.size(), fmt::join(full, ", ")));
    return Error(fmt::format("no op named '{}' in either dump", o.op));
  }
  return Error(fmt::format("op '{}' has no {}; it has {}", o.op, wanted, fmt::join(has, ", ")));
}

std::optional<DetailFailure> write_detail(const Pairing& pairing, size_t row_index,
                                          const DetailOptions& o,
                                          std::vector<std::filesystem::path>& written) {
  const PairRow& row = pairing.rows.at(row_index);
  const std::string& my_file = pairing.mine.files[row.mine->file].display;
  const std::string& golden_file = pairing.golden.files[row.golden->file].display;
  auto input = [](const std::string& file, Error e) {
    return DetailFailure{file, std::move(e), false};
  };
  auto output = [](const std::filesystem::path& file, Error e) {
    return DetailFailure{file.string(), std::move(e), true};
  };
  auto my = load_tensor(pairing.mine, *row.mine);
  if (!my) return input(my_file, my.error());
  auto golden = load_tensor(pairing.golden, *row.golden);
  if (!golden) return input(golden_file, golden.error());
  if (!my->view || !golden->view)
    return input(my->view ? golden_file : my_file,
                 Error("a statistic.csv row: detail mode needs the elements of both tensors"));
  const TensorView& x = *my->view;
  const TensorView& y = *golden->view;
  auto nx = element_count(x.shape), ny = element_count(y.shape);
  if (!nx) return input(my_file, nx.error());
  if (!ny) return input(golden_file, ny.error());
  if (*nx != *ny)
    return input(my_file, Error(fmt::format(
                              "my tensor has {} elements and the golden one {}: the sizes differ",
                              *nx, *ny)));
  if (!has_real_values(x.dtype) || !has_real_values(y.dtype))
    return input(has_real_values(x.dtype) ? golden_file : my_file,
                 Error("the elements are not real numbers"));
  const uint64_t n = *nx;
  const bool boolean = x.dtype == DType::Bool && y.dtype == DType::Bool;
  const std::vector<uint64_t>& shape = y.shape;

  std::error_code ec;
  std::filesystem::create_directories(o.directory, ec);
  auto dir = OpenDirectory::open(o.directory);
  if (!dir) return output(o.directory, dir.error());
  std::string prefix = fmt::format("{}_{}_{}", row.mine->op_name, dump::io_name(o.io), o.slot);
  std::replace(prefix.begin(), prefix.end(), '/', '_');
  if (o.occurrence) prefix += fmt::format("_{}", o.occurrence + 1);
  // msaccucmp's names (/ as _), made safe file names by the one naming of every exporter: other
  // bytes that cannot be in a name as %XX, a name over 255 bytes cut with its digest.

  std::string header = "Index";
  for (const std::string& t : coordinate_titles(shape.size())) header += "," + t;
  header += ",NPUDump,GroundTruth,AbsoluteError,RelativeError\n";

  // Heatmap cells: the largest |x − y| of each block of the rank-2 view, at most 1024 × 1024.
  const uint64_t cols = shape.empty() ? 1 : std::max<uint64_t>(shape.back(), 1);
  const uint64_t rows = n == 0 ? 0 : n / cols;
  const uint64_t grid_cols = std::min<uint64_t>(cols, 1024),
                 grid_rows = std::min<uint64_t>(rows, 1024);
  std::vector<double> grid;
  if (o.png) grid.assign(grid_rows * grid_cols, 0.0);

  TopN top_abs(o.top), top_rel(o.top);
  double min_abs = INFINITY, max_abs = -INFINITY, min_rel = INFINITY, max_rel = -INFINITY;
  std::optional<AtomicFile> file;
  uint64_t file_number = 0, lines = 0;
  std::filesystem::path current;
  auto open_next = [&]() -> Status {
    if (file) {
      if (Status s = file->commit()) return s;
      file.reset();
    }
    std::string name = safe_file_name(prefix, fmt::format("_{}.csv", file_number++));
    current = o.directory / name;
    auto created = AtomicFile::create(*dir, name);
    if (!created) return std::move(created).error();
    file.emplace(std::move(*created));
    written.push_back(current);
    lines = 0;
    return file->write(header);
  };
  if (Status s = open_next()) return output(current, *s);

  constexpr uint64_t kBlock = 16384;
  std::vector<double> bx(kBlock), by(kBlock);
  std::string text;
  for (uint64_t first = 0; first < n; first += kBlock) {
    uint64_t m = std::min(kBlock, n - first);
    if (Status s = elements_to_double(x, first, m, bx.data())) return input(my_file, *s);
    if (Status s = elements_to_double(y, first, m, by.data())) return input(golden_file, *s);
    text.clear();
    for (uint64_t k = 0; k < m; ++k) {
      double a = bx[k], b = by[k];
      if (o.cast_float32) {
        a = static_cast<float>(a);
        b = static_cast<float>(b);
      }
      const uint64_t index = first + k;
      double abs = std::fabs(a - b);
      double rel = abs / std::fabs(b);
      if (!boolean) {
        if (std::isfinite(abs)) {
          min_abs = std::min(min_abs, abs);
          max_abs = std::max(max_abs, abs);
        }
        if (std::isfinite(rel)) {
          min_rel = std::min(min_rel, rel);
          max_rel = std::max(max_rel, rel);
        }
        top_abs.offer({std::isfinite(abs) ? abs : -1.0, index, a, b, abs, rel});
        top_rel.offer({std::isfinite(rel) ? rel : -1.0, index, a, b, abs, rel});
      }
      if (!grid.empty()) {
        uint64_t r = index / cols, c = index % cols;
        double& g = grid[(r * grid_rows / rows) * grid_cols + c * grid_cols / cols];
        if (std::isnan(abs) || !(g >= abs)) g = abs;
      }
      if (lines == o.max_line) {
        if (Status s = file->write(text)) return output(current, *s);
        text.clear();
        if (Status s = open_next()) return output(current, *s);
      }
      text += std::to_string(index);
      append_coordinates(text, index, shape);
      text += ',' + cell(a) + ',' + cell(b) + ',' + error_cell(abs, boolean) + ',' +
              error_cell(rel, boolean) + '\n';
      ++lines;
    }
    if (Status s = file->write(text)) return output(current, *s);
  }
  if (Status s = file->commit()) return output(current, *s);

  std::string summary;
  summary += fmt::format("NPUDump: {}\nGroundTruth: {}\n", my->side.file, golden->side.file);
  summary += fmt::format("Tensor: {} {}, shape {}, {} elements\n", row.mine->op_name,
                         tensor_text(o.io, o.slot), fmt::join(shape, "x"), n);
  auto range = [&](const char* what, double lo, double hi) {
    if (boolean) return fmt::format("{}: - (bool)\n", what);
    if (lo > hi) return fmt::format("{}: - (no finite value)\n", what);
    return fmt::format("{}: min {:.6f}, max {:.6f}\n", what, lo, hi);
  };
  summary += range("AbsoluteError", min_abs, max_abs);
  summary += range("RelativeError", min_rel, max_rel);
  for (auto [title, top] : {std::pair{"AbsoluteError", &top_abs}, {"RelativeError", &top_rel}}) {
    std::vector<Element> best = top->sorted();
    summary += fmt::format("Top {} by {}:\n", best.size(), title);
    std::vector<std::vector<std::string>> table{
        {"Index", "Coordinates", "NPUDump", "GroundTruth", "AbsoluteError", "RelativeError"}};
    for (const Element& e : best) {
      std::string coords;
      append_coordinates(coords, e.index, shape);
      table.push_back({std::to_string(e.index), coords.empty() ? "-" : coords.substr(1),
                       fmt::format("{:.6f}", e.x), fmt::format("{:.6f}", e.y),
                       std::isfinite(e.abs) ? fmt::format("{:.6f}", e.abs) : "-",
                       std::isfinite(e.rel) ? fmt::format("{:.6f}", e.rel) : "-"});
    }
    if (best.size() > 0) summary += table::align_columns(table);
  }
  const std::string summary_name = safe_file_name(prefix, "_summary.txt");
  std::filesystem::path summary_path = o.directory / summary_name;
  if (Status s = write_file_atomically(*dir, summary_name, summary))
    return output(summary_path, *s);
  written.push_back(summary_path);

  if (o.png) {
    plot::Heatmap h;
    h.title = fmt::format("|my - golden| of {} {} ({}x{}{})", row.mine->op_name,
                          tensor_text(o.io, o.slot), rows, cols,
                          grid_rows < rows || grid_cols < cols ? ", block maxima" : "");
    h.rows = grid_rows;
    h.cols = grid_cols;
    h.values = std::move(grid);
    h.reduction = plot::Heatmap::MaxAbs;
    plot::Options look;
    look.panel_width = 720;
    look.panel_height = 560;
    auto png = plot::heatmaps(std::span<const plot::Heatmap>(&h, 1), look);
    if (!png) return output(*o.png, png.error());
    if (Status s = write_file_atomically(*o.png, *png)) return output(*o.png, *s);
    written.push_back(*o.png);
  }
  return std::nullopt;
}

}  // namespace msdt::compare
