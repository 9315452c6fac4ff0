// Charts of plain data (plot.h), drawn with cairo on a white RGB surface and
// written as PNG.
//
// Every picture is a grid of equal panels. A panel has its title at the top, then (line charts)
// the legend, then the plot area with light grid lines at the ticks (and reference lines and
// markers over them, under the data), tick labels left and below, and (heat views) a colour bar
// on the right. Ticks are 1, 2 or 5 × 10^k apart, widened until the labels do not touch; labels
// are compact ("0.25", "12k", "1e-05"). Text goes through cairo's toy API ("sans-serif", whatever
// fontconfig maps it to), so the same input gives the same bytes on the same machine.
#include "plot/plot.h"

#include <cairo.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <functional>
#include <iterator>
#include <limits>
#include <memory>
#include <numbers>
#include <optional>
#include <utility>

#include "io/report.h"
#include "io/text.h"

// cairo's text API leaves fontconfig patterns in caches that only
// cairo_debug_reset_static_data() frees, and a library may not call that (another thread may be
// drawing): LeakSanitizer (the sanitizer build of the tests) would report them as leaks of every
// program that draws. It is told to expect them, and not to list the suppressions it used on
// standard error (the golden tests compare it whole). Read only by LeakSanitizer; unused
// functions in other builds.
extern "C" const char* __lsan_default_suppressions() { return "leak:libfontconfig.so\n"; }
extern "C" const char* __lsan_default_options() { return "print_suppressions=0"; }

namespace msdt::plot {
namespace {

// Refusing larger pictures keeps a typo in --columns or the panel size from asking for gigabytes.
constexpr int64_t kMaxPixels = 100'000'000;
constexpr int kMaxSide = 32767;  // cairo's largest image surface side
constexpr int kMinPanelWidth = 160, kMinPanelHeight = 120;

constexpr double kPad = 10;  // around the panel's content
constexpr double kTitleSize = 13, kTextSize = 11, kSmallSize = 9;
constexpr double kTitleBand = 24;      // the title's height
constexpr double kLegendRow = 18;      // one line of legend entries
constexpr int kMaxLegendRows = 3;      // then "+N more"
constexpr double kTickGap = 6;         // between a tick label and the plot area
constexpr double kBottomBand = 44;     // x tick labels and the x axis label
constexpr double kBarWidth = 14;       // the colour bar
constexpr size_t kMaxRidgelines = 50;  // curves in a ridgeline panel; more steps are sampled
constexpr int kHeatRows = 100;         // value bins of the histogram heat view
constexpr uint64_t kMaxCells = 1024;   // a heatmap's cells a side; larger tensors go in blocks
constexpr double kStripSide = 40;      // the thickness of a one-row (or one-column) heatmap

struct Rgb {
  double r = 0, g = 0, b = 0;
};

constexpr Rgb hex(uint32_t v) {
  return {((v >> 16) & 0xff) / 255.0, ((v >> 8) & 0xff) / 255.0, (v & 0xff) / 255.0};
}
constexpr Rgb grey(double level) { return {level, level, level}; }

// matplotlib's "tab10": ten colours told apart by most readers, colour-blind ones included.
constexpr std::array kSeriesColours{hex(0x1f77b4), hex(0xff7f0e), hex(0x2ca02c), hex(0xd62728),
                                    hex(0x9467bd), hex(0x8c564b), hex(0xe377c2), hex(0x7f7f7f),
                                    hex(0xbcbd22), hex(0x17becf)};
// viridis at 0, 1/8, …, 1: perceptually uniform, still ordered in grey print; linear
// interpolation between these anchors stays within a few levels of the full table.
constexpr std::array kViridis{hex(0x440154), hex(0x472d7b), hex(0x3b528b),
                              hex(0x2c728e), hex(0x21918c), hex(0x28ae80),
                              hex(0x5ec962), hex(0xaddc30), hex(0xfde725)};
constexpr Rgb kBackground = grey(1), kGrid = grey(0.9), kFrame = grey(0.6), kText = grey(0.15),
              kTickText = grey(0.3), kMissing = grey(0.75);
// Reference lines (amber, red, grey; their labels darker where the line is light) and markers (a
// dark plum, unlike every series colour and the text).
struct LineColours {
  Rgb line, label;
};
constexpr std::array<LineColours, 3> kReferenceColours{
    {{hex(0xf0a000), hex(0xa86a00)}, {hex(0xe00000), hex(0xc00000)}, {grey(0.45), grey(0.35)}}};
constexpr Rgb kMarker = hex(0x5c1a4a);

Rgb viridis(double t) {
  t = std::isnan(t) ? 0 : std::clamp(t, 0.0, 1.0);
  double pos = t * (kViridis.size() - 1);
  size_t i = std::min(static_cast<size_t>(pos), kViridis.size() - 2);
  double f = pos - i;
  const Rgb &a = kViridis[i], &b = kViridis[i + 1];
  return {a.r + (b.r - a.r) * f, a.g + (b.g - a.g) * f, a.b + (b.b - a.b) * f};
}

void set_colour(cairo_t* cr, Rgb c, double alpha = 1) {
  cairo_set_source_rgba(cr, c.r, c.g, c.b, alpha);
}

struct Rect {
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  double width() const { return x1 - x0; }
  double height() const { return y1 - y0; }
};

// ---------------------------------------------------------------------------------------------
// Numbers on axes

// The smallest 1, 2 or 5 × 10^k not below `raw` (> 0).
double nice_step(double raw) {
  double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0}) {
    if (m * power >= raw * (1 - 1e-9)) return m * power;
  }
  return 10 * power;
}

// The nice step after `step`: 1 → 2 → 5 → 10.
double next_nice_step(double step) { return nice_step(step * 1.5); }

std::string strip_zeros(std::string text) {
  if (text.find('.') != std::string::npos) {
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
  }
  return text == "-0" ? "0" : text;
}

}  // namespace

std::string tick_label(double value, double step, double magnitude) {
  if (!std::isfinite(value)) return fmt::format("{}", value);
  step = std::abs(step);
  if (!(step > 0) || !std::isfinite(step)) step = std::abs(value);
  if (value == 0 || std::abs(value) < step * 1e-9) return "0";  // float noise at the origin
  if (magnitude >= 1e15 || magnitude < 1e-3) {
    // As many mantissa digits as the step needs: "1e-05", "2.5e-05".
    int decimals =
        static_cast<int>(std::floor(std::log10(std::abs(value))) - std::floor(std::log10(step)));
    std::string text = fmt::format("{:.{}e}", value, std::clamp(decimals, 0, 14));
    size_t e = text.find('e');
    return strip_zeros(text.substr(0, e)) + text.substr(e);
  }
  static constexpr std::array<std::pair<double, const char*>, 4> kSuffixes{
      {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}}};
  double scale = 1;
  const char* suffix = "";
  for (auto [power, name] : kSuffixes) {
    if (magnitude >= std::max(power, 1e4)) {  // 1000 to 9999 stay plain
      scale = power;
      suffix = name;
      break;
    }
  }
  int decimals = static_cast<int>(std::ceil(-std::log10(step / scale) - 1e-9));
  return strip_zeros(fmt::format("{:.{}f}", value / scale, std::clamp(decimals, 0, 15))) + suffix;
}

namespace {

// ---------------------------------------------------------------------------------------------
// Text

void use_font(cairo_t* cr, double size, bool bold = false) {
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
                         bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, size);
}

// Tags are bytes: cairo needs valid UTF-8 (anything else puts the context in an error state), and
// control characters would draw as boxes, so labels are spelled as messages spell paths.
std::string printable(std::string_view text) { return printable_path(text); }

double text_width(cairo_t* cr, const std::string& text) {
  cairo_text_extents_t extents;
  cairo_text_extents(cr, text.c_str(), &extents);
  return extents.x_advance;
}

enum class Align : uint8_t { Left, Centre, Right };

// Draws `text` with its vertical middle at y.
void draw_text(cairo_t* cr, const std::string& text, double x, double y, Align align) {
  cairo_font_extents_t font;
  cairo_font_extents(cr, &font);
  double width = text_width(cr, text);
  double left = align == Align::Left ? x : align == Align::Centre ? x - width / 2 : x - width;
  cairo_move_to(cr, left, y + (font.ascent - font.descent) / 2);
  cairo_show_text(cr, text.c_str());
}

