// Feeds the input as a whole summary file to the record reader and the event decoder (spec
// summary.md §3, §12): damaged framing, resync, truncated tails and garbage payloads. Rejections
// are normal; a crash, a hang or an unbounded allocation is not. The file is also read in small
// chunks on two threads (each chunk from where its first record looks like it starts, checked
// against the chunk before), by events and by a part that takes runs: whatever the input, that
// must give what reading it in one go gave, or the target stops.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "summary/reader.h"

namespace {

using msdt::summary::Event;
using msdt::summary::EventPart;
using msdt::summary::EventRun;

std::string line_of(const Event& e) {
  std::string line = std::to_string(e.step.value_or(-1)) + " " + std::to_string(e.offset);
  for (const auto& v : e.values) line += " " + v.tag;
  return line;
}

// The steps a part counts (the rest of the file's events may reach it, to be ignored).
struct StepRange {
  int64_t first = 0, last = 0;
  bool holds(int64_t step) const { return step >= first && step <= last; }
  bool holds(const std::string& line) const {  // a line_of() or "(in a run)"
    return line[0] == '(' || holds(std::strtoll(line.c_str(), nullptr, 10));
  }
};

// The events a part was given, a run standing for its count of events (the last one's line).
struct CountingPart final : EventPart {
  CountingPart(std::vector<std::string>& merged, StepRange steps)
      : merged_(merged), steps_(steps) {}
  void event(const Event& e) override {
    if (e.step && steps_.holds(*e.step)) lines_.push_back(line_of(e));
  }
  bool takes_runs() const override { return true; }
  bool counts_step(int64_t step) const override { return steps_.holds(step); }
  void run(const Event& last, const EventRun& run) override {
    for (uint64_t i = 1; i < run.count; ++i) lines_.emplace_back("(in a run)");
    lines_.push_back(line_of(last));
  }
  void merge() override { merged_.insert(merged_.end(), lines_.begin(), lines_.end()); }
  std::vector<std::string>& merged_;
  StepRange steps_;
  std::vector<std::string> lines_;
};

std::vector<std::string> read_all(msdt::Bytes file, msdt::summary::FileKind kind, bool verify,
                                  unsigned jobs, uint64_t chunk_bytes, bool parts,
                                  StepRange steps = {}) {
  msdt::summary::FileReader reader(kind);
  msdt::summary::ReadOptions options;
  options.record.verify = verify;
  options.record.max_length = 1 << 20;
  options.jobs = jobs;
  options.chunk_bytes = chunk_bytes;
  std::vector<std::string> lines, merged;
  msdt::summary::ReadCallbacks callbacks;
  if (parts)
    callbacks.part = [&] { return std::make_unique<CountingPart>(merged, steps); };
  else
    callbacks.event = [&](const Event& e) { lines.push_back(line_of(e)); };
  callbacks.error = [&](const msdt::Error& e) { lines.push_back("error " + e.describe()); };
  callbacks.truncated = [&](const msdt::Error& e) { lines.push_back("tail " + e.describe()); };
  reader.read(file, options, callbacks);
  if (!parts) return lines;
  // The events (in runs or not) and, apart, the problems, which reach the calling thread.
  merged.insert(merged.end(), lines.begin(), lines.end());
  return merged;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  msdt::Bytes file(reinterpret_cast<const std::byte*>(data), size);
  const uint64_t chunk_bytes = size ? 1 + data[0] % 97 : 1;
  // Steps 0 to 255, or a range of them the input's second and third bytes choose.
  StepRange steps{0, 255};
  if (size > 2) steps = {std::min(data[1], data[2]), std::max(data[1], data[2])};
  for (auto kind : {msdt::summary::FileKind::Summary, msdt::summary::FileKind::TfEvents,
                    msdt::summary::FileKind::Lineage}) {
    for (bool verify : {true, false}) {
      std::vector<std::string> whole = read_all(file, kind, verify, 1, 0, false);
      if (kind != msdt::summary::FileKind::Summary) continue;
      if (read_all(file, kind, verify, 2, chunk_bytes, false) != whole) std::abort();
      // By a part: the same events in its step range in the same order (a run's but its last
      // unseen), the problems after them.
      std::vector<std::string> events, problems;
      for (const std::string& line : whole) {
        if (line.rfind("error ", 0) == 0 || line.rfind("tail ", 0) == 0)
          problems.push_back(line);
        else if (line[0] != '-' && steps.holds(line))
          events.push_back(line);
      }
      std::vector<std::string> by_part = read_all(file, kind, verify, 2, chunk_bytes, true, steps);
      if (by_part.size() != events.size() + problems.size()) std::abort();
      for (size_t i = 0; i < events.size(); ++i)
        if (by_part[i] != events[i] && by_part[i] != "(in a run)") std::abort();
      for (size_t i = 0; i < problems.size(); ++i)
        if (by_part[events.size() + i] != problems[i]) std::abort();
    }
  }
  return 0;
}
