// The charts of plain data (plot/plot.h): the PNGs are decoded with libpng and the
// pixels checked where the data says they must be: image sizes for grids of panels, lines at the
// right heights and breaking at NaN, raw and smoothed lines, dots, reference lines and markers in
// their colours and inside the axes, per-panel log scales, the histogram views, heatmap cells in
// the colormap's colours, large tensors in blocks and vectors as strips; TensorBoard's smoothing
// against hand-worked values; errors instead of empty pictures.
#include "plot/plot.h"

#include <gtest/gtest.h>
#include <png.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

namespace msdt::plot {
namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

struct Rgb {
  int r = 0, g = 0, b = 0;
  bool operator==(const Rgb&) const = default;
};

// The colours plot.cpp promises: matplotlib's tab10 for series, viridis's ends for colormaps.
constexpr Rgb kBlue{0x1f, 0x77, 0xb4}, kOrange{0xff, 0x7f, 0x0e}, kGreen{0x2c, 0xa0, 0x2c};
constexpr Rgb kViridisLow{0x44, 0x01, 0x54}, kViridisMid{0x21, 0x91, 0x8c},
    kViridisHigh{0xfd, 0xe7, 0x25};
constexpr Rgb kWhite{255, 255, 255};
constexpr Rgb kNanGrey{191, 191, 191};
constexpr Rgb kFrameGrey{153, 153, 153};
// Reference lines (warning, error, neutral), the warning label's darker amber, markers.
constexpr Rgb kAmber{0xf0, 0xa0, 0x00}, kRed{0xe0, 0x00, 0x00}, kGuideGrey{115, 115, 115},
    kAmberText{0xa8, 0x6a, 0x00}, kPlum{0x5c, 0x1a, 0x4a};

struct Picture {
  int width = 0, height = 0;
  std::vector<uint8_t> rgb;

  Rgb at(int x, int y) const {
    size_t i = (static_cast<size_t>(y) * width + x) * 3;
    return {rgb[i], rgb[i + 1], rgb[i + 2]};
  }
};

Picture decode(const std::string& png) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  EXPECT_NE(png_image_begin_read_from_memory(&image, png.data(), png.size()), 0) << image.message;
  image.format = PNG_FORMAT_RGB;
  Picture picture;
  picture.width = static_cast<int>(image.width);
  picture.height = static_cast<int>(image.height);
  picture.rgb.resize(PNG_IMAGE_SIZE(image));
  EXPECT_NE(png_image_finish_read(&image, nullptr, picture.rgb.data(), 0, nullptr), 0)
      << image.message;
  return picture;
}

bool near(Rgb a, Rgb b, int tolerance = 3) {
  return std::abs(a.r - b.r) <= tolerance && std::abs(a.g - b.g) <= tolerance &&
         std::abs(a.b - b.b) <= tolerance;
}

// How much of `colour` a pixel shows over the white background (1: the colour itself, 0: white),
// or -1 when the pixel is not a blend of the two (another colour, grey, text).
double tint(Rgb pixel, Rgb colour) {
  double dr = 255 - colour.r, dg = 255 - colour.g, db = 255 - colour.b;
  double pr = 255 - pixel.r, pg = 255 - pixel.g, pb = 255 - pixel.b;
  double alpha = (pr * dr + pg * dg + pb * db) / (dr * dr + dg * dg + db * db);
  double residual = std::hypot(pr - alpha * dr, pg - alpha * dg, pb - alpha * db);
  return residual <= 6 && alpha > 0.05 ? alpha : -1;
}

size_t count_near(const Picture& p, Rgb colour, int tolerance = 3) {
  size_t n = 0;
  for (int y = 0; y < p.height; ++y) {
    for (int x = 0; x < p.width; ++x) n += near(p.at(x, y), colour, tolerance);
  }
  return n;
}

// The line's centre in column x: the tint-weighted mean row of `colour`, or NaN when absent.
double line_row(const Picture& p, int x, Rgb colour, double min_tint = 0.3) {
  double weight = 0, sum = 0;
  for (int y = 0; y < p.height; ++y) {
    double a = tint(p.at(x, y), colour);
    if (a < min_tint) continue;
    weight += a;
    sum += a * y;
  }
  return weight > 0 ? sum / weight : kNan;
}

struct Centroid {
  double x = 0, y = 0;
  size_t count = 0;
};

Centroid centroid(const Picture& p, Rgb colour) {
  Centroid c;
  for (int y = 0; y < p.height; ++y) {
    for (int x = 0; x < p.width; ++x) {
      if (!near(p.at(x, y), colour)) continue;
      c.x += x;
      c.y += y;
      ++c.count;
    }
  }
  if (c.count) {
    c.x /= c.count;
    c.y /= c.count;
  }
  return c;
}

Series series(std::string label, const std::vector<double>& ys, double first_step = 0) {
  Series s{std::move(label), {}};
  for (size_t i = 0; i < ys.size(); ++i) s.points.push_back({first_step + i, ys[i]});
  return s;
}

Series constant(std::string label, double value, size_t n = 50) {
  return series(std::move(label), std::vector<double>(n, value));
}

Picture plot(const std::vector<Panel>& panels, const Options& options = {}) {
  auto png = lines(panels, options);
  EXPECT_TRUE(png) << png.error().message;
  return png ? decode(*png) : Picture{};
}

// --- tick labels -----------------------------------------------------------------------------

TEST(TickLabel, CompactNotation) {
  EXPECT_EQ(tick_label(0.25, 0.05, 1), "0.25");
  EXPECT_EQ(tick_label(0.30000000000000004, 0.1, 1), "0.3");  // 3 × 0.1 in doubles
  EXPECT_EQ(tick_label(1, 0.5, 2), "1");
  EXPECT_EQ(tick_label(-1e-17, 0.1, 1), "0");
  EXPECT_EQ(tick_label(2500, 500, 5000), "2500");  // below 10^4: plain
  EXPECT_EQ(tick_label(12000, 2000, 20000), "12k");
  EXPECT_EQ(tick_label(12500, 500, 20000), "12.5k");
  EXPECT_EQ(tick_label(500, 500, 20000), "0.5k");  // the axis's notation, not the value's
  EXPECT_EQ(tick_label(1.5e6, 5e5, 2e6), "1.5M");
  EXPECT_EQ(tick_label(3e9, 1e9, 5e9), "3G");
  EXPECT_EQ(tick_label(-2e12, 1e12, 4e12), "-2T");
  EXPECT_EQ(tick_label(1e-5, 1e-5, 5e-5), "1e-05");
  EXPECT_EQ(tick_label(2.5e-5, 5e-6, 5e-5), "2.5e-05");
  EXPECT_EQ(tick_label(1e20, 1e19, 1e20), "1e+20");
  EXPECT_EQ(tick_label(0.002, 0.001, 0.005), "0.002");
  EXPECT_EQ(tick_label(kNan, 1, 1), "nan");
}