// `text` cut at a character boundary and ended with "…" when it is wider than `max_width`.
std::string fit_text(cairo_t* cr, std::string text, double max_width) {
  if (text_width(cr, text) <= max_width) return text;
  while (!text.empty()) {
    text.resize(utf8_boundary(text, text.size() - 1));  // the last character off
    if (text_width(cr, text + "…") <= max_width) break;
  }
  return text + "…";
}

// The panel's title, bold and centred in the band at its top.
void draw_title(cairo_t* cr, std::string_view title, double panel_width) {
  use_font(cr, kTitleSize, true);
  set_colour(cr, kText);
  draw_text(cr, fit_text(cr, printable(title), panel_width - 2 * kPad), panel_width / 2,
            kPad + kTitleSize / 2, Align::Centre);
}

// A line of text in the middle of an area that has nothing to draw.
void draw_note(cairo_t* cr, const Rect& area, const std::string& note) {
  use_font(cr, kTextSize);
  set_colour(cr, kTickText);
  draw_text(cr, note, (area.x0 + area.x1) / 2, (area.y0 + area.y1) / 2, Align::Centre);
}

// ---------------------------------------------------------------------------------------------
// Axes

// Value → pixel along one axis; on a log axis lo and hi are log10 of the values.
struct Scale {
  double lo = 0, hi = 1;
  bool log = false;
  double from = 0, to = 1;  // the pixels of lo and hi

  double operator()(double value) const {
    double t = log ? std::log10(value) : value;
    // Halves, so that a range as wide as ±DBL_MAX does not overflow.
    double f = (t * 0.5 - lo * 0.5) / (hi * 0.5 - lo * 0.5);
    return from + f * (to - from);
  }
};

// [lo, hi] made wider than a point (a constant series) and, for data axes, padded by `margin` of
// its width so that extremes do not sit on the frame.
std::pair<double, double> widen(double lo, double hi, double margin) {
  if (!(hi > lo)) {
    double half = lo == 0 ? 0.5 : std::abs(lo) * 0.1;
    return {lo - half, hi + half};
  }
  double pad = (hi * 0.5 - lo * 0.5) * 2 * margin;
  if (std::isfinite(lo - pad) && std::isfinite(hi + pad)) return {lo - pad, hi + pad};
  return {lo, hi};
}

struct Ticks {
  std::vector<double> at;  // values (not log10 on a log axis)
  std::vector<std::string> labels;
};

using LabelFn = std::function<std::string(double value, double step, double magnitude)>;

// The multiples of `step` in [lo, hi]; none when there would be more than 200.
std::vector<double> multiples_between(double lo, double hi, double step) {
  double first = std::ceil(lo / step - 1e-9), last = std::floor(hi / step + 1e-9);
  std::vector<double> at;
  if (!std::isfinite(first) || !std::isfinite(last) || !(last - first <= 200)) return at;
  // Counted with an int: past 2^53, ++ on a double multiple would not move.
  for (int i = 0; i <= static_cast<int>(last - first); ++i) {
    double v = (first + i) * step;
    at.push_back(v == 0 ? 0 : v);  // not -0
  }
  return at;
}

// Whether the labels of ticks `spacing` pixels apart leave room between them.
bool labels_fit(cairo_t* cr, const Ticks& ticks, double spacing, bool horizontal) {
  if (ticks.at.size() < 2) return true;
  if (!horizontal) return spacing >= kTextSize + 8;
  double widest = 0;
  for (const auto& label : ticks.labels) widest = std::max(widest, text_width(cr, label));
  return spacing >= widest + 12;
}

// Ticks at multiples of a 1/2/5 × 10^k step over [lo, hi] (`length` pixels long), the step
// widened until the labels fit; integer axes (steps, indices) never go below 1.
Ticks linear_ticks(cairo_t* cr, double lo, double hi, double length, bool horizontal, bool integer,
                   const LabelFn& label = tick_label) {
  Ticks best;
  if (!(hi > lo)) {
    best.at = {lo};
    best.labels = {label(lo, lo == 0 ? 1 : std::abs(lo), std::abs(lo))};
    return best;
  }
  double span = (hi * 0.5 - lo * 0.5) * 2;
  double step = nice_step(span * (horizontal ? 60 : 30) / std::max(length, 1.0));
  if (integer) step = std::max(step, 1.0);
  for (int attempt = 0; attempt < 30 && std::isfinite(step); ++attempt) {
    Ticks ticks;
    ticks.at = multiples_between(lo, hi, step);
    if (ticks.at.empty()) break;
    double magnitude = 0;
    for (double v : ticks.at) magnitude = std::max(magnitude, std::abs(v));
    for (double v : ticks.at) ticks.labels.push_back(label(v, step, magnitude));
    best = std::move(ticks);
    if (labels_fit(cr, best, step / span * length, horizontal)) break;
    step = next_nice_step(step);
  }
  return best;
}

// Ticks of a log axis over [10^lo_e, 10^hi_e]: powers of ten (every 10^e-th when there are many
// decades), else 1, 2, 5 × 10^k, else a linear step when the range is within one decade.
Ticks log_ticks(cairo_t* cr, double lo_e, double hi_e, double length, bool horizontal) {
  // Doubles span 10^-324 to 10^308; the axis may reach a little past them after padding.
  lo_e = std::max(lo_e, -330.0);
  hi_e = std::min(hi_e, 310.0);
  double lo = std::pow(10.0, lo_e), hi = std::pow(10.0, hi_e);
  auto spacing_of = [&](double ratio) { return std::log10(ratio) / (hi_e - lo_e) * length; };
  auto labelled = [](std::vector<double> at) {
    Ticks ticks;
    for (double v : at) {
      double unit = std::pow(10.0, std::floor(std::log10(v) + 1e-9));
      ticks.labels.push_back(tick_label(v, unit, v));
    }
    ticks.at = std::move(at);
    return ticks;
  };
  for (double every = 1; every < 400; every = next_nice_step(every)) {
    Ticks ticks;
    std::vector<double> at;
    for (double e : multiples_between(lo_e, hi_e, every)) {
      double v = std::pow(10.0, e);
      if (v > 0 && std::isfinite(v)) at.push_back(v);
    }
    if (at.size() < 2) break;
    ticks = labelled(std::move(at));
    if (labels_fit(cr, ticks, spacing_of(std::pow(10.0, every)), horizontal)) return ticks;
  }
  std::vector<double> at;
  for (double e = std::floor(lo_e); e <= std::ceil(hi_e) && at.size() <= 200; ++e) {
    for (double m : {1.0, 2.0, 5.0}) {
      double v = m * std::pow(10.0, e);
      if (v > 0 && std::isfinite(v) && v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) {
        at.push_back(v);
      }
    }
  }
  if (at.size() >= 2) {
    Ticks ticks = labelled(at);
    if (labels_fit(cr, ticks, spacing_of(2.5), horizontal)) return ticks;  // 2 → 5: the closest
  }
  Ticks linear = linear_ticks(cr, lo, hi, length, horizontal, false);
  Ticks positive;
  for (size_t i = 0; i < linear.at.size(); ++i) {
    if (!(linear.at[i] > 0)) continue;
    positive.at.push_back(linear.at[i]);
    positive.labels.push_back(linear.labels[i]);
  }
  return positive;
}

double widest_label(cairo_t* cr, const Ticks& ticks) {
  double widest = 0;
  for (const auto& label : ticks.labels) widest = std::max(widest, text_width(cr, label));
  return widest;
}

// Grid lines at the ticks, drawn before the data.
void draw_grid(cairo_t* cr, const Rect& area, const Ticks* x_ticks, const Scale& x,
               const Ticks* y_ticks, const Scale& y) {
  set_colour(cr, kGrid);
  cairo_set_line_width(cr, 1);
  if (x_ticks) {
    for (double v : x_ticks->at) {
      double px = std::round(x(v)) + 0.5;
      cairo_move_to(cr, px, area.y0);
      cairo_line_to(cr, px, area.y1);
    }
  }
  if (y_ticks) {
    for (double v : y_ticks->at) {
      double py = std::round(y(v)) + 0.5;
      cairo_move_to(cr, area.x0, py);
      cairo_line_to(cr, area.x1, py);
    }
  }
  cairo_stroke(cr);
}

