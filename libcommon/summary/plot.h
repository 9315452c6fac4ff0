// summary-cat's and dump-compare's pictures: line charts of scalars or per-tensor metrics (with
// thresholds and marked events), histograms over steps, rank-2 tensors as heatmaps. Drawn with
// cairo (antialiased lines, real text) and returned as PNG bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "io/error.h"
#include "summary/values.h"

namespace msdt::summary {

struct PlotPoint {
  double x = 0;  // the step
  double y = 0;  // the value (NaN and ±Inf are not drawn: the line breaks there)
};

// One line: a tag's values, or one run's values of a tag.
struct PlotSeries {
  std::string label;              // the legend entry (a run, a tag, or "run: tag")
  std::vector<PlotPoint> points;  // in step order
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
struct PlotPanel {
  std::string title;
  std::vector<PlotSeries> series;
  std::vector<ReferenceLine> reference_lines = {};
  std::vector<Marker> markers = {};
  std::optional<bool> log_y = {};  // this panel's value axis; unset: PlotOptions::log_y
};

struct PlotOptions {
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
std::vector<PlotPoint> smooth_points(std::span<const PlotPoint> points, double weight);

// Line charts, one panel per PlotPanel, as a PNG image. An error when no panel has a value to
// draw; a panel without one is an empty frame with a note.
Expected<std::string> plot_lines(std::span<const PlotPanel> panels, const PlotOptions& options);

// One tag's histograms, one per step.
struct HistogramSeries {
  std::string title;
  std::vector<std::pair<int64_t, Histogram>> steps;  // (step, histogram), in step order
};

enum class HistogramStyle : uint8_t {
  Ridgeline,  // one curve per step, offset upwards as steps go on (TensorBoard's "offset" view)
  Heat,       // step on x, value on y, count as colour
};

Expected<std::string> plot_histograms(std::span<const HistogramSeries> panels, HistogramStyle style,
                                      const PlotOptions& options);

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

Expected<std::string> plot_heatmaps(std::span<const Heatmap> panels, const PlotOptions& options);

}  // namespace msdt::summary
