// What dump-compare writes from compared rows (compare spec §10, §12.5, §12.7; report.h): the
// summary's first divergence per directory group (the first error output whose op's inputs all
// pass), the advisor's detections in msaccucmp's order (overflow, input inconsistent, global
// consistency: the first that matches wins, whatever the row order), the worst rows, the reason
// counts, the plot points, and the fixed field set of our rows. The pairings are built by hand:
// no file is read, the verdicts and metrics are given.
#include "compare/report.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace msdt::compare {
namespace {

using dump::Io;

enum class Sides { Both, MineOnly, GoldenOnly };

// A pairing of hand-made rows: `groups` directory groups keyed by rank, rows added in order.
struct Rows {
  explicit Rows(size_t groups = 1) {
    for (size_t g = 0; g < groups; ++g) {
      DirectoryGroup group;
      group.key.rank = static_cast<uint32_t>(g);
      group.key.iteration = 0;
      pairing.groups.push_back(group);
    }
  }
  // Returns the row's index.
  size_t add(size_t group, const std::string& op, Io io, uint32_t slot = 0,
             Sides sides = Sides::Both, uint64_t occurrence = 0, const std::string& type = "Op") {
    TensorRef ref;
    ref.op_name = op;
    ref.key_name = key_spelling(op);
    ref.op_type = type;
    ref.io = io;
    ref.slot = slot;
    ref.occurrence = occurrence;
    PairRow row;
    row.group = group;
    if (sides != Sides::GoldenOnly) row.mine = ref;
    if (sides != Sides::MineOnly) row.golden = ref;
    pairing.rows.push_back(row);
    return pairing.rows.size() - 1;
  }
  Pairing pairing;
};

// A compared row: the verdict given, msprobe's cosine and MaxAbsErr as given (absent with
// "non-finite" when not), float32 sides unless told.
ComparedRow judged(const Pairing& p, size_t index, Verdict verdict,
                   std::optional<double> cosine = 1.0, std::optional<double> max_abs = 0.0,
                   DType my_dtype = DType::Float32) {
  ComparedRow row;
  row.index = index;
  row.pair = &p.rows.at(index);
  row.verdict = RowVerdict{verdict, verdict == Verdict::Pass ? "" : "why " + std::to_string(index)};
  if (row.pair->mine) row.mine.dtype = my_dtype;
  if (row.pair->golden) row.golden.dtype = DType::Float32;
  if (verdict == Verdict::Unmatched) return row;
  PairMetrics m;
  m.my.count = m.golden.count = 4;
  m.my.max = m.golden.max = 1.0;
  m.mp_cosine = cosine ? Metric::of(*cosine) : Metric::absent(Reason::NonFinite);
  m.cosine = m.mp_cosine;
  m.mp_max_abs_err = max_abs ? Metric::of(*max_abs) : Metric::absent(Reason::NonFinite);
  m.mp_max_relative_err = Metric::of(0.125);
  row.metrics = m;
  return row;
}

Summary summarize(const Pairing& p, const std::vector<ComparedRow>& rows, size_t top = 10) {
  Summary s(p, p.counts, top);
  for (const ComparedRow& r : rows) s.row(r);
  return s;
}

nlohmann::json summary_json(const Summary& s) {
  std::ostringstream out;
  s.write_json(out);
  return nlohmann::json::parse(out.str());
}

std::string summary_text(const Summary& s) {
  std::ostringstream out;
  s.write_text(out);
  return out.str();
}

// --- first divergence ---------------------------------------------------------------------------

TEST(FirstDivergence, FirstErrorOutputWhoseInputsPass) {
  Rows r;
  r.add(0, "Default/A-op1", Io::Input);
  r.add(0, "Default/A-op1", Io::Output);
  r.add(0, "Default/B-op2", Io::Input, 0);
  r.add(0, "Default/B-op2", Io::Input, 1);
  r.add(0, "Default/B-op2", Io::Output);
  r.add(0, "Default/C-op3", Io::Input);
  r.add(0, "Default/C-op3", Io::Output);
  const Pairing& p = r.pairing;
  Summary s = summarize(
      p, {judged(p, 0, Verdict::Pass), judged(p, 1, Verdict::Pass), judged(p, 2, Verdict::Pass),
          judged(p, 3, Verdict::Warning, 0.995), judged(p, 4, Verdict::Error, 0.5, 3.0),
          judged(p, 5, Verdict::Error, 0.5, 3.0), judged(p, 6, Verdict::Error, 0.4, 6.0)});
  ASSERT_EQ(s.divergences().size(), 1u);
  const Divergence& d = s.divergences()[0];
  EXPECT_EQ(d.group, 0u);
  EXPECT_EQ(d.row, 5u);  // row numbers count from 1
  EXPECT_EQ(d.label, "Default/B-op2 output 0");
  EXPECT_EQ(d.why, "why 4");
  EXPECT_EQ(d.inputs, 2u);  // a warning input still passes
  ASSERT_TRUE(d.cosine);
  EXPECT_EQ(*d.cosine, 0.5);
  EXPECT_EQ(d.output_ordinal, 2u);  // the second output row
  EXPECT_EQ(s.verdicts()[static_cast<size_t>(Verdict::Error)], 3u);

  std::string text = summary_text(s);
  EXPECT_NE(
      text.find("first divergence: row 5 Default/B-op2 output 0: why 4; its 2 input(s) pass\n"),
      std::string::npos)
      << text;
  nlohmann::json j = summary_json(s);
  ASSERT_EQ(j["first_divergence"].size(), 1u);
  EXPECT_EQ(j["first_divergence"][0]["row"], 5);
  EXPECT_EQ(j["first_divergence"][0]["inputs_passed"], 2);
  EXPECT_EQ(j["first_divergence"][0]["group"], "rank 0, iteration 0");
}

TEST(FirstDivergence, FailingInputsRuleTheOpOut) {
  Rows r;
  r.add(0, "A-op1", Io::Input);                        // error: A's output is not the divergence
  r.add(0, "A-op1", Io::Output);                       // error
  r.add(0, "B-op2", Io::Input, 0, Sides::GoldenOnly);  // unmatched input
  r.add(0, "B-op2", Io::Output);                       // error
  r.add(0, "C-op3", Io::Input);                        // skipped (unreadable)
  r.add(0, "C-op3", Io::Output);                       // error
  r.add(0, "D-op4", Io::Input);                        // pass
  r.add(0, "D-op4", Io::Output);                       // warning: not a divergence
  r.add(0, "E-op5", Io::Input);                        // pass
  r.add(0, "E-op5", Io::Output);                       // error: the divergence
  const Pairing& p = r.pairing;
  ComparedRow skipped = judged(p, 4, Verdict::Skipped);
  skipped.metrics.reset();
  skipped.problem = "my side unreadable: offset 0x80: short";
  Summary s =
      summarize(p, {judged(p, 0, Verdict::Error, 0.5, 2.0), judged(p, 1, Verdict::Error, 0.5, 2.0),
                    judged(p, 2, Verdict::Unmatched), judged(p, 3, Verdict::Error, 0.5, 2.0),
                    skipped, judged(p, 5, Verdict::Error, 0.5, 2.0), judged(p, 6, Verdict::Pass),
                    judged(p, 7, Verdict::Warning, 0.999, 0.01), judged(p, 8, Verdict::Pass),
                    judged(p, 9, Verdict::Error, 0.8, 1.5)});
  ASSERT_EQ(s.divergences().size(), 1u);
  EXPECT_EQ(s.divergences()[0].row, 10u);
  EXPECT_EQ(s.divergences()[0].label, "E-op5 output 0");
  EXPECT_EQ(s.divergences()[0].inputs, 1u);
  EXPECT_EQ(s.reasons().at("unreadable"), 1u);
}

TEST(FirstDivergence, NoInputDumpedMakesTheFirstFailingOutput) {
  Rows r;
  r.add(0, "A-op1", Io::Output);
  r.add(0, "B-op2", Io::Output);
  const Pairing& p = r.pairing;
  Summary s = summarize(
      p, {judged(p, 0, Verdict::Warning, 0.999, 0.01), judged(p, 1, Verdict::Error, 0.3, 4.0)});
  ASSERT_EQ(s.divergences().size(), 1u);
  EXPECT_EQ(s.divergences()[0].row, 2u);
  EXPECT_EQ(s.divergences()[0].inputs, 0u);
  EXPECT_NE(summary_text(s).find(
                "first divergence: row 2 B-op2 output 0: why 1; no input of it was dumped\n"),
            std::string::npos);
}

TEST(FirstDivergence, NoneWithoutAnErrorOutput) {
  Rows r;
  r.add(0, "A-op1", Io::Input);
  r.add(0, "A-op1", Io::Output);
  const Pairing& p = r.pairing;
  Summary s = summarize(
      p, {judged(p, 0, Verdict::Error, 0.5, 2.0), judged(p, 1, Verdict::Warning, 0.999, 0.01)});
  EXPECT_TRUE(s.divergences().empty());
  EXPECT_NE(summary_text(s).find("first divergence: none\n"), std::string::npos);
  EXPECT_TRUE(summary_json(s)["first_divergence"].empty());
}

TEST(FirstDivergence, OnePerDirectoryGroup) {
  Rows r(2);
  r.add(0, "A-op1", Io::Output);  // error: group 0's divergence
  r.add(0, "B-op2", Io::Output);  // error: not a second one
  r.add(1, "A-op1", Io::Output);  // pass
  r.add(1, "B-op2", Io::Output);  // error: group 1's divergence
  const Pairing& p = r.pairing;
  Summary s =
      summarize(p, {judged(p, 0, Verdict::Error, 0.5, 2.0), judged(p, 1, Verdict::Error, 0.5, 2.0),
                    judged(p, 2, Verdict::Pass), judged(p, 3, Verdict::Error, 0.5, 2.0)});
  ASSERT_EQ(s.divergences().size(), 2u);
  EXPECT_EQ(s.divergences()[0].group, 0u);
  EXPECT_EQ(s.divergences()[0].row, 1u);
  EXPECT_EQ(s.divergences()[1].group, 1u);
  EXPECT_EQ(s.divergences()[1].row, 4u);
  std::string text = summary_text(s);
  EXPECT_NE(text.find("first divergence (rank 0, iteration 0): row 1 A-op1 output 0: why 0;"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("first divergence (rank 1, iteration 0): row 4 B-op2 output 0: why 3;"),
            std::string::npos)
      << text;
}

TEST(FirstDivergence, OccurrencesAreSeparateOps) {
  Rows r;
  r.add(0, "A-op1", Io::Input, 0, Sides::Both, 0);
  r.add(0, "A-op1", Io::Output, 0, Sides::Both, 0);
  r.add(0, "A-op1", Io::Input, 0, Sides::Both, 1);   // the second run's input fails
  r.add(0, "A-op1", Io::Output, 0, Sides::Both, 1);  // so its output is not the divergence
  r.add(0, "A-op1", Io::Output, 0, Sides::Both, 2);  // third run: no input dumped, an error
  const Pairing& p = r.pairing;
  Summary s =
      summarize(p, {judged(p, 0, Verdict::Pass), judged(p, 1, Verdict::Pass),
                    judged(p, 2, Verdict::Error, 0.5, 2.0), judged(p, 3, Verdict::Error, 0.5, 2.0),
                    judged(p, 4, Verdict::Error, 0.5, 2.0)});
  ASSERT_EQ(s.divergences().size(), 1u);
  EXPECT_EQ(s.divergences()[0].row, 5u);
  EXPECT_EQ(s.divergences()[0].label, "A-op1 output 0 #3");
}

// --- advisor ------------------------------------------------------------------------------------

TEST(Advisor, AllAboveTheThresholdIsGlobalConsistencyNa) {
  Rows r;
  r.add(0, "A-op1", Io::Output);
  r.add(0, "B-op2", Io::Output);
  const Pairing& p = r.pairing;
  Advice a = summarize(p, {judged(p, 0, Verdict::Pass, 0.999), judged(p, 1, Verdict::Pass, 0.99)})
                 .advice();
  EXPECT_EQ(a.detection, "Global Consistency");
  EXPECT_FALSE(a.row);
  EXPECT_EQ(a.advice,
            "All data meets the accuracy requirements (cosine similarity of at least 0.99).");
}

TEST(Advisor, GlobalConsistencyByTheLastRowsCosine) {
  Rows r;
  r.add(0, "A-op1", Io::Output);
  r.add(0, "B-op2", Io::Output);
  r.add(0, "C-op3", Io::Output);
  const Pairing& p = r.pairing;
  // The first row below 0.99 is row 2; the last row is fine: deviation advice.
  Advice deviation =
      summarize(p, {judged(p, 0, Verdict::Pass, 0.999), judged(p, 1, Verdict::Warning, 0.95),
                    judged(p, 2, Verdict::Pass, 0.995)})
          .advice();
  EXPECT_EQ(deviation.detection, "Global Consistency");
  EXPECT_EQ(deviation.row, 2u);
  EXPECT_EQ(deviation.label, "B-op2 output 0");
  EXPECT_EQ(deviation.advice.rfind("Some tensors are below cosine 0.99 but the final output", 0),
            0u);
  // The last row below 0.99 too: the final output fails.
  Advice problem =
      summarize(p, {judged(p, 0, Verdict::Pass, 0.999), judged(p, 1, Verdict::Warning, 0.95),
                    judged(p, 2, Verdict::Warning, 0.98)})
          .advice();
  EXPECT_EQ(problem.row, 2u);
  EXPECT_EQ(problem.advice.rfind("The final output does not meet the accuracy requirements", 0),
            0u);
  // A row without a cosine (non-finite) is neither low nor the last cosine.
  Advice skip =
      summarize(p, {judged(p, 0, Verdict::Pass, 0.999), judged(p, 1, Verdict::Warning, 0.95),
                    judged(p, 2, Verdict::Warning, std::nullopt)})
          .advice();
  EXPECT_EQ(skip.advice.rfind("The final output does not meet", 0), 0u);
}

TEST(Advisor, InputInconsistentBeforeGlobalConsistency) {
  Rows r;
  r.add(0, "A-op1", Io::Output);                              // low cosine, not Data
  r.add(0, "x", Io::Output, 0, Sides::Both, 0, "Data");       // a Data op, cosine fine
  r.add(0, "labels", Io::Output, 0, Sides::Both, 0, "Data");  // a Data op, cosine low
  const Pairing& p = r.pairing;
  Advice a = summarize(p, {judged(p, 0, Verdict::Warning, 0.9), judged(p, 1, Verdict::Pass, 0.999),
                           judged(p, 2, Verdict::Warning, 0.95)})
                 .advice();
  EXPECT_EQ(a.detection, "Input Inconsistent");
  EXPECT_EQ(a.row, 3u);
  EXPECT_EQ(a.label, "labels output 0");
}

TEST(Advisor, OverflowWinsWhateverTheRowOrder) {
  Rows r;
  r.add(0, "labels", Io::Output, 0, Sides::Both, 0, "Data");  // input inconsistent, row 1
  r.add(0, "A-op1", Io::Output);                              // float16 +Inf on my side, row 2
  r.add(0, "B-op2", Io::Output);                              // float32 NaN on my side, row 3
  const Pairing& p = r.pairing;
  ComparedRow f16 = judged(p, 1, Verdict::Error, std::nullopt, std::nullopt, DType::Float16);
  f16.metrics->my.pos_inf = 1;
  ComparedRow f32 = judged(p, 2, Verdict::Error, std::nullopt, std::nullopt);
  f32.metrics->my.nan = 2;
  Advice a = summarize(p, {judged(p, 0, Verdict::Warning, 0.5), f16, f32}).advice();
  EXPECT_EQ(a.detection, "FP16 Overflow");
  EXPECT_EQ(a.row, 2u);
  EXPECT_EQ(a.advice,
            "Float16 data overflow occurs. Rectify the fault and perform comparison again.");

  // Without the float16 row: the float32 NaN is the overflow detection, for any dtype (§11.2).
  Advice b = summarize(p, {judged(p, 0, Verdict::Warning, 0.5), f32}).advice();
  EXPECT_EQ(b.detection, "Overflow");
  EXPECT_EQ(b.row, 3u);
  EXPECT_NE(b.advice.find("float32"), std::string::npos) << b.advice;

  // float16 reaching 65504 without Inf overflows too (msaccucmp's YES, §8.2).
  ComparedRow max16 = judged(p, 1, Verdict::Pass, 1.0, 0.0, DType::Float16);
  max16.metrics->my.max = 65504.0;
  Advice c = summarize(p, {judged(p, 0, Verdict::Warning, 0.5), max16}).advice();
  EXPECT_EQ(c.detection, "FP16 Overflow");
  EXPECT_EQ(c.row, 2u);
}

TEST(Advisor, GoldenNonFiniteAloneIsNoOverflow) {
  Rows r;
  r.add(0, "A-op1", Io::Output, 0, Sides::GoldenOnly);
  r.add(0, "B-op2", Io::Output);
  const Pairing& p = r.pairing;
  ComparedRow golden_nan = judged(p, 1, Verdict::Error, std::nullopt, std::nullopt);
  golden_nan.metrics->golden.nan = 3;
  Advice a = summarize(p, {judged(p, 0, Verdict::Unmatched), golden_nan}).advice();
  EXPECT_EQ(a.detection, "Global Consistency");
  EXPECT_FALSE(a.row);
}

TEST(Advisor, SummaryTextAndJsonSayTheSame) {
  Rows r;
  r.add(0, "A-op1", Io::Output);
  const Pairing& p = r.pairing;
  Summary s = summarize(p, {judged(p, 0, Verdict::Warning, 0.95)});
  std::string text = summary_text(s);
  EXPECT_NE(text.find("advisor:\n  Detection Type: Global Consistency\n  Operator Index: 1 (A-op1 "
                      "output 0)\n  Expert Advice: The final output"),
            std::string::npos)
      << text;
  nlohmann::json j = summary_json(s);
  EXPECT_EQ(j["advisor"]["detection_type"], "Global Consistency");
  EXPECT_EQ(j["advisor"]["operator_index"], 1);
  EXPECT_EQ(j["advisor"]["tensor"], "A-op1 output 0");
}

// --- counts, worst rows, plot points ------------------------------------------------------------

TEST(Summary, WorstRowsByVerdictCosineThenMaxAbsErr) {
  Rows r;
  for (int i = 0; i < 7; ++i) r.add(0, "Op-op" + std::to_string(i), Io::Output);
  const Pairing& p = r.pairing;
  Summary s =
      summarize(p,
                {judged(p, 0, Verdict::Warning, 0.98, 0.01),
                 judged(p, 1, Verdict::Error, 0.95, 2.0), judged(p, 2, Verdict::Error, 0.95, 5.0),
                 judged(p, 3, Verdict::Unmatched), judged(p, 4, Verdict::Error, 0.5, 0.1),
                 judged(p, 5, Verdict::Pass), judged(p, 6, Verdict::Error, 0.95, 5.0)},
                4);
  nlohmann::json j = summary_json(s);
  std::vector<int> order;
  for (const auto& w : j["worst"]) order.push_back(w["row"]);
  // Errors by cosine (0.5 first), equal cosines by MaxAbsErr (5 before 2), equal both by row.
  EXPECT_EQ(order, (std::vector<int>{5, 3, 7, 2}));
  EXPECT_EQ(j["rows"], 7);
  EXPECT_EQ(j["verdicts"]["error"], 4);
  EXPECT_EQ(j["verdicts"]["warning"], 1);
  EXPECT_EQ(j["verdicts"]["unmatched"], 1);
  EXPECT_EQ(j["verdicts"]["pass"], 1);
  EXPECT_EQ(j["verdicts"]["skipped"], 0);
  // Text: the table of the same rows under "worst rows:".
  std::string text = summary_text(s);
  EXPECT_NE(text.find("worst rows:\n  row  tensor"), std::string::npos) << text;
  std::string worst = text.substr(text.find("worst rows:"));
  worst = worst.substr(0, worst.find("advisor:"));
  EXPECT_EQ(worst.find("Op-op0 output 0"), std::string::npos) << text;  // the warning is 5th
}

TEST(Summary, ReasonsCountedOncePerRow) {
  Rows r;
  r.add(0, "A-op1", Io::Output);
  r.add(0, "B-op2", Io::Output);
  r.add(0, "C-op3", Io::Output);
  const Pairing& p = r.pairing;
  ComparedRow size = judged(p, 0, Verdict::Error);
  size.metrics->pair_reason = Reason::SizeMismatch;
  ComparedRow scalar = judged(p, 1, Verdict::Pass);
  scalar.metrics->cosine = Metric::absent(Reason::Scalar);
  scalar.metrics->mp_cosine = Metric::absent(Reason::LengthOne);
  scalar.metrics->kl_divergence = Metric::absent(Reason::NotSelected);  // never counted
  ComparedRow nonfinite = judged(p, 2, Verdict::Error, std::nullopt, std::nullopt);
  Summary s = summarize(p, {size, scalar, nonfinite});
  EXPECT_EQ(s.reasons(),
            (std::map<std::string, uint64_t>{
                {"size mismatch", 1}, {"scalar", 1}, {"length 1", 1}, {"non-finite", 1}}));
  EXPECT_NE(summary_text(s).find("reasons: length 1 1, non-finite 1, scalar 1, size mismatch 1\n"),
            std::string::npos);
}

TEST(Summary, PlotPointsAreTheTensorOutputs) {
  Rows r;
  r.add(0, "A-op1", Io::Input);
  r.add(0, "A-op1", Io::Output);
  r.add(0, "B-op2", Io::Output);                      // statistics only: no point
  r.add(0, "C-op3", Io::Output, 0, Sides::MineOnly);  // unmatched: no point
  r.add(0, "D-op4", Io::Output);
  const Pairing& p = r.pairing;
  ComparedRow stats = judged(p, 2, Verdict::Pass);
  stats.metrics->pair_reason = Reason::StatisticsOnly;
  Summary s =
      summarize(p, {judged(p, 0, Verdict::Pass), judged(p, 1, Verdict::Pass, 0.999), stats,
                    judged(p, 3, Verdict::Unmatched), judged(p, 4, Verdict::Warning, 0.98)});
  ASSERT_EQ(s.plot_rows().size(), 2u);
  EXPECT_EQ(s.plot_rows()[0].ordinal, 1u);
  EXPECT_EQ(s.plot_rows()[0].cosine, 0.999);
  EXPECT_EQ(s.plot_rows()[1].ordinal, 2u);
  EXPECT_EQ(s.plot_rows()[1].cosine, 0.98);
  EXPECT_EQ(s.plot_rows()[1].max_relative_err, 0.125);
  auto png = plot_divergence(s, default_thresholds());
  ASSERT_TRUE(png) << png.error().describe();
  EXPECT_EQ(png->substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));

  Rows none;
  none.add(0, "A-op1", Io::Input);
  Summary empty = summarize(none.pairing, {judged(none.pairing, 0, Verdict::Pass)});
  auto nothing = plot_divergence(empty, default_thresholds());
  ASSERT_FALSE(nothing);
  EXPECT_EQ(nothing.error().describe(), "no output tensor was compared: nothing to plot");
}

// --- our rows -----------------------------------------------------------------------------------

TEST(RowRecord, OneCellPerSchemaField) {
  Rows r;
  r.add(0, "Default/A-op1", Io::Output);
  r.add(0, "B-op2", Io::Input, 1, Sides::GoldenOnly, 1);
  const Pairing& p = r.pairing;
  const table::Schema& schema = row_schema();
  EXPECT_EQ(schema.fields().size(), 62u);
  EXPECT_EQ(schema.fields().front(), "row");
  EXPECT_EQ(schema.fields().back(), "reasons");
  EXPECT_EQ(row_text_schema().fields(), schema.fields());
  EXPECT_EQ(row_text_schema().columns().size(), 10u);

  ComparedRow full = judged(p, 0, Verdict::Error, 0.5, 2.0);
  full.mine.shape = full.golden.shape = {2, 2};
  full.mine.shape_known = full.golden.shape_known = true;
  table::Record record = row_record(p, full);
  ASSERT_EQ(record.size(), schema.fields().size());
  auto at = [&](const table::Record& rec, const std::string& field) -> const table::Cell& {
    auto it = std::find(schema.fields().begin(), schema.fields().end(), field);
    return rec.at(static_cast<size_t>(it - schema.fields().begin()));
  };
  EXPECT_EQ(std::get<uint64_t>(at(record, "row")), 1u);
  EXPECT_EQ(std::get<uint64_t>(at(record, "rank")), 0u);
  EXPECT_EQ(std::get<std::string>(at(record, "op")), "Default/A-op1");
  EXPECT_EQ(std::get<std::string>(at(record, "io")), "output");
  EXPECT_EQ(std::get<table::Composite>(at(record, "my_shape")).text, "2x2");
  EXPECT_EQ(std::get<double>(at(record, "cosine")), 0.5);
  EXPECT_EQ(std::get<std::string>(at(record, "source")), "tensors");
  EXPECT_EQ(std::get<std::string>(at(record, "verdict")), "error");
  EXPECT_EQ(std::get<std::string>(at(record, "why")), "why 0");
  EXPECT_TRUE(std::holds_alternative<std::monostate>(at(record, "my_format")));

  table::Record unmatched = row_record(p, judged(p, 1, Verdict::Unmatched));
  ASSERT_EQ(unmatched.size(), schema.fields().size());
  // `op` names the tensor the row is about: the golden op of a golden-only row.
  EXPECT_EQ(std::get<std::string>(at(unmatched, "op")), "B-op2");
  EXPECT_EQ(std::get<std::string>(at(unmatched, "golden_op")), "B-op2");
  EXPECT_EQ(std::get<uint64_t>(at(unmatched, "slot")), 1u);
  EXPECT_EQ(std::get<uint64_t>(at(unmatched, "occurrence")), 1u);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(at(unmatched, "cosine")));
  EXPECT_TRUE(std::holds_alternative<std::monostate>(at(unmatched, "source")));
  EXPECT_EQ(std::get<std::string>(at(unmatched, "verdict")), "unmatched");
}