// --- smoothing -------------------------------------------------------------------------------

TEST(SmoothPoints, DebiasedExponentialAverage) {
  std::vector<Point> in{{0, 1}, {1, 3}};
  auto out = smooth_points(in, 0.5);
  ASSERT_EQ(out.size(), 2u);
  // last = 0.5 (debias 0.5) → 1; last = 0.25 + 1.5 = 1.75 (debias 0.75) → 7/3.
  EXPECT_DOUBLE_EQ(out[0].y, 1.0);
  EXPECT_DOUBLE_EQ(out[1].y, 7.0 / 3);
  EXPECT_EQ(out[1].x, 1);
}

TEST(SmoothPoints, NonFiniteValuesPassThroughAndDoNotCount) {
  std::vector<Point> in{{0, 1}, {1, 3}, {2, kNan}, {3, 5}, {4, kInf}};
  auto out = smooth_points(in, 0.5);
  ASSERT_EQ(out.size(), 5u);
  EXPECT_DOUBLE_EQ(out[1].y, 7.0 / 3);
  EXPECT_TRUE(std::isnan(out[2].y));
  // last = 0.875 + 2.5 = 3.375 with n = 3 finite values: debias 1 - 0.125 = 0.875.
  EXPECT_DOUBLE_EQ(out[3].y, 3.375 / 0.875);
  EXPECT_EQ(out[4].y, kInf);
  EXPECT_EQ(out[3].x, 3);
}

TEST(SmoothPoints, WeightZeroAndConstantSeriesAreUnchanged) {
  std::vector<Point> in{{0, 1}, {1, 3}, {2, 2}};
  auto same = smooth_points(in, 0);
  ASSERT_EQ(same.size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(same[i].y, in[i].y);
  std::vector<Point> flat{{0, 0.1}, {1, 0.1}, {2, 0.1}};
  for (const auto& p : smooth_points(flat, 0.9)) EXPECT_EQ(p.y, 0.1);  // no rounding wobble
}

// --- line charts -----------------------------------------------------------------------------

TEST(PlotLines, GridSizeFollowsPanelsAndColumns) {
  std::vector<Panel> panels;
  for (int i = 0; i < 3; ++i) panels.push_back({"tag" + std::to_string(i), {constant("", i)}});
  auto size_of = [&](size_t n, int columns) {
    Options options;
    options.columns = columns;
    Picture p = plot({panels.begin(), panels.begin() + n}, options);
    return std::pair{p.width, p.height};
  };
  EXPECT_EQ(size_of(1, 0), std::pair(640, 400));
  EXPECT_EQ(size_of(2, 0), std::pair(1280, 400));  // up to 2 per row by default
  EXPECT_EQ(size_of(3, 0), std::pair(1280, 800));
  EXPECT_EQ(size_of(3, 3), std::pair(1920, 400));
  EXPECT_EQ(size_of(3, 1), std::pair(640, 1200));
  EXPECT_EQ(size_of(2, 5), std::pair(1280, 400));  // no empty columns
  Options small;
  small.panel_width = 300;
  small.panel_height = 200;
  Picture p = plot({panels.begin(), panels.begin() + 3}, small);
  EXPECT_EQ(p.width, 600);
  EXPECT_EQ(p.height, 400);
}

TEST(PlotLines, PanelsAreDrawnAndNotBlank) {
  std::vector<Panel> panels{
      {"a", {constant("", 1)}}, {"b", {constant("", 2)}}, {"c", {constant("", 3)}}};
  Picture p = plot(panels);
  // Every panel (the third row's first one included) holds a line; the empty cell of the grid
  // stays white.
  auto blue_in = [&](int x0, int y0) {
    size_t n = 0;
    for (int y = y0; y < y0 + 400; ++y) {
      for (int x = x0; x < x0 + 640; ++x) n += tint(p.at(x, y), kBlue) > 0.5;
    }
    return n;
  };
  EXPECT_GT(blue_in(0, 0), 300u);
  EXPECT_GT(blue_in(640, 0), 300u);
  EXPECT_GT(blue_in(0, 400), 300u);
  EXPECT_EQ(blue_in(640, 400), 0u);
  EXPECT_EQ(p.at(1000, 600), kWhite);
}

TEST(PlotLines, ConstantLinesSitAtTheirValues) {
  // Three constant series: the one at 2 lies halfway between those at 1 and 3 (the value axis is
  // linear and upwards), and along its row the pixels across the plot are not background.
  // Values off the ticks (1, 1.5, 2, …), so no grid line runs under a line.
  Picture p =
      plot({{"loss", {constant("one", 1.1), constant("two", 2.1), constant("three", 3.1)}}});
  int x = 400;  // right of the legend's swatches
  double one = line_row(p, x, kBlue), two = line_row(p, x, kOrange), three = line_row(p, x, kGreen);
  ASSERT_FALSE(std::isnan(one) || std::isnan(two) || std::isnan(three));
  EXPECT_GT(one, two);
  EXPECT_GT(two, three);
  EXPECT_GT(one - three, 150);  // the lines use the height of the panel
  EXPECT_NEAR(two, (one + three) / 2, 0.75);
  int row = static_cast<int>(std::lround(two));
  for (int sample = 120; sample <= 580; sample += 20) {
    // A vertical grid line may cross here: one of three neighbours is clear of it.
    double best = 0;
    for (int dx = -1; dx <= 1; ++dx) best = std::max(best, tint(p.at(sample + dx, row), kOrange));
    EXPECT_GT(best, 0.5) << "x=" << sample;
  }
}

TEST(PlotLines, RisingSeriesRisesLeftToRight) {
  std::vector<double> ys;
  for (int i = 0; i <= 100; ++i) ys.push_back(i * 0.01);
  Picture p = plot({{"accuracy", {series("", ys)}}});
  double left = line_row(p, 150, kBlue), right = line_row(p, 550, kBlue);
  ASSERT_FALSE(std::isnan(left) || std::isnan(right));
  EXPECT_GT(left, right + 100);  // lower on the screen on the left
}

TEST(PlotLines, TwoSeriesHaveTwoColoursAndALegend) {
  Picture p = plot({{"loss", {series("train", {3, 2, 1.5, 1}), series("eval", {4, 3, 2.5, 2})}}});
  size_t blue = 0, orange = 0;
  for (int y = 0; y < p.height; ++y) {
    for (int x = 0; x < p.width; ++x) {
      blue += tint(p.at(x, y), kBlue) > 0.8;
      orange += tint(p.at(x, y), kOrange) > 0.8;
    }
  }
  EXPECT_GT(blue, 300u);
  EXPECT_GT(orange, 300u);
  // The legend's swatches: both colours in the band under the title, above the lines' area.
  size_t blue_top = 0, orange_top = 0;
  for (int y = 30; y < 60; ++y) {
    for (int x = 0; x < p.width; ++x) {
      blue_top += near(p.at(x, y), kBlue, 10);
      orange_top += near(p.at(x, y), kOrange, 10);
    }
  }
  EXPECT_GT(blue_top, 10u);
  EXPECT_GT(orange_top, 10u);
}

TEST(PlotLines, SmoothingDrawsAFaintRawLineAndASolidSmoothedOne) {
  std::vector<double> ys;
  for (int i = 0; i < 200; ++i) ys.push_back(1.0 + (i % 2 ? 0.5 : -0.5) + i * 0.01);
  // Pixels fully under the raw line at a quarter of the colour, and those in the full colour.
  auto count = [](const Picture& p) {
    std::pair<size_t, size_t> faint_solid{0, 0};
    for (int y = 0; y < p.height; ++y) {
      for (int x = 0; x < p.width; ++x) {
        double a = tint(p.at(x, y), kBlue);
        faint_solid.first += a > 0.22 && a < 0.28;
        faint_solid.second += a > 0.9;
      }
    }
    return faint_solid;
  };
  Options options;
  options.smooth = 0.9;
  auto [faint, solid] = count(plot({{"loss", {series("", ys)}}}, options));
  auto [raw_faint, raw_solid] = count(plot({{"loss", {series("", ys)}}}));
  // Unsmoothed, the zigzag is solid (faint pixels only at its antialiased edges); smoothed, the
  // zigzag is faint and only the smoothed line through its middle is solid.
  EXPECT_GT(raw_solid, 5000u);
  EXPECT_GT(faint, 3 * raw_faint);
  EXPECT_GT(faint, 5000u);
  EXPECT_GT(solid, 300u);
  EXPECT_LT(3 * solid, raw_solid);
}

TEST(PlotLines, LogScaleSkipsNonPositiveValues) {
  Options options;
  options.log_y = true;
  Picture p = plot({{"lr", {series("", {-1, 0, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1})}}}, options);
  EXPECT_EQ(p.width, 640);
  // Steps 0 and 1 are not drawn; the line runs over steps 2..6, whose ends are found from the
  // drawing. Equal ratios are equal distances: 1e-5 → 1e-4 → 1e-3 rise by the same pixels.
  int first = p.width, last = -1;
  for (int x = 0; x < p.width; ++x) {
    if (!std::isnan(line_row(p, x, kBlue, 0.5))) {
      first = std::min(first, x);
      last = std::max(last, x);
    }
  }
  ASSERT_LT(first, last);
  double per_step = (last - first) / 4.0;
  auto row_at = [&](double step) {
    return line_row(p, static_cast<int>(std::lround(first + (step - 2) * per_step)), kBlue, 0.5);
  };
  double r25 = row_at(2.5), r35 = row_at(3.5), r45 = row_at(4.5);
  EXPECT_NEAR(r25 - r35, r35 - r45, 1.5);
  EXPECT_GT(r25 - r35, 30);

  auto none = lines(std::vector<Panel>{{"lr", {series("", {-1, 0})}}}, options);
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("nothing to plot"), std::string::npos);
}

