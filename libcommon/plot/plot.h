// Charts of plain data, drawn with cairo (antialiased lines, real text) and returned as PNG bytes:
// line charts of (x, y) series (with thresholds and marked events), histograms over steps,
// matrices as heatmaps, stacked bars. The chart kinds know nothing of where the numbers come
// from: summary-cat (scalars, histograms, tensors) and dump-compare (the divergence plot, the
// |my - golden| map) turn their values into these types next to their own code.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "io/error.h"

namespace msdt::plot {

struct Point {
  double x = 0;  // the step
  double y = 0;  // the value (NaN and ±Inf are not drawn: the line breaks there)
};

// One line: a tag's values, or one run's values of a tag.
struct Series {
  std::string label;          // the legend entry (a run, a tag, or "run: tag")
  std::vector<Point> points;  // in step order
  bool dots = false;  // a small circle at each point over a faint line: for points that are items
                      // (tensors in execution order) more than samples of a curve
};

// A horizontal line across a panel at a value, such as a threshold: dashed, its label small at
// the right end. The value axis always reaches it (unless it is <= 0 on a log axis).
struct ReferenceLine {
  enum Style : uint8_t { Warning, Error, Neutral };  // amber, red, grey

  double y = 0;
  std::string label;
  Style style = Neutral;
};

// A vertical line at a step, such as the first divergence: solid and dark, its label at the top.
// The step axis always reaches it.
struct Marker {
  double x = 0;
  std::string label;
};

// One chart: its title and the lines overlaid in it, each in its own colour.
struct Panel {
  std::string title;
  std::vector<Series> series;
  std::vector<ReferenceLine> reference_lines = {};
  std::vector<Marker> markers = {};
  std::optional<bool> log_y = {};  // this panel's value axis; unset: Options::log_y
};

struct Options {
  int panel_width = 640, panel_height = 400;  // pixels of one panel; panels are laid out in a grid
  int columns = 0;                            // panels per row; 0: up to 2
  double smooth = 0;   // TensorBoard's exponential smoothing weight in [0, 1): the smoothed line
                       // drawn solid over the raw one drawn faint; 0 draws the raw line only
  bool log_y = false;  // logarithmic value axes (values <= 0 are not drawn), unless a panel says
                       // otherwise
  std::string x_label = "step";
};

// An axis label in compact notation: "0.25", "12k", "1.5M", "1e-05". `step` is the distance
// between neighbouring ticks (how many digits matter) and `magnitude` the largest |value| on the
// axis (which notation its labels share): k/M/G/T from 10^4, an exponent below 10^-3 or from 10^15.
std::string tick_label(double value, double step, double magnitude);

// TensorBoard's smoothing: a debiased exponential moving average of the finite values, in order.
std::vector<Point> smooth_points(std::span<const Point> points, double weight);

// Line charts, one panel per Panel, as a PNG image. An error when no panel has a value to
// draw; a panel without one is an empty frame with a note.
Expected<std::string> lines(std::span<const Panel> panels, const Options& options);

// One bin of a histogram: `count` over [lo, hi). Bins with a non-finite edge or count, a negative
// count, or hi < lo are not drawn.
struct Bin {
  double lo = 0, hi = 0, count = 0;
};

// One histogram per step, in step order.
struct HistogramStep {
  int64_t step = 0;
  std::vector<Bin> bins;
};

struct HistogramSeries {
  std::string title;
  std::vector<HistogramStep> steps;
};

enum class HistogramStyle : uint8_t {
  Ridgeline,  // one curve per step, offset upwards as steps go on (TensorBoard's "offset" view)
  Heat,       // step on x, value on y, count as colour
};

Expected<std::string> histograms(std::span<const HistogramSeries> panels, HistogramStyle style,
                                 const Options& options);

// A rank-2 tensor (rows × cols, row-major values) as a heatmap with a colour bar. One row (or one
// column) is drawn as a strip. A tensor larger than the plot area, or than 1024 a side, is drawn
// in blocks, each cell one block's reduction, and the axis label says so.
struct Heatmap {
  enum Reduction : uint8_t {
    Mean,    // the mean of the block's finite values
    MaxAbs,  // the largest |value| of the block (every cell is |value|): an error map's spikes
             // stay visible
  };

  std::string title;
  uint64_t rows = 0, cols = 0;
  std::vector<double> values;
  Reduction reduction = Mean;
};

Expected<std::string> heatmaps(std::span<const Heatmap> panels, const Options& options);

// Bars, one panel per BarPanel: a horizontal bar per category (top to bottom, names on the left,
// where long names such as operators' fit), each the stack of its series' values in series order
// (the first at the left), each series in its own colour with a legend entry. One series is a
// plain bar chart (the most expensive operators), several a stacked one (each rank's time split by
// kind). The value axis starts at 0; values that are not positive and finite are not drawn
// (stacks are of times, sizes, counts).
struct BarSeries {
  std::string label;           // the legend entry; a single unlabelled series has no legend
  std::vector<double> values;  // one per category, in their order; fewer: the rest are 0
};

struct BarPanel {
  std::string title;
  std::vector<std::string> categories;
  std::vector<BarSeries> series;
  std::string value_label = {};  // under the value axis ("ms", "bytes")
};

// An error when a series has more values than its panel has categories, or when no bar has a
// value to draw; a panel without one is an empty frame with a note.
Expected<std::string> stacked_bars(std::span<const BarPanel> panels, const Options& options);

}  // namespace msdt::plot