TEST(RowRecord, TableKeepsOnlyTheVerdictsAsked) {
  Rows r;
  r.add(0, "A-op1", Io::Output);
  r.add(0, "B-op2", Io::Output);
  r.add(0, "C-op3", Io::Output);
  const Pairing& p = r.pairing;
  std::ostringstream out;
  auto sink = table::make_sink(table::Format::Csv, row_schema(), false, out);
  RowTable rows(p, *sink, {Verdict::Error, Verdict::Unmatched});
  rows.row(judged(p, 0, Verdict::Pass));
  rows.row(judged(p, 1, Verdict::Error, 0.5, 2.0));
  rows.row(judged(p, 2, Verdict::Warning, 0.98));
  sink->finish();
  const std::string text = out.str();
  EXPECT_EQ(text.rfind("2,0,,,0,Op,B-op2,B-op2,output,0,0,", 0), 0u) << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << text;
}

TEST(RowLabel, OpIoSlotAndOccurrence) {
  Rows r;
  r.add(0, "Default/A-op1", Io::Input, 2, Sides::Both, 0);
  r.add(0, "Default/A-op1", Io::Output, 0, Sides::GoldenOnly, 3);
  const Pairing& p = r.pairing;
  EXPECT_EQ(row_label(judged(p, 0, Verdict::Pass)), "Default/A-op1 input 2");
  EXPECT_EQ(row_label(judged(p, 1, Verdict::Unmatched)), "Default/A-op1 output 0 #4");
  EXPECT_EQ(op_key(judged(p, 0, Verdict::Pass)).name, "Default_A-op1");
  EXPECT_EQ(op_key(judged(p, 1, Verdict::Unmatched)).occurrence, 3u);
  EXPECT_EQ(row_io(judged(p, 1, Verdict::Unmatched)), Io::Output);
}