TEST(PlotLines, NanAndInfBreakTheLine) {
  // Steps 0..10; steps 4 and 5 are NaN and +Inf: no line between steps 3 and 6.
  Picture p = plot({{"loss", {series("", {1, 1, 1, 1, kNan, kInf, 1, 1, 1, 1, 1})}}});
  int first = p.width, last = -1;
  for (int x = 0; x < p.width; ++x) {
    if (!std::isnan(line_row(p, x, kBlue, 0.5))) {
      first = std::min(first, x);
      last = std::max(last, x);
    }
  }
  ASSERT_LT(first, last);
  double per_step = (last - first) / 10.0;
  auto drawn_at = [&](double step) {
    return !std::isnan(
        line_row(p, static_cast<int>(std::lround(first + step * per_step)), kBlue, 0.5));
  };
  EXPECT_TRUE(drawn_at(1.5));
  EXPECT_TRUE(drawn_at(8.5));
  EXPECT_FALSE(drawn_at(4.5));  // the gap
  EXPECT_FALSE(drawn_at(3.5));
  EXPECT_FALSE(drawn_at(5.5));

  // A point alone between breaks is still visible, and nothing fails on an all-NaN panel next to
  // a drawable one.
  Picture dots =
      plot({{"a", {series("", {kNan, 2, kNan, 3, kNan})}}, {"b", {series("", {kNan, kNan})}}});
  size_t blue = 0;
  for (int y = 0; y < dots.height; ++y) {
    for (int x = 0; x < 640; ++x) blue += tint(dots.at(x, y), kBlue) > 0.5;
  }
  EXPECT_GT(blue, 4u);
}

TEST(PlotLines, ExtremeValuesAndOddLabelsDoNotBreakTheDrawing) {
  Picture p = plot({{"\xff\xfe\x01 bad bytes", {series("run\x1b", {-1e308, 1e308, 0, 1e-300})}},
                    {"tiny", {series("", {1e-9, 2e-9, 1.5e-9})}},
                    {"big", {series("", {1e12, 3e12}, 1e9)}}});
  EXPECT_EQ(p.width, 1280);
  EXPECT_EQ(p.height, 800);
  EXPECT_GT(1280u * 800u - count_near(p, kWhite, 0), 5000u);

  std::vector<Series> many;
  for (int i = 0; i < 25; ++i) many.push_back(constant("series " + std::to_string(i), i));
  Picture crowded = plot({{"25 series", many}});
  EXPECT_EQ(crowded.width, 640);
}

TEST(PlotLines, NothingToDrawIsAnError) {
  Options options;
  auto none = lines({}, options);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().message, "nothing to plot: no panels");
  auto empty = lines(std::vector<Panel>{{"loss", {}}, {"acc", {Series{"x", {}}}}}, options);
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().message, "nothing to plot: no finite values");
  auto nans = lines(std::vector<Panel>{{"loss", {series("", {kNan, kInf, -kInf})}}}, options);
  ASSERT_FALSE(nans);
  EXPECT_EQ(nans.error().message, "nothing to plot: no finite values");
}