// The step or column axis's label, centred under `area`'s tick labels.
void draw_x_label(cairo_t* cr, const Rect& area, const std::string& label) {
  use_font(cr, kTextSize);
  set_colour(cr, kText);
  draw_text(cr, fit_text(cr, printable(label), area.width()), (area.x0 + area.x1) / 2,
            area.y1 + kTickGap + kTextSize * 2 + 8, Align::Centre);
}

// The frame, tick marks and labels, and the axis labels, drawn after the data.
void draw_axes(cairo_t* cr, const Rect& area, const Ticks& x_ticks, const Scale& x,
               const Ticks& y_ticks, const Scale& y, const std::string& x_label,
               const std::string& y_label) {
  set_colour(cr, kFrame);
  cairo_set_line_width(cr, 1);
  cairo_rectangle(cr, std::round(area.x0) + 0.5, std::round(area.y0) + 0.5,
                  std::round(area.x1) - std::round(area.x0) - 1,
                  std::round(area.y1) - std::round(area.y0) - 1);
  for (double v : x_ticks.at) {
    double px = std::round(x(v)) + 0.5;
    cairo_move_to(cr, px, area.y1);
    cairo_line_to(cr, px, area.y1 + 4);
  }
  for (double v : y_ticks.at) {
    double py = std::round(y(v)) + 0.5;
    cairo_move_to(cr, area.x0 - 4, py);
    cairo_line_to(cr, area.x0, py);
  }
  cairo_stroke(cr);

  use_font(cr, kTextSize);
  set_colour(cr, kTickText);
  for (size_t i = 0; i < x_ticks.at.size(); ++i) {
    draw_text(cr, x_ticks.labels[i], x(x_ticks.at[i]), area.y1 + kTickGap + kTextSize / 2 + 2,
              Align::Centre);
  }
  for (size_t i = 0; i < y_ticks.at.size(); ++i) {
    draw_text(cr, y_ticks.labels[i], area.x0 - kTickGap, y(y_ticks.at[i]), Align::Right);
  }
  if (!x_label.empty()) draw_x_label(cr, area, x_label);
  set_colour(cr, kText);
  if (!y_label.empty()) {
    cairo_save(cr);
    cairo_translate(cr, kPad + kTextSize / 2, (area.y0 + area.y1) / 2);
    cairo_rotate(cr, -std::numbers::pi / 2);
    draw_text(cr, fit_text(cr, printable(y_label), area.height()), 0, 0, Align::Centre);
    cairo_restore(cr);
  }
}

// ---------------------------------------------------------------------------------------------
// The picture

struct SurfaceDeleter {
  void operator()(cairo_surface_t* surface) const { cairo_surface_destroy(surface); }
};
struct ContextDeleter {
  void operator()(cairo_t* cr) const { cairo_destroy(cr); }
};
using SurfacePtr = std::unique_ptr<cairo_surface_t, SurfaceDeleter>;
using ContextPtr = std::unique_ptr<cairo_t, ContextDeleter>;

Error cairo_error(cairo_status_t status) {
  return Error(fmt::format("cairo: {}", cairo_status_to_string(status)));
}

// Where the panels go: `columns` panels per row, each panel_width × panel_height pixels.
struct Grid {
  int columns = 1, width = 0, height = 0;
  double panel_width = 0, panel_height = 0;
};

// The grid for `panels` panels, or why there is none: no panels, a panel too small to hold its
// axes, or a picture over the size limit.
Expected<Grid> grid_for(size_t panels, const Options& options) {
  if (panels == 0) return Error("nothing to plot: no panels");
  if (options.panel_width < kMinPanelWidth || options.panel_height < kMinPanelHeight ||
      options.panel_width > kMaxSide || options.panel_height > kMaxSide) {
    return Error(fmt::format("panel size {}x{} is out of range ({}x{} to {}x{} pixels)",
                             options.panel_width, options.panel_height, kMinPanelWidth,
                             kMinPanelHeight, kMaxSide, kMaxSide));
  }
  if (options.columns < 0) {
    return Error(fmt::format("columns must be 0 or more, got {}", options.columns));
  }
  uint64_t columns = std::min<uint64_t>(options.columns > 0 ? options.columns : 2, panels);
  uint64_t rows = (panels + columns - 1) / columns;
  uint64_t width = columns * options.panel_width, height = rows * options.panel_height;
  if (width > kMaxSide || height > kMaxSide || width * height > kMaxPixels) {
    return Error(fmt::format(
        "{} panels in {} columns would make a {}x{} image, over the limit of {} megapixels "
        "and {} pixels a side",
        panels, columns, width, height, kMaxPixels / 1'000'000, kMaxSide));
  }
  return Grid{static_cast<int>(columns), static_cast<int>(width), static_cast<int>(height),
              static_cast<double>(options.panel_width), static_cast<double>(options.panel_height)};
}

// The white surface holding the grid of panels.
class Canvas {
 public:
  static Expected<Canvas> create(const Grid& grid) {
    SurfacePtr surface(cairo_image_surface_create(CAIRO_FORMAT_RGB24, grid.width, grid.height));
    if (auto status = cairo_surface_status(surface.get())) return cairo_error(status);
    ContextPtr cr(cairo_create(surface.get()));
    if (auto status = cairo_status(cr.get())) return cairo_error(status);
    set_colour(cr.get(), kBackground);
    cairo_paint(cr.get());
    cairo_set_antialias(cr.get(), CAIRO_ANTIALIAS_GRAY);
    cairo_set_line_join(cr.get(), CAIRO_LINE_JOIN_ROUND);
    cairo_set_line_cap(cr.get(), CAIRO_LINE_CAP_ROUND);
    return Canvas(std::move(surface), std::move(cr), grid);
  }

  double panel_width() const { return grid_.panel_width; }
  double panel_height() const { return grid_.panel_height; }

  // Draws panel `index` with `draw`, in coordinates whose origin is the panel's top left corner
  // and clipped to the panel.
  void panel(size_t index, const std::function<void(cairo_t*)>& draw) {
    cairo_t* cr = cr_.get();
    cairo_save(cr);
    size_t columns = static_cast<size_t>(grid_.columns);
    cairo_translate(cr, static_cast<double>(index % columns) * grid_.panel_width,
                    static_cast<double>(index / columns) * grid_.panel_height);
    cairo_rectangle(cr, 0, 0, grid_.panel_width, grid_.panel_height);
    cairo_clip(cr);
    draw(cr);
    cairo_restore(cr);
  }

  Expected<std::string> png() {
    if (auto status = cairo_status(cr_.get())) return cairo_error(status);
    cairo_surface_flush(surface_.get());
    std::string out;
    auto status = cairo_surface_write_to_png_stream(
        surface_.get(),
        [](void* closure, const unsigned char* data, unsigned int length) {
          static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
          return CAIRO_STATUS_SUCCESS;
        },
        &out);
    if (status != CAIRO_STATUS_SUCCESS) return cairo_error(status);
    return out;
  }

 private:
  Canvas(SurfacePtr surface, ContextPtr cr, const Grid& grid)
      : surface_(std::move(surface)), cr_(std::move(cr)), grid_(grid) {}

  SurfacePtr surface_;
  ContextPtr cr_;
  Grid grid_;
};

// A grid of values (row 0 at the top) painted over `area` as sharp cells: NaN grey, the rest
// through viridis between lo and hi (±Inf at the ends).
void paint_cells(cairo_t* cr, const Rect& area, size_t rows, size_t cols,
                 const std::vector<double>& values, double lo, double hi) {
  SurfacePtr image(cairo_image_surface_create(CAIRO_FORMAT_RGB24, static_cast<int>(cols),
                                              static_cast<int>(rows)));
  if (cairo_surface_status(image.get()) != CAIRO_STATUS_SUCCESS) return;
  cairo_surface_flush(image.get());
  unsigned char* data = cairo_image_surface_get_data(image.get());
  int stride = cairo_image_surface_get_stride(image.get());
  for (size_t r = 0; r < rows; ++r) {
    for (size_t c = 0; c < cols; ++c) {
      double v = values[r * cols + c];
      Rgb colour = std::isnan(v) ? kMissing : viridis(hi > lo ? (v - lo) / (hi - lo) : 0.5);
      auto level = [](double x) { return static_cast<uint32_t>(std::lround(x * 255)); };
      uint32_t pixel = level(colour.r) << 16 | level(colour.g) << 8 | level(colour.b);
      std::memcpy(data + r * stride + c * 4, &pixel, 4);
    }
  }
  cairo_surface_mark_dirty(image.get());
  cairo_save(cr);
  cairo_translate(cr, area.x0, area.y0);
  cairo_scale(cr, area.width() / cols, area.height() / rows);
  cairo_set_source_surface(cr, image.get(), 0, 0);
  cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
  cairo_pattern_set_extend(cairo_get_source(cr), CAIRO_EXTEND_PAD);
  cairo_rectangle(cr, 0, 0, static_cast<double>(cols), static_cast<double>(rows));
  cairo_fill(cr);
  cairo_restore(cr);
}

