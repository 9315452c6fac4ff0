// summary-cat's pictures: line charts of scalars, histograms over steps, rank-2 tensors as
// heatmaps. Drawn with cairo (antialiased lines, real text) and returned as PNG bytes.
#pragma once

#include <cstdint>
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
};

// One chart: its title and the lines overlaid in it, each in its own colour.
struct PlotPanel {
  std::string title;
  std::vector<PlotSeries> series;
};

struct PlotOptions {
  int panel_width = 640, panel_height = 400;  // pixels of one panel; panels are laid out in a grid
  int columns = 0;                            // panels per row; 0: up to 2
  double smooth = 0;   // TensorBoard's exponential smoothing weight in [0, 1): the smoothed line
                       // drawn solid over the raw one drawn faint; 0 draws the raw line only
  bool log_y = false;  // logarithmic value axis (values <= 0 are not drawn)
  std::string x_label = "step";
};

// An axis label in compact notation: "0.25", "12k", "1.5M", "1e-05". `step` is the distance
// between neighbouring ticks (how many digits matter) and `magnitude` the largest |value| on the
// axis (which notation its labels share): k/M/G/T from 10^4, an exponent below 10^-3 or from 10^15.
std::string tick_label(double value, double step, double magnitude);

// TensorBoard's smoothing: a debiased exponential moving average of the finite values, in order.
std::vector<PlotPoint> smooth_points(std::span<const PlotPoint> points, double weight);

// Line charts, one panel per PlotPanel, as a PNG image. An error when there is nothing to draw.
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

// A rank-2 tensor (rows × cols, row-major values) as a heatmap with a colour bar.
struct Heatmap {
  std::string title;
  uint64_t rows = 0, cols = 0;
  std::vector<double> values;
};

Expected<std::string> plot_heatmaps(std::span<const Heatmap> panels, const PlotOptions& options);

}  // namespace msdt::summary