TEST(PlotLines, BadOptionsAreErrors) {
  std::vector<Panel> one{{"loss", {constant("", 1)}}};
  Options options;
  options.smooth = 1;
  auto smooth = lines(one, options);
  ASSERT_FALSE(smooth);
  EXPECT_EQ(smooth.error().message, "smoothing weight must be in [0, 1), got 1");

  options = {};
  options.panel_width = 20000;
  options.panel_height = 20000;
  auto huge = lines(one, options);
  ASSERT_FALSE(huge);
  EXPECT_NE(huge.error().message.find("over the limit of 100 megapixels"), std::string::npos)
      << huge.error().message;

  options = {};
  std::vector<Panel> many(200, one[0]);
  options.columns = 100;  // 64 000 pixels wide
  auto wide = lines(many, options);
  ASSERT_FALSE(wide);
  EXPECT_NE(wide.error().message.find("64000x800"), std::string::npos) << wide.error().message;

  options = {};
  options.panel_width = 10;
  auto tiny = lines(one, options);
  ASSERT_FALSE(tiny);
  EXPECT_NE(tiny.error().message.find("panel size 10x400"), std::string::npos);

  options = {};
  options.columns = -1;
  EXPECT_FALSE(lines(one, options));
}

TEST(PlotLines, SameInputSameBytes) {
  std::vector<Panel> panels{{"loss", {series("a", {3, 1, 2}), series("b", {1, 2, 3})}}};
  Options options;
  options.smooth = 0.6;
  auto first = lines(panels, options), second = lines(panels, options);
  ASSERT_TRUE(first && second);
  EXPECT_EQ(*first, *second);
  EXPECT_EQ(first->substr(1, 3), "PNG");
}

// --- reference lines, markers, dots, per-panel log scales ------------------------------------

// The rows of the plot area's columns [x0, x1) where `colour` shows: the mean row of the pixels
// in that colour, NaN when there are none. A dashed line shows in any 11 neighbouring columns.
double colour_row(const Picture& p, int x0, int x1, Rgb colour) {
  double sum = 0;
  size_t n = 0;
  for (int y = 0; y < p.height; ++y) {
    for (int x = x0; x < x1; ++x) {
      if (!near(p.at(x, y), colour)) continue;
      sum += y;
      ++n;
    }
  }
  return n ? sum / n : kNan;
}

// The columns where `colour` runs down at least `min_rows` rows: a vertical line's.
std::vector<int> vertical_lines(const Picture& p, Rgb colour, int x0, int x1, int min_rows = 100) {
  std::vector<int> columns;
  for (int x = x0; x < x1; ++x) {
    int rows = 0;
    for (int y = 0; y < p.height; ++y) rows += near(p.at(x, y), colour);
    if (rows >= min_rows) columns.push_back(x);
  }
  return columns;
}

// The first and last columns where the series' line (tint over 0.5) shows.
std::pair<int, int> line_extent(const Picture& p, Rgb colour, double min_tint = 0.5) {
  int first = p.width, last = -1;
  for (int x = 0; x < p.width; ++x) {
    if (!std::isnan(line_row(p, x, colour, min_tint))) {
      first = std::min(first, x);
      last = std::max(last, x);
    }
  }
  return {first, last};
}

TEST(PlotLines, ReferenceLinesAreDashedInTheirColoursAndAlwaysInView) {
  // Cosines of 0.995 and 1; thresholds at 0.99 (warning), 0.9 (error, below every value) and 1.1
  // (neutral, above): the value axis reaches them all, and their heights are in proportion.
  Panel panel{"cosine", {series("", {1, 0.995, 1, 0.995, 1, 0.995})}};
  panel.reference_lines = {{0.99, "warning 0.99", ReferenceLine::Warning},
                           {0.9, "error 0.9", ReferenceLine::Error},
                           {1.1, "", ReferenceLine::Neutral}};
  Picture p = plot({panel});
  EXPECT_EQ(p.width, 640);
  EXPECT_EQ(p.height, 400);
  int mid = 320;  // the panel's middle column, and the next 11 (a dash and a gap)
  double amber = colour_row(p, mid, mid + 11, kAmber), red = colour_row(p, mid, mid + 11, kRed),
         grey = colour_row(p, mid, mid + 11, kGuideGrey);
  ASSERT_FALSE(std::isnan(amber) || std::isnan(red) || std::isnan(grey));
  EXPECT_GT(red, amber + 100);  // 0.9 at the bottom of the panel, 0.99 above its middle
  EXPECT_LT(grey, amber);
  EXPECT_NEAR((amber - grey) / (red - grey), 0.11 / 0.2, 0.02);
  EXPECT_GT(grey, 30);  // inside the plot area, under the title
  EXPECT_LT(red, 360);  // above the step labels
  // Dashed: along the red line's rows, runs of red with gaps between them across the area.
  int row = static_cast<int>(std::lround(red));
  size_t on = 0, off = 0;
  for (int x = 100; x < 600; ++x) {
    bool is_red = near(p.at(x, row), kRed) || near(p.at(x, row + 1), kRed);
    on += is_red;
    off += !is_red;
  }
  EXPECT_GT(on, 250u);
  EXPECT_GT(off, 100u);
  // The warning's label: small darker-amber text at the right end, just above its line.
  size_t label = 0;
  for (int y = static_cast<int>(amber) - 15; y < static_cast<int>(amber) - 1; ++y) {
    for (int x = 500; x < 630; ++x) label += tint(p.at(x, y), kAmberText) > 0.5;
  }
  EXPECT_GT(label, 20u);
}

TEST(PlotLines, MarkersAreSolidVerticalLinesAndWidenTheStepAxis) {
  // Steps 0..100; markers at 50 (with a label) and at 120, past the last step: the end of the step
  // axis, where it is drawn just inside the frame.
  std::vector<double> ys(101, 1.1);
  Panel panel{"cosine", {series("", ys)}};
  panel.markers = {{50, "first divergence"}, {120, ""}};
  Picture p = plot({panel});
  auto [first, last] = line_extent(p, kBlue);
  ASSERT_LT(first, last);
  std::vector<int> columns = vertical_lines(p, kPlum, 0, p.width);
  ASSERT_EQ(columns.size(), 4u);  // two lines, each two pixels wide
  EXPECT_EQ(columns[1], columns[0] + 1);
  EXPECT_EQ(columns[3], columns[2] + 1);
  double at50 = (columns[0] + 0.5 + 0.5 - first) / (last - first + 1),
         at120 = (columns[2] + 0.5 + 0.5 - first) / (last - first + 1);
  EXPECT_NEAR(at50, 0.5, 0.01);
  EXPECT_NEAR(at120, 1.2, 0.01);
  EXPECT_LT(columns[2], 630);  // inside the frame
  // Solid: every row of the plot area between the title and the step labels.
  int rows = 0;
  for (int y = 0; y < p.height; ++y) rows += near(p.at(columns[0], y), kPlum);
  EXPECT_GT(rows, 300);
  // The label at the top, right of the line.
  size_t label = 0;
  for (int y = 30; y < 60; ++y) {
    for (int x = columns[1] + 2; x < columns[1] + 100; ++x) label += tint(p.at(x, y), kPlum) > 0.5;
  }
  EXPECT_GT(label, 20u);
}