// The width a colour bar and its labels take right of the plot area.
double colour_bar_band(cairo_t* cr, const std::string& low, const std::string& high) {
  use_font(cr, kTextSize);
  return 12 + kBarWidth + kTickGap + std::max(text_width(cr, low), text_width(cr, high)) + kPad;
}

// A vertical colour bar right of `area`: viridis from low (bottom) to high (top), both labelled.
void draw_colour_bar(cairo_t* cr, const Rect& area, const std::string& low,
                     const std::string& high) {
  Rect bar{area.x1 + 12, area.y0, area.x1 + 12 + kBarWidth, area.y1};
  cairo_pattern_t* gradient = cairo_pattern_create_linear(0, bar.y1, 0, bar.y0);
  for (size_t i = 0; i < kViridis.size(); ++i) {
    const Rgb& c = kViridis[i];
    cairo_pattern_add_color_stop_rgb(gradient, static_cast<double>(i) / (kViridis.size() - 1), c.r,
                                     c.g, c.b);
  }
  cairo_set_source(cr, gradient);
  cairo_rectangle(cr, bar.x0, bar.y0, bar.width(), bar.height());
  cairo_fill(cr);
  cairo_pattern_destroy(gradient);
  set_colour(cr, kFrame);
  cairo_set_line_width(cr, 1);
  cairo_rectangle(cr, bar.x0 + 0.5, bar.y0 + 0.5, bar.width() - 1, bar.height() - 1);
  cairo_stroke(cr);
  use_font(cr, kTextSize);
  set_colour(cr, kTickText);
  draw_text(cr, high, bar.x1 + kTickGap, bar.y0 + kTextSize / 2, Align::Left);
  draw_text(cr, low, bar.x1 + kTickGap, bar.y1 - kTextSize / 2, Align::Left);
}

// The pixel rows a panel's plot area spans below the title band and `extra_top` pixels more.
Rect plot_rows(double panel_height, double extra_top) {
  double top = kPad + kTitleBand + extra_top;
  double bottom = std::max(top + 20, panel_height - kBottomBand);
  return {0, std::round(top), 0, std::round(bottom)};
}

// ---------------------------------------------------------------------------------------------
// Line charts

bool drawable_y(double y, bool log_y) { return std::isfinite(y) && (!log_y || y > 0); }

bool drawable(const Point& p, bool log_y) { return std::isfinite(p.x) && drawable_y(p.y, log_y); }

// The colour and dash of series `index`: the palette, dashed on its second round and after.
void use_series_style(cairo_t* cr, size_t index, double alpha) {
  set_colour(cr, kSeriesColours[index % kSeriesColours.size()], alpha);
  if (index >= kSeriesColours.size()) {
    const double dash[] = {6, 3};
    cairo_set_dash(cr, dash, 2, 0);
  } else {
    cairo_set_dash(cr, nullptr, 0, 0);
  }
}

// A long series thinned to what a pixel can show: of the drawable points that fall in one pixel
// column, the first, the lowest, the highest and the last, in their order (the line they make
// covers the same pixels as the whole series, as min-max downsampling does). Breaks (undrawable
// points) are kept. A series of a million steps then costs a few thousand line segments.
std::vector<Point> thin_to_columns(std::span<const Point> points, const Scale& x, bool log_y) {
  std::vector<Point> out;
  struct Column {
    double at = 0;
    size_t first = 0, low = 0, high = 0, last = 0;
  };
  std::optional<Column> column;
  auto flush = [&] {
    if (!column) return;
    size_t picks[] = {column->first, column->low, column->high, column->last};
    std::sort(std::begin(picks), std::end(picks));
    for (size_t i = 0; i < 4; ++i)
      if (i == 0 || picks[i] != picks[i - 1]) out.push_back(points[picks[i]]);
    column.reset();
  };
  for (size_t i = 0; i < points.size(); ++i) {
    const Point& p = points[i];
    if (!drawable(p, log_y)) {
      flush();
      out.push_back(p);
      continue;
    }
    double at = std::floor(x(p.x));
    if (column && column->at != at) flush();
    if (!column) {
      column = Column{at, i, i, i, i};
      continue;
    }
    if (p.y < points[column->low].y) column->low = i;
    if (p.y > points[column->high].y) column->high = i;
    column->last = i;
  }
  flush();
  return out;
}

// One series as polylines broken at undrawable points; a point alone between breaks is a dot.
void stroke_series(cairo_t* cr, std::span<const Point> all, const Scale& x, const Scale& y,
                   bool log_y) {
  const std::vector<Point> points = thin_to_columns(all, x, log_y);
  size_t run = 0;
  Point last;
  auto end_run = [&] {
    if (run == 1) {
      cairo_new_sub_path(cr);
      cairo_arc(cr, x(last.x), y(last.y), 1.5, 0, 2 * std::numbers::pi);
    }
    run = 0;
  };
  for (const auto& p : points) {
    if (!drawable(p, log_y)) {
      end_run();
      continue;
    }
    if (run == 0) {
      cairo_move_to(cr, x(p.x), y(p.y));
    } else {
      cairo_line_to(cr, x(p.x), y(p.y));
    }
    last = p;
    ++run;
  }
  end_run();
  cairo_stroke(cr);
}

constexpr double kDotRadius = 2.5;
constexpr double kFaint = 0.25;  // the raw line under a smoothed one or under dots

// A dot at each drawable point, one per pixel of `area` it lands on: a million points cost no
// more than the area's pixels.
void fill_dots(cairo_t* cr, std::span<const Point> points, const Rect& area, const Scale& x,
               const Scale& y, bool log_y) {
  auto width = static_cast<size_t>(std::max(area.width(), 0.0)) + 1;
  auto height = static_cast<size_t>(std::max(area.height(), 0.0)) + 1;
  std::vector<bool> taken(width * height, false);
  for (const auto& p : points) {
    if (!drawable(p, log_y)) continue;
    double px = x(p.x), py = y(p.y);
    double column = std::floor(px - area.x0), row = std::floor(py - area.y0);
    if (column >= 0 && row >= 0 && column < static_cast<double>(width) &&
        row < static_cast<double>(height)) {
      size_t i = static_cast<size_t>(row) * width + static_cast<size_t>(column);
      if (taken[i]) continue;
      taken[i] = true;
    }
    cairo_new_sub_path(cr);
    cairo_arc(cr, px, py, kDotRadius, 0, 2 * std::numbers::pi);
  }
  cairo_fill(cr);
}

const LineColours& reference_colours(ReferenceLine::Style style) {
  return kReferenceColours[std::min<size_t>(style, kReferenceColours.size() - 1)];
}

// Where a marker's line is centred: at the first or the last step it would be under the frame.
double marker_column(const Marker& marker, const Rect& area, const Scale& x) {
  return std::clamp(std::round(x(marker.x)), area.x0 + 2, std::max(area.x0 + 2, area.x1 - 2));
}

// The panel's reference lines (dashed) and markers (solid), crisp 2 pixels wide, over the grid
// and under the data. The axes reach every one that can be drawn.
void draw_guides(cairo_t* cr, const Panel& panel, const Rect& area, const Scale& x, const Scale& y,
                 bool log_y) {
  cairo_save(cr);
  cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
  cairo_set_line_width(cr, 2);
  const double dash[] = {7, 4};
  cairo_set_dash(cr, dash, 2, 0);
  for (const auto& line : panel.reference_lines) {
    if (!drawable_y(line.y, log_y)) continue;
    double py = std::round(y(line.y));
    set_colour(cr, reference_colours(line.style).line);
    cairo_move_to(cr, area.x0, py);
    cairo_line_to(cr, area.x1, py);
    cairo_stroke(cr);
  }
  cairo_set_dash(cr, nullptr, 0, 0);
  set_colour(cr, kMarker);
  for (const auto& marker : panel.markers) {
    if (!std::isfinite(marker.x)) continue;
    double px = marker_column(marker, area, x);
    cairo_move_to(cr, px, area.y0);
    cairo_line_to(cr, px, area.y1);
  }
  cairo_stroke(cr);
  cairo_restore(cr);
}