TEST(JsonHeader, InputsOptionsThresholdsAndCounts) {
  RunDescription run;
  run.mine = "a";
  run.golden = "b";
  run.options.metrics.nan = NanPolicy::Mask;
  auto algorithms = Algorithms::parse("9,0");
  ASSERT_TRUE(algorithms);
  run.options.metrics.algorithms = *algorithms;
  auto setting = parse_threshold("MaxAbsErr=0.01,0.1");
  ASSERT_TRUE(setting);
  run.options.thresholds.push_back(*setting);
  run.counts.pairs = 5;
  run.counts.only_golden = 2;
  run.rows = 7;
  run.fail_on = {"warning"};
  nlohmann::ordered_json h = nlohmann::ordered_json::parse(json_header(run))["header"];
  EXPECT_EQ(h["tool"], "dump-compare");
  EXPECT_EQ(h["mine"], "a");
  EXPECT_EQ(h["nan_policy"], "mask");
  EXPECT_EQ(h["algorithms"], nlohmann::ordered_json({"MeanRelativeError", "CosineSimilarity"}));
  EXPECT_EQ(h["preset"], "default");
  EXPECT_EQ(h["thresholds"]["MaxAbsErr"]["warning"], 0.01);
  EXPECT_EQ(h["thresholds"]["MaxAbsErr"]["error"], 0.1);
  EXPECT_EQ(h["thresholds"]["Cosine"]["error"], 0.9);
  EXPECT_EQ(h["joint_error"], nlohmann::ordered_json({"Cosine", "MaxAbsErr"}));
  EXPECT_EQ(h["fail_on"], nlohmann::ordered_json({"warning"}));
  EXPECT_EQ(h["pairs"], 5);
  EXPECT_EQ(h["only_golden"], 2);
  EXPECT_EQ(h["rows"], 7);
  EXPECT_EQ(json_header(run).find('\n'), std::string::npos);  // one JSON Lines record
}