TEST(PlotLines, DotsMarkEachPointOverAFaintLine) {
  // 20 points, the eighth NaN: 19 dots in full colour; between them only the faint line.
  std::vector<double> ys(20, 1.13);  // off the grid lines
  ys[7] = kNan;
  Series dotted = series("", ys);
  dotted.dots = true;
  Picture p = plot({{"cosine", {dotted}}});
  std::vector<double> strongest(p.width, 0);
  for (int x = 0; x < p.width; ++x) {
    for (int y = 0; y < p.height; ++y)
      strongest[x] = std::max(strongest[x], tint(p.at(x, y), kBlue));
  }
  int dots = 0, faint = 0;
  for (int x = 1; x < p.width; ++x) {
    dots += strongest[x] > 0.9 && !(strongest[x - 1] > 0.9);
    faint += strongest[x] > 0.1 && strongest[x] < 0.3;  // a quarter, over one or two rows
  }
  EXPECT_EQ(dots, 19);
  EXPECT_GT(faint, 300);  // the line between the dots

  // A million points cost no more than the pixels they land on.
  std::vector<double> many(1'000'000);
  for (size_t i = 0; i < many.size(); ++i) many[i] = std::sin(i * 1e-4);
  Series crowd = series("", many);
  crowd.dots = true;
  auto start = std::chrono::steady_clock::now();
  Picture q = plot({{"crowd", {crowd}}});
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  EXPECT_EQ(q.width, 640);
  EXPECT_GT(count_near(q, kBlue), 3000u);
}

TEST(PlotLines, EachPanelMayHaveItsOwnValueScale) {
  // The options ask for a log scale; the cosine panel overrides it (its -1 and 0 are drawn), the
  // error panel follows it (equal ratios, equal distances).
  Options options;
  options.log_y = true;
  Panel cosine{"cosine", {series("", {-1, 0, 0.5, 1, 1})}};
  cosine.log_y = false;
  Panel error{"max relative error", {series("", {1e-6, 1e-5, 1e-4, 1e-3, 1e-2})}};
  Picture p = plot({cosine, error}, options);
  EXPECT_EQ(p.width, 1280);
  Picture left = p, right = p;
  for (int y = 0; y < p.height; ++y) {
    for (int x = 0; x < p.width; ++x) {
      size_t i = (static_cast<size_t>(y) * p.width + x) * 3;
      auto& blank = x < 640 ? right.rgb : left.rgb;
      blank[i] = blank[i + 1] = blank[i + 2] = 255;
    }
  }
  auto [first, last] = line_extent(left, kBlue);
  EXPECT_LT(first, 80);  // step 0's -1 is drawn
  EXPECT_GT(last - first, 500);
  std::pair<int, int> drawn = line_extent(right, kBlue);  // clang captures no structured binding
  ASSERT_LT(drawn.first, drawn.second);
  double per_step = (drawn.second - drawn.first) / 4.0;
  auto row_at = [&](double step) {
    return line_row(right, static_cast<int>(std::lround(drawn.first + step * per_step)), kBlue,
                    0.5);
  };
  EXPECT_NEAR(row_at(0.5) - row_at(1.5), row_at(1.5) - row_at(2.5), 1.5);
  EXPECT_GT(row_at(0.5) - row_at(1.5), 30);

  // Linear where the options say log: still drawn per panel; the error names no log scale.
  Panel zeros{"cosine", {series("", {0, 0})}};
  zeros.log_y = false;
  EXPECT_TRUE(lines(std::vector<Panel>{zeros}, options));
  zeros.log_y = true;
  auto none = lines(std::vector<Panel>{zeros}, Options{});
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().message, "nothing to plot: no positive finite values for a log scale");
  Panel nans{"nan", {series("", {kNan})}};
  auto mixed = lines(std::vector<Panel>{zeros, nans}, Options{});
  ASSERT_FALSE(mixed);
  EXPECT_EQ(mixed.error().message, "nothing to plot: no finite values (positive on a log scale)");
}

TEST(PlotLines, ALogPanelWithoutPositiveValuesIsAnEmptyFrameWithANote) {
  // Every error 0 (the runs agree) next to the cosines: the error panel still has its frame,
  // its steps, its thresholds (which make its value axis) and a note; nothing crashes.
  Panel cosine{"cosine", {series("", {1, 1, 1, 1})}};
  Panel error{"max relative error", {series("", {0, 0, -1, kNan})}};
  error.log_y = true;
  error.reference_lines = {{1e-3, "warning", ReferenceLine::Warning},
                           {1e-1, "error", ReferenceLine::Error},
                           {0, "not on a log axis", ReferenceLine::Neutral}};
  error.markers = {{2, "first divergence"}};
  Picture p = plot({cosine, error});
  EXPECT_EQ(p.width, 1280);
  std::vector<int> frame = vertical_lines(p, kFrameGrey, 640, 1280, 250);
  ASSERT_GE(frame.size(), 2u);  // the frame's left and right sides
  EXPECT_GT(frame.back() - frame.front(), 450);
  double amber = colour_row(p, 960, 971, kAmber), red = colour_row(p, 960, 971, kRed);
  ASSERT_FALSE(std::isnan(amber) || std::isnan(red));
  EXPECT_GT(amber, red + 100);
  EXPECT_TRUE(std::isnan(colour_row(p, 700, 711, kGuideGrey)));  // left of the note
  EXPECT_EQ(vertical_lines(p, kPlum, 640, 1280).size(), 2u);
  // The note: dark text around the middle of the plot area, between the thresholds.
  size_t text = 0;
  for (int y = static_cast<int>(red) + 5; y < static_cast<int>(amber) - 5; ++y) {
    for (int x = 880; x < 1060; ++x) text += p.at(x, y).r < 120 && p.at(x, y).g < 120;
  }
  EXPECT_GT(text, 50u);

  // Alone, without thresholds or markers: an error; beside a drawable panel: a frame and a note.
  error.reference_lines.clear();
  error.markers.clear();
  auto alone = lines(std::vector<Panel>{error}, Options{});
  ASSERT_FALSE(alone);
  Picture q = plot({cosine, error, {"no points", {}}});
  EXPECT_EQ(q.height, 800);
  EXPECT_GE(vertical_lines(q, kFrameGrey, 640, 1280, 250).size(), 2u);
  EXPECT_GE(vertical_lines(q, kFrameGrey, 0, 640, 250).size(), 4u);  // both left panels
}