// Small text on a translucent white box, so that it reads over the data.
void draw_small_label(cairo_t* cr, const std::string& text, double x, double y, Align align,
                      Rgb colour) {
  double width = text_width(cr, text);
  double left = align == Align::Left ? x : x - width;
  set_colour(cr, kBackground, 0.8);
  cairo_rectangle(cr, left - 2, y - kSmallSize / 2 - 2, width + 4, kSmallSize + 4);
  cairo_fill(cr);
  set_colour(cr, colour);
  draw_text(cr, text, x, y, align);
}

// The guides' labels, over the data: a reference line's at its right end above it (below it when
// the line runs along the top), a marker's at the top right of it (left near the right edge).
void draw_guide_labels(cairo_t* cr, const Panel& panel, const Rect& area, const Scale& x,
                       const Scale& y, bool log_y) {
  use_font(cr, kSmallSize);
  const double half = kSmallSize / 2 + 4;  // from a line to the middle of its label
  for (const auto& line : panel.reference_lines) {
    if (!drawable_y(line.y, log_y) || line.label.empty()) continue;
    double py = std::round(y(line.y));
    double mid = py - 1 - half < area.y0 + half ? py + half : py - 1 - half;
    draw_small_label(cr, fit_text(cr, printable(line.label), area.width() / 2), area.x1 - 4, mid,
                     Align::Right, reference_colours(line.style).label);
  }
  for (const auto& marker : panel.markers) {
    if (!std::isfinite(marker.x) || marker.label.empty()) continue;
    double px = marker_column(marker, area, x);
    std::string text = fit_text(cr, printable(marker.label), area.width() / 2);
    bool right = px + 1 + 4 + text_width(cr, text) <= area.x1 - 2;
    draw_small_label(cr, text, right ? px + 1 + 4 : px - 1 - 4, area.y0 + half,
                     right ? Align::Left : Align::Right, kMarker);
  }
}

struct LegendItem {
  size_t series;  // index, or SIZE_MAX for the "+N more" note
  std::string text;
  double x, y;
};

constexpr double kSwatch = 18;  // the sample line before a legend label

// Legend entries flowing in rows of `width` pixels from (x0, top); at most kMaxLegendRows rows,
// the last ending with "+N more" when the series do not all fit.
std::vector<LegendItem> layout_legend(cairo_t* cr, std::span<const std::string> labels, double x0,
                                      double width, double top) {
  use_font(cr, kTextSize);
  std::vector<LegendItem> items;
  double x = x0;
  int row = 0;
  for (size_t i = 0; i < labels.size(); ++i) {
    std::string text = fit_text(cr, printable(labels[i]), width * 0.45);
    double w = kSwatch + 4 + text_width(cr, text);
    if (x > x0 && x + w > x0 + width) {
      x = x0;
      ++row;
    }
    if (row == kMaxLegendRows) {
      // The note goes at the end of the last row, in place of entries if need be.
      double last_row = top + (kMaxLegendRows - 1) * kLegendRow;
      size_t hidden = labels.size() - i;
      while (true) {
        std::string more = fmt::format("+{} more", hidden);
        bool on_row = !items.empty() && items.back().y == last_row;
        double right =
            on_row ? items.back().x + kSwatch + 4 + text_width(cr, items.back().text) + 14 : x0;
        if (!on_row || right + text_width(cr, more) <= x0 + width) {
          items.push_back({SIZE_MAX, more, right, last_row});
          return items;
        }
        items.pop_back();
        ++hidden;
      }
    }
    items.push_back({i, text, x, top + row * kLegendRow});
    x += w + 14;
  }
  return items;
}

// The legend of a panel's series, in its place under the panel's title band.
template <class SeriesList>
std::vector<LegendItem> panel_legend(cairo_t* cr, const SeriesList& series, double panel_width) {
  std::vector<std::string> labels;
  for (const auto& one : series) labels.push_back(one.label);
  return layout_legend(cr, labels, kPad + 20, panel_width - 2 * kPad - 20, kPad + kTitleBand);
}

// `swatch_height`: 2 pixels, a line's sample; more, a bar's colour.
void draw_legend(cairo_t* cr, const std::vector<LegendItem>& items, double swatch_height = 2) {
  use_font(cr, kTextSize);
  cairo_set_line_width(cr, swatch_height);
  for (const auto& item : items) {
    double mid = item.y + kLegendRow / 2;
    double text_x = item.x;
    if (item.series != SIZE_MAX) {
      use_series_style(cr, item.series, 1);
      cairo_move_to(cr, item.x + 1, mid);
      cairo_line_to(cr, item.x + kSwatch - 1, mid);
      cairo_stroke(cr);
      text_x += kSwatch + 4;
    }
    cairo_set_dash(cr, nullptr, 0, 0);
    set_colour(cr, kText);
    draw_text(cr, item.text, text_x, mid, Align::Left);
  }
}

double legend_height(const std::vector<LegendItem>& items) {
  return items.empty() ? 0 : (items.back().y - items.front().y) + kLegendRow + 4;
}

void draw_line_panel(cairo_t* cr, const Panel& panel, const Options& options, double panel_width,
                     double panel_height) {
  draw_title(cr, panel.title, panel_width);
  const bool log_y = panel.log_y.value_or(options.log_y);
  const bool smooth = options.smooth > 0;
  std::vector<std::vector<Point>> smoothed;
  double x_lo = std::numeric_limits<double>::infinity(), x_hi = -x_lo, y_lo = x_lo, y_hi = -x_lo;
  auto extend = [&](std::span<const Point> points) {
    for (const auto& p : points) {
      if (!drawable(p, log_y)) continue;
      x_lo = std::min(x_lo, p.x);
      x_hi = std::max(x_hi, p.x);
      y_lo = std::min(y_lo, p.y);
      y_hi = std::max(y_hi, p.y);
    }
  };
  for (const auto& series : panel.series) {
    extend(series.points);
    if (smooth) {
      smoothed.push_back(smooth_points(series.points, options.smooth));
      extend(smoothed.back());
    }
  }
  const bool has_data = x_lo <= x_hi;
  for (const auto& line : panel.reference_lines) {
    if (!drawable_y(line.y, log_y)) continue;
    y_lo = std::min(y_lo, line.y);
    y_hi = std::max(y_hi, line.y);
  }
  auto extend_x = [&](double at) {
    if (!std::isfinite(at)) return;
    x_lo = std::min(x_lo, at);
    x_hi = std::max(x_hi, at);
  };
  for (const auto& marker : panel.markers) extend_x(marker.x);
  if (!has_data) {
    // The steps of the values that cannot be drawn still give the step axis, so that the empty
    // frame lines up with its neighbours (dump-compare's cosine over its all-zero errors).
    for (const auto& series : panel.series) {
      for (const auto& p : series.points) extend_x(p.x);
    }
  }

  bool show_legend =
      panel.series.size() > 1 || (panel.series.size() == 1 && !panel.series[0].label.empty() &&
                                  panel.series[0].label != panel.title);
  std::vector<LegendItem> legend;
  if (show_legend) {
    legend = panel_legend(cr, panel.series, panel_width);
  }
  Rect area = plot_rows(panel_height, legend_height(legend));
  const std::string note = log_y ? "no positive finite values" : "no finite values";
  if (!(x_lo <= x_hi)) {
    area.x0 = kPad;
    area.x1 = panel_width - kPad;
    draw_axes(cr, area, {}, Scale{}, {}, Scale{}, "", "");
    draw_note(cr, area, note);
    draw_legend(cr, legend);
    return;
  }

  // Without a value or a reference line the value axis has no ticks.
  Scale y{.log = log_y, .from = area.y1, .to = area.y0};
  Ticks y_ticks;
  use_font(cr, kTextSize);
  if (y_lo <= y_hi && log_y) {
    auto [lo, hi] = widen(std::log10(y_lo), std::log10(y_hi), 0.05);
    y.lo = lo;
    y.hi = hi;
    y_ticks = log_ticks(cr, lo, hi, area.height(), false);
  } else if (y_lo <= y_hi) {
    std::tie(y.lo, y.hi) = widen(y_lo, y_hi, 0.05);
    y_ticks = linear_ticks(cr, y.lo, y.hi, area.height(), false, false);
  }
  area.x0 = std::round(kPad + widest_label(cr, y_ticks) + kTickGap);
  area.x1 = std::round(panel_width - kPad - 6);
  auto [xl, xh] = x_lo < x_hi ? std::pair{x_lo, x_hi} : std::pair{x_lo - 1, x_hi + 1};
  Scale x{.lo = xl, .hi = xh, .from = area.x0, .to = area.x1};
  Ticks x_ticks = linear_ticks(cr, xl, xh, area.width(), true, true);

  draw_grid(cr, area, &x_ticks, x, &y_ticks, y);
  cairo_save(cr);
  cairo_rectangle(cr, area.x0, area.y0, area.width(), area.height());
  cairo_clip(cr);
  draw_guides(cr, panel, area, x, y, log_y);
  cairo_set_line_width(cr, 1.5);
  for (size_t i = 0; i < panel.series.size(); ++i) {
    const Series& series = panel.series[i];
    use_series_style(cr, i, smooth || series.dots ? kFaint : 1);
    stroke_series(cr, series.points, x, y, log_y);
    if (series.dots) {
      use_series_style(cr, i, 1);
      fill_dots(cr, series.points, area, x, y, log_y);
    }
  }
  if (smooth) {
    cairo_set_line_width(cr, 2);
    for (size_t i = 0; i < panel.series.size(); ++i) {
      use_series_style(cr, i, 1);
      stroke_series(cr, smoothed[i], x, y, log_y);
    }
  }
  draw_guide_labels(cr, panel, area, x, y, log_y);
  if (!has_data) draw_note(cr, area, note);
  cairo_restore(cr);
  cairo_set_dash(cr, nullptr, 0, 0);
  draw_axes(cr, area, x_ticks, x, y_ticks, y, options.x_label, "");
  draw_legend(cr, legend);
}