// --- the peers' files ---------------------------------------------------------------------------

TEST(PeerFiles, HeadersFollowTheSources) {
  Rows npy;
  npy.add(0, "A-op1", Io::Output);
  std::ostringstream a;
  MsaccucmpCsv csv(npy.pairing, a, Algorithms::all(), false);
  EXPECT_EQ(a.str().substr(0, a.str().find('\n')),
            "Index,OpType,NPUDump,DataType,GroundTruth,DataType,TensorIndex,Shape,"
            "CosineSimilarity,MaxAbsoluteError,AccumulatedRelativeError,RelativeEuclideanDistance,"
            "KullbackLeiblerDivergence,StandardDeviation,MeanAbsoluteError,RootMeanSquareError,"
            "MaxRelativeError,MeanRelativeError,CompareFailReason");

  // My side from DumpData containers: my Address column; OverFlow when asked.
  Rows container;
  container.add(0, "A-op1", Io::Output);
  container.pairing.rows[0].mine->source = TensorRef::Source::ContainerSlot;
  std::ostringstream b;
  auto algorithms = Algorithms::parse("1");
  ASSERT_TRUE(algorithms);
  MsaccucmpCsv with_address(container.pairing, b, *algorithms, true);
  EXPECT_EQ(b.str(),
            "Index,OpType,NPUDump,DataType,Address,GroundTruth,DataType,TensorIndex,Shape,OverFlow,"
            "MaxAbsoluteError,CompareFailReason\n");

  // msprobe: statistics mode as soon as a side is a statistic.csv row.
  std::ostringstream c, d;
  MsprobeCsv npy_mode(npy.pairing, c);
  EXPECT_NE(c.str().find(",Cosine,EucDist,MaxAbsErr,"), std::string::npos) << c.str();
  Rows stats;
  stats.add(0, "A-op1", Io::Output);
  stats.pairing.rows[0].golden->source = TensorRef::Source::StatisticRow;
  MsprobeCsv statistics_mode(stats.pairing, d);
  EXPECT_NE(d.str().find(",Max diff,Min diff,"), std::string::npos) << d.str();
  EXPECT_NE(d.str().find("NPU CSV File,Bench CSV File\n"), std::string::npos) << d.str();
}

}  // namespace
}  // namespace msdt::compare