// --- histograms ------------------------------------------------------------------------------

// A histogram of ten unit bins over [left, left + 10) with a bump around `peak`.
std::vector<Bin> bump(double left, double peak) {
  std::vector<Bin> h;
  for (int i = 0; i < 10; ++i) {
    double centre = left + i + 0.5;
    h.push_back({left + i, left + i + 1, 100 * std::exp(-(centre - peak) * (centre - peak) / 4)});
  }
  return h;
}

TEST(PlotHistograms, RidgelinesRiseWithTheSteps) {
  HistogramSeries weights{"weights", {{0, bump(0, 3)}, {100, bump(0, 7)}}};
  Options options;
  auto png = histograms({&weights, 1}, HistogramStyle::Ridgeline, options);
  ASSERT_TRUE(png) << png.error().message;
  Picture p = decode(*png);
  EXPECT_EQ(p.width, 640);
  EXPECT_EQ(p.height, 400);
  // The old step's curve is drawn purple-ish, the new one yellow-green; the new one is higher (its
  // baseline is offset upwards) and its bump further right (its peak is at 7, not 3).
  size_t old_count = 0, new_count = 0;
  double old_x = 0, old_y = 0, new_x = 0, new_y = 0;
  for (int y = 0; y < p.height; ++y) {
    for (int x = 0; x < p.width; ++x) {
      Rgb c = p.at(x, y);
      if (c.b > c.g + 30 && c.r > c.g) {  // purple: the viridis start
        ++old_count;
        old_x += x;
        old_y += y;
      } else if (c.r > c.b + 40 && c.g > c.b + 40) {  // yellow-green: the viridis end
        ++new_count;
        new_x += x;
        new_y += y;
      }
    }
  }
  ASSERT_GT(old_count, 500u);
  ASSERT_GT(new_count, 500u);
  EXPECT_LT(new_y / new_count, old_y / old_count - 50);
  EXPECT_GT(new_x / new_count, old_x / old_count + 100);
}

TEST(PlotHistograms, HeatColumnsFollowTheCounts) {
  // Three steps over the same range; the last holds twice the counts: its column is the
  // colormap's top colour, the others its middle.
  auto flat = [](double count) { return std::vector<Bin>{{0, 1, count}}; };
  HistogramSeries weights{"weights", {{0, flat(10)}, {1, flat(10)}, {2, flat(20)}}};
  HistogramSeries bias{"bias", {{0, bump(-5, 0)}, {5, bump(-4, 0)}}};
  std::vector<HistogramSeries> panels{weights, bias};
  auto png = histograms(panels, HistogramStyle::Heat, Options{});
  ASSERT_TRUE(png) << png.error().message;
  Picture p = decode(*png);
  EXPECT_EQ(p.width, 1280);
  EXPECT_EQ(p.height, 400);
  Picture left;  // the first panel only
  left.width = 640;
  left.height = 400;
  for (int y = 0; y < 400; ++y) {
    for (int x = 0; x < 640; ++x) {
      Rgb c = p.at(x, y);
      left.rgb.insert(left.rgb.end(), {static_cast<uint8_t>(c.r), static_cast<uint8_t>(c.g),
                                       static_cast<uint8_t>(c.b)});
    }
  }
  Centroid high = centroid(left, kViridisHigh), mid = centroid(left, kViridisMid);
  EXPECT_GT(high.count, 10000u);
  EXPECT_GT(mid.count, 2 * high.count - 1000);
  EXPECT_GT(high.x, mid.x + 100);  // the last column is on the right
}

TEST(PlotHistograms, NothingToDrawIsAnError) {
  auto none = histograms({}, HistogramStyle::Heat, Options{});
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().message, "nothing to plot: no panels");
  std::vector<Bin> empty, zeros{{0, 1, 0}},
      broken{{kNan, 1, 5}, {0, kInf, 5}, {2, 1, 5}, {0, 1, -1}};
  HistogramSeries series{"w", {{0, empty}, {1, zeros}, {2, broken}}};
  for (auto style : {HistogramStyle::Heat, HistogramStyle::Ridgeline}) {
    auto result = histograms({&series, 1}, style, Options{});
    ASSERT_FALSE(result);
    EXPECT_NE(result.error().message.find("nothing to plot"), std::string::npos);
  }
}

TEST(PlotHistograms, BinsThatCannotBeDrawnAreLeftOut) {
  // Bins reaching infinity, with a NaN edge or count, a negative count or reversed edges beside an
  // ordinary one: the picture is the ordinary one's alone.
  std::vector<Bin> bins{{-kInf, 0, 3}, {0, 1, 5},  {1, kInf, 2}, {kNan, 2, 2},
                        {1, 2, kNan},  {1, 2, -4}, {3, 2, 1}};
  std::vector<Bin> ordinary{{0, 1, 5}};
  HistogramSeries series{"w", {{0, bins}, {1, bins}}}, plain{"w", {{0, ordinary}, {1, ordinary}}};
  for (auto style : {HistogramStyle::Heat, HistogramStyle::Ridgeline}) {
    auto png = histograms({&series, 1}, style, Options{});
    ASSERT_TRUE(png) << png.error().message;
    EXPECT_EQ(decode(*png).width, 640);
    auto expected = histograms({&plain, 1}, style, Options{});
    ASSERT_TRUE(expected);
    EXPECT_EQ(*png, *expected);
  }
}

// --- heatmaps --------------------------------------------------------------------------------

TEST(PlotHeatmaps, CellsTakeTheColormapsColours) {
  // [[0, NaN], [2, 3]]: the low corner top left, grey top right, the high corner bottom right.
  Heatmap map{"w", 2, 2, {0, kNan, 2, 3}};
  auto png = heatmaps({&map, 1}, Options{});
  ASSERT_TRUE(png) << png.error().message;
  Picture p = decode(*png);
  EXPECT_EQ(p.width, 640);
  EXPECT_EQ(p.height, 400);
  Centroid low = centroid(p, kViridisLow), high = centroid(p, kViridisHigh),
           grey = centroid(p, kNanGrey);
  ASSERT_GT(low.count, 10000u);
  ASSERT_GT(high.count, 10000u);
  ASSERT_GT(grey.count, 10000u);
  EXPECT_GT(high.x, low.x + 100);
  EXPECT_GT(high.y, low.y + 100);
  EXPECT_NEAR(grey.x, high.x, 20);
  EXPECT_NEAR(grey.y, low.y, 20);
}