// ---------------------------------------------------------------------------------------------
// Histograms

// A bin as drawn: [left, left + width).
struct Bucket {
  double left = 0, width = 0, count = 0;
};

// The bins worth drawing: finite edges and counts, non-negative counts, not reversed.
std::vector<Bucket> usable_buckets(const std::vector<Bin>& bins) {
  std::vector<Bucket> out;
  for (const auto& b : bins) {
    double left = b.lo, right = b.hi;
    if (!std::isfinite(left) || !std::isfinite(right) || !std::isfinite(b.count) || b.count < 0 ||
        right < left) {
      continue;
    }
    out.push_back({left, right - left, b.count});
  }
  return out;
}

struct PreparedHistograms {
  std::vector<int64_t> steps;
  std::vector<std::vector<Bucket>> buckets;                       // per step
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;  // where counts are

  bool empty() const { return !(lo <= hi); }
};

PreparedHistograms prepare(const HistogramSeries& series) {
  PreparedHistograms out;
  for (const auto& [step, bins] : series.steps) {
    out.steps.push_back(step);
    out.buckets.push_back(usable_buckets(bins));
    for (const auto& b : out.buckets.back()) {
      if (b.count <= 0) continue;
      out.lo = std::min(out.lo, b.left);
      out.hi = std::max(out.hi, b.left + b.width);
    }
  }
  return out;
}

std::string step_label(double step) { return fmt::format("{}", static_cast<int64_t>(step)); }

void draw_ridgeline_panel(cairo_t* cr, const PreparedHistograms& data, const Options& options,
                          double panel_width, double panel_height) {
  Rect area = plot_rows(panel_height, 0);
  // Evenly spaced steps, the first and the last included.
  size_t total = data.steps.size();
  size_t shown = std::min(total, kMaxRidgelines);
  std::vector<size_t> picks;
  for (size_t j = 0; j < shown; ++j) {
    picks.push_back(shown == 1 ? 0 : (j * (total - 1) + (shown - 1) / 2) / (shown - 1));
  }
  double peak_count = 0;
  for (size_t k : picks) {
    for (const auto& b : data.buckets[k]) peak_count = std::max(peak_count, b.count);
  }
  if (!(peak_count > 0)) peak_count = 1;

  use_font(cr, kTextSize);
  double widest = 0;
  for (size_t k : picks) widest = std::max(widest, text_width(cr, step_label(data.steps[k])));
  area.x0 = std::round(kPad + kTextSize + 8 + widest + kTickGap);
  area.x1 = std::round(panel_width - kPad - 6);
  auto [lo, hi] = widen(data.lo, data.hi, 0.02);
  Scale x{.lo = lo, .hi = hi, .from = area.x0, .to = area.x1};
  Ticks x_ticks = linear_ticks(cr, lo, hi, area.width(), true, false);

  // Curve j rests on a baseline `spacing` above curve j-1's; the tallest bucket rises `peak`.
  double peak = shown > 1 ? area.height() * 0.35 : area.height() * 0.9;
  double spacing = shown > 1 ? (area.height() - peak - 4) / (shown - 1) : 0;
  auto baseline = [&](size_t j) { return area.y1 - 2 - j * spacing; };
  // Label every `every`-th curve, far enough apart to be read.
  double every = 1;
  while (every * spacing < kTextSize + 6 && every < shown) every = next_nice_step(every);
  Ticks y_ticks;
  for (size_t j = 0; j < shown; j += static_cast<size_t>(every)) {
    y_ticks.at.push_back(static_cast<double>(j));
    y_ticks.labels.push_back(step_label(data.steps[picks[j]]));
  }
  Scale y{.lo = 0, .hi = 1, .from = baseline(0), .to = baseline(1)};

  draw_grid(cr, area, &x_ticks, x, nullptr, y);
  cairo_save(cr);
  cairo_rectangle(cr, area.x0, area.y0, area.width(), area.height());
  cairo_clip(cr);
  cairo_set_line_width(cr, 1);
  for (size_t j = 0; j < shown; ++j) {
    std::vector<std::pair<double, double>> curve;
    for (const auto& b : data.buckets[picks[j]]) {
      double centre = b.left + b.width / 2;
      if (centre >= lo && centre <= hi) {
        curve.emplace_back(x(centre), baseline(j) - b.count / peak_count * peak);
      }
    }
    if (curve.empty()) continue;
    Rgb colour = viridis(shown > 1 ? 0.05 + 0.85 * j / (shown - 1) : 0.5);
    cairo_move_to(cr, curve.front().first, baseline(j));
    for (auto [px, py] : curve) cairo_line_to(cr, px, py);
    cairo_line_to(cr, curve.back().first, baseline(j));
    cairo_close_path(cr);
    set_colour(cr, colour, 0.45);
    cairo_fill_preserve(cr);
    set_colour(cr, {colour.r * 0.6, colour.g * 0.6, colour.b * 0.6});
    cairo_stroke(cr);
  }
  cairo_restore(cr);
  draw_axes(cr, area, x_ticks, x, y_ticks, y, "value", options.x_label);
}