TEST(PlotHeatmaps, LargeMatricesAndGrids) {
  Heatmap big{"big", 1000, 3000, {}};
  big.values.resize(3'000'000);
  for (size_t i = 0; i < big.values.size(); ++i) big.values[i] = static_cast<double>(i % 3000);
  Heatmap small{"small", 1, 2, {0, 1}};
  Options options;
  options.columns = 1;
  options.panel_width = 500;
  options.panel_height = 300;
  std::vector<Heatmap> maps{big, small};
  auto png = heatmaps(maps, options);
  ASSERT_TRUE(png) << png.error().message;
  Picture p = decode(*png);
  EXPECT_EQ(p.width, 500);
  EXPECT_EQ(p.height, 600);
  // The big one goes from low (left) to high (right) along its columns.
  Picture top = p;
  top.height = 300;
  top.rgb.resize(500 * 300 * 3);
  Centroid low = centroid(top, kViridisLow), high = centroid(top, kViridisHigh);
  ASSERT_GT(low.count, 100u);
  ASSERT_GT(high.count, 100u);
  EXPECT_GT(high.x, low.x + 200);
}

// Where the viridis colours are (any of them, tolerance 12): the bounding box of those pixels.
struct Box {
  int x0 = 1 << 30, y0 = 1 << 30, x1 = -1, y1 = -1;
};

// viridis is never grey: blue-purple, teal or green-yellow.
bool coloured(Rgb c) { return std::max({c.r, c.g, c.b}) - std::min({c.r, c.g, c.b}) > 60; }

Box viridis_box(const Picture& p) {
  Box box;
  for (int y = 0; y < p.height; ++y) {
    for (int x = 0; x < p.width; ++x) {
      if (!coloured(p.at(x, y))) continue;
      box.x0 = std::min(box.x0, x);
      box.y0 = std::min(box.y0, y);
      box.x1 = std::max(box.x1, x);
      box.y1 = std::max(box.y1, y);
    }
  }
  return box;
}

// The picture with its colour bar (the rightmost coloured columns) painted white.
Picture without_colour_bar(Picture p) {
  auto coloured_column = [&](int x) {
    for (int y = 0; y < p.height; ++y) {
      if (coloured(p.at(x, y))) return true;
    }
    return false;
  };
  int x = p.width - 1;
  while (x >= 0 && !coloured_column(x)) --x;
  for (; x >= 0 && coloured_column(x); --x) {
    for (int y = 0; y < p.height; ++y) {
      size_t i = (static_cast<size_t>(y) * p.width + x) * 3;
      p.rgb[i] = p.rgb[i + 1] = p.rgb[i + 2] = 255;
    }
  }
  return p;
}