void draw_heat_panel(cairo_t* cr, const PreparedHistograms& data, const Options& options,
                     double panel_width, double panel_height) {
  Rect area = plot_rows(panel_height, 0);
  auto [lo, hi] = widen(data.lo, data.hi, 0);
  use_font(cr, kTextSize);
  Ticks y_ticks = linear_ticks(cr, lo, hi, area.height(), false, false);
  area.x0 = std::round(kPad + kTextSize + 8 + widest_label(cr, y_ticks) + kTickGap);
  // The colour bar's labels are known only once the counts are binned, and the binning needs the
  // width: lay out for a wide label ("888.8k") and widen the band if the real one is wider still.
  double band = colour_bar_band(cr, "0", "888.8k");
  area.x1 = std::round(std::max(area.x0 + 20, panel_width - band));

  // One column per step (neighbours averaged when there are more steps than pixels) and `rows`
  // value bins, each bucket's count spread over the bins it overlaps as if uniform within it.
  size_t total = data.steps.size();
  auto rows = static_cast<size_t>(std::clamp<double>(area.height(), 1, kHeatRows));
  size_t cols = std::min(total, static_cast<size_t>(area.width()));
  Scale bins{.lo = lo, .hi = hi, .from = 0, .to = static_cast<double>(rows)};
  auto bin_of = [&](double v) {
    double f = bins(v);
    if (!(f >= 0)) return size_t{0};
    return f < static_cast<double>(rows) ? static_cast<size_t>(f) : rows - 1;
  };
  std::vector<double> density(rows * cols, 0);
  std::vector<size_t> per_column(cols, 0);
  std::vector<bool> has_data(cols, false);
  for (size_t k = 0; k < total; ++k) {
    size_t c = k * cols / total;
    ++per_column[c];
    for (const auto& b : data.buckets[k]) {
      if (b.count <= 0) continue;
      has_data[c] = true;
      double right = b.left + b.width;
      double from = bins(b.left), to = bins(right);
      for (size_t r = bin_of(b.left), last = bin_of(right); r <= last; ++r) {
        double share =
            to > from ? std::max(0.0, std::min<double>(to, r + 1) - std::max<double>(from, r)) /
                            (to - from)
                      : 1;
        density[(rows - 1 - r) * cols + c] += b.count * share;
      }
    }
  }
  double max_density = 0;
  for (size_t i = 0; i < density.size(); ++i) {
    size_t c = i % cols;
    density[i] = has_data[c] ? density[i] / per_column[c] : std::nan("");
    if (density[i] > max_density) max_density = density[i];
  }

  std::string low = "0", high = tick_label(max_density, max_density / 100, max_density);
  area.x1 = std::round(
      std::max(area.x0 + 20, panel_width - std::max(band, colour_bar_band(cr, low, high))));
  Scale y{.lo = lo, .hi = hi, .from = area.y1, .to = area.y0};
  Scale x{.lo = -0.5, .hi = cols - 0.5, .from = area.x0, .to = area.x1};
  Ticks x_ticks =
      linear_ticks(cr, 0, static_cast<double>(cols - 1), area.width(), true, true,
                   [&](double c, double, double) {
                     return step_label(data.steps[static_cast<size_t>(c) * total / cols]);
                   });
  paint_cells(cr, area, rows, cols, density, 0, max_density);
  draw_axes(cr, area, x_ticks, x, y_ticks, y, options.x_label, "value");
  draw_colour_bar(cr, area, low, high);
}

// ---------------------------------------------------------------------------------------------
// Heatmaps

// The matrix reduced to rows × cols cells (no more than it has), a large tensor's blocks to a
// pixel each. Mean: each cell the mean of the finite values it covers (the first value when none
// is finite). MaxAbs: the largest |value| it covers, ±Inf included (NaN when all are NaN).
std::vector<double> reduce_cells(const Heatmap& map, size_t rows, size_t cols) {
  const bool max_abs = map.reduction == Heatmap::MaxAbs;
  if (!max_abs && rows == map.rows && cols == map.cols) return map.values;
  std::vector<size_t> cell_column(map.cols);  // saves a division per value
  for (uint64_t c = 0; c < map.cols; ++c) cell_column[c] = c * cols / map.cols;
  std::vector<double> sums(rows * cols, max_abs ? std::nan("") : 0), firsts(rows * cols, 0);
  std::vector<uint64_t> counts(rows * cols, 0);
  std::vector<bool> seen(rows * cols, false);
  for (uint64_t r = 0; r < map.rows; ++r) {
    size_t rr = r * rows / map.rows;
    const double* row = map.values.data() + r * map.cols;
    double* cells = sums.data() + rr * cols;
    if (max_abs) {
      for (uint64_t c = 0; c < map.cols; ++c) {
        double v = std::abs(row[c]);
        double& cell = cells[cell_column[c]];
        if (!(cell >= v) && !std::isnan(v)) cell = v;  // NaN: the first value not NaN
      }
      continue;
    }
    for (uint64_t c = 0; c < map.cols; ++c) {
      size_t i = rr * cols + cell_column[c];
      double v = row[c];
      if (!seen[i]) firsts[i] = v;
      seen[i] = true;
      if (std::isfinite(v)) {
        sums[i] += v;
        ++counts[i];
      }
    }
  }
  if (max_abs) return sums;
  for (size_t i = 0; i < sums.size(); ++i) {
    sums[i] = counts[i] ? sums[i] / counts[i] : firsts[i];
  }
  return sums;
}

void draw_heatmap_panel(cairo_t* cr, const Heatmap& map, double lo, double hi, bool any_finite,
                        double panel_width, double panel_height) {
  draw_title(cr, map.title, panel_width);
  Rect area = plot_rows(panel_height, 0);
  use_font(cr, kTextSize);
  std::string low = any_finite ? tick_label(lo, std::abs(lo) / 1000, std::abs(lo)) : "nan";
  std::string high = any_finite ? tick_label(hi, std::abs(hi) / 1000, std::abs(hi)) : "nan";
  double rows_max = static_cast<double>(map.rows) - 1;
  Ticks y_ticks = linear_ticks(cr, 0, rows_max, area.height(), false, true);
  area.x0 = std::round(kPad + kTextSize + 8 + widest_label(cr, y_ticks) + kTickGap);
  area.x1 = std::round(std::max(area.x0 + 20, panel_width - colour_bar_band(cr, low, high)));
  // A vector (one row or one column) is a strip through the middle or down the left side: cells
  // stretched over the whole area would read as a matrix. The colour bar keeps its place.
  Rect cells = area;
  if (map.rows == 1 && map.cols > 1 && area.height() > kStripSide) {
    cells.y0 = std::round((area.y0 + area.y1 - kStripSide) / 2);
    cells.y1 = cells.y0 + kStripSide;
  } else if (map.cols == 1 && map.rows > 1 && area.width() > kStripSide) {
    cells.x1 = cells.x0 + kStripSide;
  }
  double cols_max = static_cast<double>(map.cols) - 1;
  Ticks x_ticks = linear_ticks(cr, 0, cols_max, cells.width(), true, true);
  Scale x{.lo = -0.5, .hi = cols_max + 0.5, .from = cells.x0, .to = cells.x1};
  Scale y{.lo = -0.5, .hi = rows_max + 0.5, .from = cells.y0, .to = cells.y1};

  size_t rows = std::min({map.rows, static_cast<uint64_t>(cells.height()), kMaxCells});
  size_t cols = std::min({map.cols, static_cast<uint64_t>(cells.width()), kMaxCells});
  std::string x_label = "column";
  const bool max_abs = map.reduction == Heatmap::MaxAbs;
  if (rows < map.rows || cols < map.cols) {
    x_label = fmt::format("column ({}×{} shown as {}×{} block {})", map.rows, map.cols, rows, cols,
                          max_abs ? "maxima of |value|" : "means");
  } else if (max_abs) {
    x_label = "column (|value|)";
  }
  paint_cells(cr, cells, rows, cols, reduce_cells(map, rows, cols), lo, hi);
  draw_axes(cr, cells, x_ticks, x, y_ticks, y, "", "row");
  draw_x_label(cr, {area.x0, cells.y0, area.x1, cells.y1}, x_label);
  draw_colour_bar(cr, area, low, high);
}

// ---------------------------------------------------------------------------------------------
// Stacked bars

constexpr double kBarFill = 0.7;  // of a category's band; the rest is the gap between bars

bool drawable_bar(double value) { return std::isfinite(value) && value > 0; }

// A category's stack: the sum of its drawable values.
double stack_total(const BarPanel& panel, size_t category) {
  double total = 0;
  for (const auto& series : panel.series) {
    if (category < series.values.size() && drawable_bar(series.values[category]))
      total += series.values[category];
  }
  return total;
}

void draw_bar_panel(cairo_t* cr, const BarPanel& panel, double panel_width, double panel_height) {
  draw_title(cr, panel.title, panel_width);
  const size_t n = panel.categories.size();
  double peak = 0;
  for (size_t c = 0; c < n; ++c) peak = std::max(peak, stack_total(panel, c));
  bool show_legend =
      panel.series.size() > 1 || (panel.series.size() == 1 && !panel.series[0].label.empty());
  std::vector<LegendItem> legend;
  if (show_legend) {
    legend = panel_legend(cr, panel.series, panel_width);
  }
  Rect area = plot_rows(panel_height, legend_height(legend));
  if (!(peak > 0)) {
    area.x0 = kPad;
    area.x1 = panel_width - kPad;
    draw_axes(cr, area, {}, Scale{}, {}, Scale{}, "", "");
    draw_note(cr, area, "no positive finite values");
    draw_legend(cr, legend, 8);
    return;
  }

  // Category names down the left, every `every`-th when the bands are too thin for each.
  use_font(cr, kTextSize);
  const double band = area.height() / static_cast<double>(n);
  const auto every = static_cast<size_t>(std::max(1.0, std::ceil((kTextSize + 2) / band)));
  Ticks y_ticks;
  for (size_t c = 0; c < n; c += every) {
    y_ticks.at.push_back(static_cast<double>(c));
    y_ticks.labels.push_back(fit_text(cr, printable(panel.categories[c]), panel_width * 0.4));
  }
  area.x0 = std::round(kPad + widest_label(cr, y_ticks) + kTickGap);
  area.x1 = std::round(panel_width - kPad - 6);
  const double hi = peak * 1.05;
  Scale x{.lo = 0, .hi = hi, .from = area.x0, .to = area.x1};
  Scale y{.lo = -0.5, .hi = static_cast<double>(n) - 0.5, .from = area.y0, .to = area.y1};
  Ticks x_ticks = linear_ticks(cr, 0, hi, area.width(), true, false);

  draw_grid(cr, area, &x_ticks, x, nullptr, y);
  cairo_save(cr);
  cairo_rectangle(cr, area.x0, area.y0, area.width(), area.height());
  cairo_clip(cr);
  // Bars on whole pixel rows, at least one: crisp however many categories share the height.
  const double thickness = band * kBarFill;
  for (size_t c = 0; c < n; ++c) {
    const double centre = y(static_cast<double>(c));
    const double top = std::round(centre - thickness / 2);
    const double rows = std::max(1.0, std::round(centre + thickness / 2) - top);
    double base = 0;
    for (size_t i = 0; i < panel.series.size(); ++i) {
      const auto& values = panel.series[i].values;
      if (c >= values.size() || !drawable_bar(values[c])) continue;
      const double from = x(base), to = x(base + values[c]);
      base += values[c];
      set_colour(cr, kSeriesColours[i % kSeriesColours.size()]);
      cairo_rectangle(cr, from, top, to - from, rows);
      cairo_fill(cr);
    }
  }
  cairo_restore(cr);
  draw_axes(cr, area, x_ticks, x, y_ticks, y, panel.value_label, "");
  draw_legend(cr, legend, 8);
}

}  // namespace

std::vector<Point> smooth_points(std::span<const Point> points, double weight) {
  std::vector<Point> out(points.begin(), points.end());
  if (!(weight > 0 && weight < 1)) return out;
  // TensorBoard leaves a constant series alone, so rounding does not make it wobble.
  bool constant = std::all_of(points.begin(), points.end(),
                              [&](const Point& p) { return p.y == points.front().y; });
  if (constant) return out;
  double last = 0;
  double accumulated = 0;
  for (auto& p : out) {
    if (!std::isfinite(p.y)) continue;  // kept as is: the line breaks there
    last = last * weight + (1 - weight) * p.y;
    ++accumulated;
    p.y = last / (1 - std::pow(weight, accumulated));
  }
  return out;
}

Expected<std::string> lines(std::span<const Panel> panels, const Options& options) {
  if (!(options.smooth >= 0 && options.smooth < 1)) {
    return Error(fmt::format("smoothing weight must be in [0, 1), got {}", options.smooth));
  }
  bool any = false, any_log = false, all_log = true;
  for (const auto& panel : panels) {
    bool log_y = panel.log_y.value_or(options.log_y);
    any_log = any_log || log_y;
    all_log = all_log && log_y;
    for (const auto& series : panel.series) {
      any = any || std::any_of(series.points.begin(), series.points.end(),
                               [&](const Point& p) { return drawable(p, log_y); });
    }
  }
  MSDT_TRY(Grid grid, grid_for(panels.size(), options));
  if (!any) {
    return Error(all_log   ? "nothing to plot: no positive finite values for a log scale"
                 : any_log ? "nothing to plot: no finite values (positive on a log scale)"
                           : "nothing to plot: no finite values");
  }
  MSDT_TRY(Canvas canvas, Canvas::create(grid));
  for (size_t i = 0; i < panels.size(); ++i) {
    canvas.panel(i, [&](cairo_t* cr) {
      draw_line_panel(cr, panels[i], options, canvas.panel_width(), canvas.panel_height());
    });
  }
  return canvas.png();
}

Expected<std::string> histograms(std::span<const HistogramSeries> panels, HistogramStyle style,
                                 const Options& options) {
  std::vector<PreparedHistograms> prepared;
  for (const auto& panel : panels) prepared.push_back(prepare(panel));
  MSDT_TRY(Grid grid, grid_for(panels.size(), options));
  if (std::all_of(prepared.begin(), prepared.end(), [](const auto& p) { return p.empty(); })) {
    return Error("nothing to plot: no histogram has a bucket with a positive finite count");
  }
  MSDT_TRY(Canvas canvas, Canvas::create(grid));
  for (size_t i = 0; i < panels.size(); ++i) {
    canvas.panel(i, [&](cairo_t* cr) {
      draw_title(cr, panels[i].title, canvas.panel_width());
      if (prepared[i].empty()) {
        Rect area = plot_rows(canvas.panel_height(), 0);
        area.x0 = kPad;
        area.x1 = canvas.panel_width() - kPad;
        draw_note(cr, area, "no counts");
      } else if (style == HistogramStyle::Ridgeline) {
        draw_ridgeline_panel(cr, prepared[i], options, canvas.panel_width(), canvas.panel_height());
      } else {
        draw_heat_panel(cr, prepared[i], options, canvas.panel_width(), canvas.panel_height());
      }
    });
  }
  return canvas.png();
}

Expected<std::string> heatmaps(std::span<const Heatmap> panels, const Options& options) {
  std::vector<std::pair<double, double>> ranges;
  bool any = false;
  for (const auto& map : panels) {
    if (map.rows == 0 || map.cols == 0) {
      return Error(fmt::format("heatmap {} has no cells ({}x{})", quote_for_message(map.title),
                               map.rows, map.cols));
    }
    if (map.rows > std::numeric_limits<uint64_t>::max() / map.cols ||
        map.rows * map.cols != map.values.size()) {
      return Error(fmt::format("heatmap {} has {} values for {}x{} cells",
                               quote_for_message(map.title), map.values.size(), map.rows,
                               map.cols));
    }
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    const bool max_abs = map.reduction == Heatmap::MaxAbs;
    for (double value : map.values) {
      double v = max_abs ? std::abs(value) : value;
      if (!std::isfinite(v)) continue;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    any = any || lo <= hi;
    ranges.emplace_back(lo, hi);
  }
  MSDT_TRY(Grid grid, grid_for(panels.size(), options));
  if (!any) return Error("nothing to plot: no heatmap has a finite value");
  MSDT_TRY(Canvas canvas, Canvas::create(grid));
  for (size_t i = 0; i < panels.size(); ++i) {
    canvas.panel(i, [&](cairo_t* cr) {
      auto [lo, hi] = ranges[i];
      draw_heatmap_panel(cr, panels[i], lo, hi, lo <= hi, canvas.panel_width(),
                         canvas.panel_height());
    });
  }
  return canvas.png();
}

Expected<std::string> stacked_bars(std::span<const BarPanel> panels, const Options& options) {
  bool any = false;
  for (const auto& panel : panels) {
    for (const auto& series : panel.series) {
      if (series.values.size() > panel.categories.size()) {
        return Error(fmt::format("bar chart {}: series {} has {} values for {} categories",
                                 quote_for_message(panel.title), quote_for_message(series.label),
                                 series.values.size(), panel.categories.size()));
      }
      any = any || std::any_of(series.values.begin(), series.values.end(), drawable_bar);
    }
  }
  MSDT_TRY(Grid grid, grid_for(panels.size(), options));
  if (!any) return Error("nothing to plot: no bar has a positive finite value");
  MSDT_TRY(Canvas canvas, Canvas::create(grid));
  for (size_t i = 0; i < panels.size(); ++i) {
    canvas.panel(i, [&](cairo_t* cr) {
      draw_bar_panel(cr, panels[i], canvas.panel_width(), canvas.panel_height());
    });
  }
  return canvas.png();
}

}  // namespace msdt::plot