TEST(PlotHeatmaps, LargeTensorsAreDrawnInBlocks) {
  // 4096 × 4096 zeros with one spike: bounded time and picture; the block means dilute the spike
  // to the low colour, the block maxima of |value| keep it in the high colour, at its place.
  Heatmap map{"activation", 4096, 4096, std::vector<double>(4096 * 4096, 0)};
  map.values[1000 * 4096 + 3000] = -1;
  map.values[5] = 0.5;
  auto start = std::chrono::steady_clock::now();
  auto means = heatmaps({&map, 1}, Options{});
  map.reduction = Heatmap::MaxAbs;
  auto maxima = heatmaps({&map, 1}, Options{});
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  ASSERT_TRUE(means && maxima);
  EXPECT_LT(means->size(), 100'000u);
  Picture mean = without_colour_bar(decode(*means)), max = without_colour_bar(decode(*maxima));
  EXPECT_EQ(mean.width, 640);
  EXPECT_EQ(mean.height, 400);
  EXPECT_EQ(count_near(mean, kViridisHigh, 12), 0u);
  Box cells = viridis_box(max);
  Centroid spike = centroid(max, kViridisHigh);
  ASSERT_GT(spike.count, 0u);
  EXPECT_LT(spike.count, 30u);  // one cell of a few pixels
  EXPECT_NEAR((spike.x - cells.x0) / (cells.x1 - cells.x0 + 1), 3000.0 / 4096, 0.01);
  EXPECT_NEAR((spike.y - cells.y0) / (cells.y1 - cells.y0 + 1), 1000.0 / 4096, 0.01);
}

TEST(PlotHeatmaps, VectorsAreStrips) {
  // 1 × 10^6, rising left to right: a strip of 40 pixels through the middle of the plot area,
  // low on the left and high on the right; 1000 × 1: a strip down the left.
  Heatmap row{"bias", 1, 1'000'000, std::vector<double>(1'000'000)};
  for (size_t i = 0; i < row.values.size(); ++i) row.values[i] = static_cast<double>(i);
  auto png = heatmaps({&row, 1}, Options{});
  ASSERT_TRUE(png) << png.error().message;
  Picture p = without_colour_bar(decode(*png));
  EXPECT_EQ(p.width, 640);
  EXPECT_EQ(p.height, 400);
  Box strip = viridis_box(p);
  EXPECT_NEAR(strip.y1 - strip.y0 + 1, 39, 2);  // 40 rows, the frame over the outer ones
  EXPECT_NEAR((strip.y0 + strip.y1) / 2.0, 200, 20);
  EXPECT_GT(strip.x1 - strip.x0, 400);
  int mid = (strip.y0 + strip.y1) / 2;
  EXPECT_TRUE(near(p.at(strip.x0 + 1, mid), kViridisLow, 12));
  EXPECT_TRUE(near(p.at(strip.x1 - 1, mid), kViridisHigh, 12));

  Heatmap column{"gamma", 1000, 1, std::vector<double>(1000)};
  for (size_t i = 0; i < column.values.size(); ++i) column.values[i] = static_cast<double>(i);
  png = heatmaps({&column, 1}, Options{});
  ASSERT_TRUE(png) << png.error().message;
  Picture q = decode(*png);
  Box cells = viridis_box(without_colour_bar(q));
  EXPECT_NEAR(cells.x1 - cells.x0 + 1, 39, 2);
  EXPECT_GT(cells.y1 - cells.y0, 250);
}

TEST(PlotHeatmaps, BadShapesAndNothingFiniteAreErrors) {
  Heatmap wrong{"w", 2, 3, {1, 2, 3}};
  auto shape = heatmaps({&wrong, 1}, Options{});
  ASSERT_FALSE(shape);
  EXPECT_EQ(shape.error().message, "heatmap 'w' has 3 values for 2x3 cells");
  Heatmap empty{"e", 0, 3, {}};
  EXPECT_FALSE(heatmaps({&empty, 1}, Options{}));
  Heatmap overflow{"o", uint64_t{1} << 40, uint64_t{1} << 40, {1}};
  EXPECT_FALSE(heatmaps({&overflow, 1}, Options{}));
  Heatmap nans{"n", 1, 2, {kNan, kNan}};
  auto nothing = heatmaps({&nans, 1}, Options{});
  ASSERT_FALSE(nothing);
  EXPECT_EQ(nothing.error().message, "nothing to plot: no heatmap has a finite value");
  EXPECT_FALSE(heatmaps({}, Options{}));
}

// --- stacked bars ----------------------------------------------------------------------------

// The pixels of `colour` in each row: a horizontal bar's length where it crosses the row.
std::vector<int> run_per_row(const Picture& p, Rgb colour) {
  std::vector<int> runs(static_cast<size_t>(p.height), 0);
  for (int y = 0; y < p.height; ++y)
    for (int x = 0; x < p.width; ++x) runs[static_cast<size_t>(y)] += near(p.at(x, y), colour);
  return runs;
}

// The rows where `colour` runs at least `min_run` pixels, grouped into bars: (first row, length
// of the bar's longest row) per bar, top to bottom.
std::vector<std::pair<int, int>> bars_of(const Picture& p, Rgb colour, int min_run = 3) {
  std::vector<std::pair<int, int>> bars;
  std::vector<int> runs = run_per_row(p, colour);
  bool inside = false;
  for (int y = 0; y < p.height; ++y) {
    int run = runs[static_cast<size_t>(y)];
    if (run >= min_run && !inside) bars.push_back({y, 0});
    if (run >= min_run) bars.back().second = std::max(bars.back().second, run);
    inside = run >= min_run;
  }
  return bars;
}

TEST(PlotBars, LengthsFollowTheValuesTopToBottom) {
  BarPanel panel{"top operators", {"MatMul-op1", "Conv2D-op7", "Add-op3"}, {{"", {4, 2, 1}}}};
  auto png = stacked_bars({&panel, 1}, Options{});
  ASSERT_TRUE(png) << png.error().message;
  Picture p = decode(*png);
  EXPECT_EQ(p.width, 640);
  EXPECT_EQ(p.height, 400);
  auto bars = bars_of(p, kBlue);
  ASSERT_EQ(bars.size(), 3u);
  // The first category on top; lengths in the ratio of the values, to a pixel or two.
  EXPECT_LT(bars[0].first, bars[1].first);
  EXPECT_LT(bars[1].first, bars[2].first);
  EXPECT_NEAR(bars[0].second, 2.0 * bars[1].second, 3);
  EXPECT_NEAR(bars[1].second, 2.0 * bars[2].second, 3);
  EXPECT_GT(bars[0].second, 400);  // the longest bar takes most of the width (axis to 1.05 × 4)
}

TEST(PlotBars, SeriesStackInOrder) {
  // rank 0: 1 + 1, rank 1: 1 + 3: the second series (orange) starts where the first ends.
  BarPanel panel{"time per rank", {"rank 0", "rank 1"}, {{"compute", {1, 1}}, {"comm", {1, 3}}}};
  auto png = stacked_bars({&panel, 1}, Options{});
  ASSERT_TRUE(png) << png.error().message;
  Picture p = decode(*png);
  auto blue = bars_of(p, kBlue), orange = bars_of(p, kOrange);
  // Each colour: the legend's swatch (18 pixels wide, above the bars), then two bars.
  ASSERT_EQ(blue.size(), 3u);
  ASSERT_EQ(orange.size(), 3u);
  EXPECT_LT(blue[0].first, blue[1].first);  // the legend above the bars
  EXPECT_NEAR(blue[1].second, blue[2].second, 2);
  EXPECT_NEAR(orange[1].second, blue[1].second, 2);
  EXPECT_NEAR(orange[2].second, 3.0 * blue[2].second, 3);
  // In a bar's middle row the blue segment ends where the orange one starts.
  int row = blue[2].first + 3;
  int last_blue = -1, first_orange = -1;
  for (int x = 0; x < p.width; ++x) {
    if (near(p.at(x, row), kBlue)) last_blue = x;
    if (first_orange < 0 && near(p.at(x, row), kOrange)) first_orange = x;
  }
  EXPECT_GE(first_orange, last_blue);
  EXPECT_LE(first_orange - last_blue, 2);
}

TEST(PlotBars, ValuesThatCannotBeDrawnAreLeftOutAndErrorsAreNamed) {
  BarPanel odd{"w", {"a", "b", "c"}, {{"s", {2, kNan, -1}}, {"t", {kInf}}}};
  BarPanel plain{"w", {"a", "b", "c"}, {{"s", {2}}, {"t", {}}}};
  auto png = stacked_bars({&odd, 1}, Options{});
  ASSERT_TRUE(png) << png.error().message;
  auto expected = stacked_bars({&plain, 1}, Options{});
  ASSERT_TRUE(expected);
  EXPECT_EQ(*png, *expected);

  auto none = stacked_bars({}, Options{});
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().message, "nothing to plot: no panels");
  BarPanel zeros{"w", {"a"}, {{"s", {0}}}};
  auto empty = stacked_bars({&zeros, 1}, Options{});
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().message, "nothing to plot: no bar has a positive finite value");
  BarPanel too_many{"w", {"a"}, {{"s", {1, 2}}}};
  auto bad = stacked_bars({&too_many, 1}, Options{});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "bar chart 'w': series 's' has 2 values for 1 categories");
}

TEST(PlotBars, ManyCategoriesStillDrawEveryBar) {
  // 300 categories in 400 pixels: every bar at least a pixel thick, labels thinned out.
  BarPanel panel{"many", {}, {{"", {}}}};
  for (int i = 0; i < 300; ++i) {
    panel.categories.push_back("op" + std::to_string(i));
    panel.series[0].values.push_back(1 + i % 7);
  }
  auto png = stacked_bars({&panel, 1}, Options{});
  ASSERT_TRUE(png) << png.error().message;
  Picture p = decode(*png);
  std::vector<int> runs = run_per_row(p, kBlue);
  int rows = 0;
  for (int run : runs) rows += run > 0;
  EXPECT_GT(rows, 200);
}

}  // namespace
}  // namespace msdt::plot
