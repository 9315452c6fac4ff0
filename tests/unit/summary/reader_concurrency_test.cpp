// FileReader: records read in chunks on several threads, each chunk from where its first record
// looks like it starts, yet every event, damaged record and truncated tail reaches the callbacks
// in file order, the same with any number of threads and any chunk size, whole or read in pieces
// as a followed file is; parts that take runs of events of one shape count what the events hold.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <bit>
#include <memory>
#include <string>
#include <vector>

#include "summary/reader.h"
#include "support/proto_writer.h"
#include "support/summary_frame.h"

namespace msdt::summary {
namespace {

using msdt::testing::ProtoWriter;

using msdt::testing::bytes_of;
using msdt::testing::frame;

std::string payload_text(const ProtoWriter& w) {
  Bytes b = w.data();
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

// A MindSpore summary file of `steps` events with three scalars each, after the version record,
// damaged on purpose: a payload byte of step 1000 (data CRC), a length byte of step 3000
// (length CRC: resync), step 4000 a sound record that is no event, and a cut last record.
std::string damaged_file(int steps) {
  ProtoWriter version;
  version.fixed64(1, std::bit_cast<uint64_t>(1.0)).string(3, "MindSpore.Event:1");
  std::string file = frame(payload_text(version));
  for (int step = 1; step <= steps; ++step) {
    std::string record;
    if (step == 4000) {
      record = frame("\xff\xff\xff");
    } else {
      ProtoWriter summary;
      for (const char* tag : {"loss", "accuracy", "learning_rate"}) {
        ProtoWriter value;
        value.string(1, tag).fixed32(3, std::bit_cast<uint32_t>(static_cast<float>(step) / 7));
        summary.message(1, value);
      }
      ProtoWriter event;
      event.fixed64(1, std::bit_cast<uint64_t>(1700000000.0 + step))
          .varint(2, static_cast<uint64_t>(step))
          .message(5, summary);
      record = frame(payload_text(event));
    }
    if (step == 1000) record[14] ^= 0x40;
    if (step == 3000) record[1] ^= 0x01;
    if (step == steps) record.resize(record.size() - 5);
    file += record;
  }
  return file;
}

// What the callbacks saw, one line each, in order.
struct Log {
  std::vector<std::string> lines;
  ReadCallbacks callbacks() {
    ReadCallbacks c;
    c.event = [this](const Event& e) {
      std::string line = fmt::format("event {:#x} step {}", e.offset, e.step.value_or(-1));
      for (const Value& v : e.values) line += fmt::format(" {}={}", v.tag, v.scalar);
      lines.push_back(line);
    };
    c.error = [this](const Error& e) { lines.push_back("error " + e.describe()); };
    c.truncated = [this](const Error& e) { lines.push_back("truncated " + e.describe()); };
    return c;
  }
};

Log read_whole(const std::string& file, unsigned jobs, uint64_t* records = nullptr,
               uint64_t chunk_bytes = 0) {
  FileReader reader(FileKind::Summary);
  ReadOptions options;
  options.jobs = jobs;
  options.chunk_bytes = chunk_bytes;
  Log log;
  reader.read(bytes_of(file), options, log.callbacks());
  if (records) *records = reader.records();
  return log;
}

TEST(FileReader, AnyNumberOfThreadsGivesTheSameCallbacksInFileOrder) {
  // 60 000 records (about 3.5 MB): several chunks of the default size, many of 4 KiB.
  const int steps = 60000;
  std::string file = damaged_file(steps);
  uint64_t records_serial = 0;
  Log serial = read_whole(file, 1, &records_serial);

  // What the serial reading saw: every event but the four damaged steps, the version record, the
  // three problems where they lie, and the cut tail last.
  ASSERT_EQ(serial.lines.size(), 1u + (steps - 4) + 3 + 1);
  EXPECT_EQ(records_serial, 1u + (steps - 4) + 1);  // the undecodable record is intact
  std::vector<std::string> problems;
  for (const std::string& line : serial.lines)
    if (line.rfind("event", 0) != 0) problems.push_back(line);
  ASSERT_EQ(problems.size(), 4u);
  EXPECT_NE(problems[0].find("data CRC mismatch"), std::string::npos) << problems[0];
  EXPECT_NE(problems[1].find("length CRC mismatch"), std::string::npos) << problems[1];
  EXPECT_NE(problems[2].find("record skipped"), std::string::npos) << problems[2];
  EXPECT_EQ(problems[3].rfind("truncated", 0), 0u) << problems[3];
  // Steps rise through the file.
  int64_t last = 0;
  for (const std::string& line : serial.lines) {
    long long step = 0;
    if (std::sscanf(line.c_str(), "event %*s step %lld", &step) != 1 || step < 0) continue;
    EXPECT_GT(step, last) << line;
    last = step;
  }
  EXPECT_EQ(last, steps - 1);

  for (unsigned jobs : {1u, 2u, 3u, 8u}) {
    for (uint64_t chunk_bytes : {uint64_t{0}, uint64_t{4096}}) {
      if (jobs == 1 && chunk_bytes == 0) continue;
      uint64_t records = 0;
      Log parallel = read_whole(file, jobs, &records, chunk_bytes);
      EXPECT_EQ(parallel.lines, serial.lines) << jobs << " threads, chunks of " << chunk_bytes;
      EXPECT_EQ(records, records_serial) << jobs << " threads, chunks of " << chunk_bytes;
    }
  }
  // Chunks smaller than a record (most of them empty), on a shorter file with the same damage.
  std::string short_file = damaged_file(5000);
  Log short_serial = read_whole(short_file, 1);
  ASSERT_EQ(short_serial.lines.size(), 1u + (5000 - 4) + 3 + 1);
  for (unsigned jobs : {1u, 3u})
    for (uint64_t chunk_bytes : {uint64_t{7}, uint64_t{100}})
      EXPECT_EQ(read_whole(short_file, jobs, nullptr, chunk_bytes).lines, short_serial.lines)
          << jobs << " threads, chunks of " << chunk_bytes;
}

// Parts see the events on the reading threads, each once, and their merges come in file order:
// the lines they gather equal the event lines of the plain reading, with any number of threads,
// alone or with the events also handed to the calling thread.
TEST(FileReader, PartsSeeEveryEventOnceAndMergeInFileOrder) {
  std::string file = damaged_file(30000);
  Log serial = read_whole(file, 1);
  std::vector<std::string> events;
  for (const std::string& line : serial.lines)
    if (line.rfind("event", 0) == 0) events.push_back(line);

  struct LinePart final : EventPart {
    explicit LinePart(std::vector<std::string>& merged) : merged_(merged) {}
    void event(const Event& e) override {
      std::string line = fmt::format("event {:#x} step {}", e.offset, e.step.value_or(-1));
      for (const Value& v : e.values) line += fmt::format(" {}={}", v.tag, v.scalar);
      lines_.push_back(line);
    }
    void merge() override { merged_.insert(merged_.end(), lines_.begin(), lines_.end()); }
    std::vector<std::string>& merged_;
    std::vector<std::string> lines_;
  };
  for (unsigned jobs : {1u, 2u, 8u}) {
    for (bool also_events : {false, true}) {
      FileReader reader(FileKind::Summary);
      ReadOptions options;
      options.jobs = jobs;
      Log log;
      ReadCallbacks callbacks = log.callbacks();
      if (!also_events) callbacks.event = nullptr;
      std::vector<std::string> merged;
      callbacks.part = [&] { return std::make_unique<LinePart>(merged); };
      reader.read(bytes_of(file), options, callbacks);
      EXPECT_EQ(merged, events) << jobs << " threads, events too: " << also_events;
      std::vector<std::string> shipped;
      for (const std::string& line : log.lines)
        if (line.rfind("event", 0) == 0) shipped.push_back(line);
      EXPECT_EQ(shipped, also_events ? events : std::vector<std::string>{});
      EXPECT_EQ(log.lines.size() - shipped.size(), 4u);  // the three problems and the cut tail
    }
  }
}

TEST(FileReader, ReadingAGrowingFileInPiecesGivesTheWholeReading) {
  std::string file = damaged_file(20000);
  Log whole = read_whole(file, 4);
  // The file seen at several sizes, as --follow sees it: a partial record is left for later.
  FileReader reader(FileKind::Summary);
  ReadOptions options;
  options.jobs = 4;
  Log pieces;
  for (size_t size : {size_t{11}, size_t{5000}, size_t{5001}, file.size() / 2, file.size()})
    reader.read(bytes_of(file).first(size), options, pieces.callbacks(), size != file.size());
  EXPECT_EQ(pieces.lines, whole.lines);
}

TEST(FileReader, DoneBeforeFollowsTheDeliveredEvents) {
  std::string file = damaged_file(20000);
  FileReader reader(FileKind::Summary);
  ReadOptions options;
  options.jobs = 3;
  uint64_t last_event = 0, done = 0;
  bool behind = false;
  ReadCallbacks c;
  c.event = [&](const Event& e) {
    behind = behind || e.offset < done;  // an event before bytes said to be done with
    last_event = e.offset;
  };
  c.done_before = [&](uint64_t offset) {
    EXPECT_GE(offset, done);
    EXPECT_GT(offset, last_event);
    done = offset;
  };
  reader.read(bytes_of(file), options, c);
  EXPECT_FALSE(behind);
  EXPECT_EQ(done, reader.offset());
  EXPECT_EQ(reader.offset() + reader.pending(), file.size());
}

// The scalar events of `tags` at `step`, as a payload.
std::string scalar_event(uint64_t step, const std::vector<std::string>& tags, bool extra = false) {
  ProtoWriter summary;
  for (const std::string& tag : tags) {
    ProtoWriter value;
    value.string(1, tag).fixed32(3, std::bit_cast<uint32_t>(static_cast<float>(step) / 3));
    summary.message(1, value);
  }
  ProtoWriter event;
  event.fixed64(1, std::bit_cast<uint64_t>(1700000000.0 + static_cast<double>(step)))
      .varint(2, step)
      .message(5, summary);
  if (extra) event.varint(99, 1);  // an unknown field: decodes alike, not the common shape
  return payload_text(event);
}

// Events of changing shapes: three tags; four every 50th step; every 70th step a value with an
// unknown field; the steps crossing varint widths (127/128, 16383/16384) and going back once
// (a restarted training), with damaged records among them.
std::string changing_file(int steps, bool damaged = true) {
  ProtoWriter version;
  version.fixed64(1, std::bit_cast<uint64_t>(1.0)).string(3, "MindSpore.Event:1");
  std::string file = frame(payload_text(version));
  for (int i = 1; i <= steps; ++i) {
    uint64_t step = i < 15000 ? static_cast<uint64_t>(i) : static_cast<uint64_t>(i) + 1000;
    if (i >= 9000 && i < 9100) step = static_cast<uint64_t>(i) - 5000;  // back, then on
    std::vector<std::string> tags{"loss", "accuracy", "learning_rate"};
    if (i % 50 == 0) tags.push_back("grad_norm");
    std::string record = frame(scalar_event(step, tags, i % 70 == 0));
    if (damaged && i == 7777) record[20] ^= 0x40;  // data CRC
    if (damaged && i == 8888) record[2] ^= 0x01;   // length CRC: resync
    file += record;
  }
  return file;
}

// A part that takes runs, and what it was given, in order: "event <line>" or
// "run <count> <first step> <steps back> <line of the last>".
struct RunPart final : EventPart {
  RunPart(std::vector<std::string>& merged, std::pair<int64_t, int64_t> steps)
      : merged_(merged), steps_(steps) {}
  static std::string line(const Event& e) {
    std::string line = fmt::format("event {:#x} step {}", e.offset, e.step.value_or(-1));
    for (const Value& v : e.values) line += fmt::format(" {}={}", v.tag, v.scalar);
    return line;
  }
  void event(const Event& e) override { lines_.push_back(line(e)); }
  bool takes_runs() const override { return true; }
  bool counts_step(int64_t step) const override {
    return step >= steps_.first && step <= steps_.second;
  }
  void run(const Event& last, const EventRun& run) override {
    lines_.push_back(fmt::format("run {} {} {} {}", run.count, run.first_step.value_or(-1),
                                 run.steps_back, line(last)));
  }
  void merge() override { merged_.insert(merged_.end(), lines_.begin(), lines_.end()); }
  std::vector<std::string>& merged_;
  std::pair<int64_t, int64_t> steps_;
  std::vector<std::string> lines_;
};

// Every run stands for events of the plain reading in order: as many, the first's step, the
// steps going back among them, the last one's line; the events not in runs are given as such.
// With a step range, runs hold only events in it (the others may reach event(), to be ignored).
TEST(FileReader, RunsStandForTheEventsTheyCount) {
  const std::string file = changing_file(20000);
  auto step_of = [](const std::string& line) {
    long long step = -2;
    return std::sscanf(line.c_str(), "event %*s step %lld", &step) == 1 ? step : -2;
  };
  std::vector<std::string> all_events;
  for (const std::string& line : read_whole(file, 1).lines)
    if (step_of(line) != -2) all_events.push_back(line);
  ASSERT_EQ(all_events.size(), 1u + 20000 - 2);  // the version record; two damaged records
  for (auto range : {std::pair<int64_t, int64_t>{-1, INT64_MAX}, {4050, 12000}}) {
    std::vector<std::string> events;
    std::vector<int64_t> steps;
    for (const std::string& line : all_events)
      if (step_of(line) >= range.first && step_of(line) <= range.second) {
        events.push_back(line);
        steps.push_back(step_of(line));
      }
    for (unsigned jobs : {1u, 2u, 5u}) {
      for (uint64_t chunk_bytes : {uint64_t{0}, uint64_t{4096}, uint64_t{300}}) {
        FileReader reader(FileKind::Summary);
        ReadOptions options;
        options.jobs = jobs;
        options.chunk_bytes = chunk_bytes;
        std::vector<std::string> merged;
        Log problems;
        ReadCallbacks callbacks = problems.callbacks();
        callbacks.event = nullptr;
        callbacks.part = [&] { return std::make_unique<RunPart>(merged, range); };
        reader.read(bytes_of(file), options, callbacks);
        EXPECT_EQ(problems.lines.size(), 2u);
        const std::string where = fmt::format("{} threads, chunks of {}, steps {}-{}", jobs,
                                              chunk_bytes, range.first, range.second);
        size_t k = 0, in_runs = 0;
        for (const std::string& item : merged) {
          if (item.rfind("event ", 0) == 0 &&
              (step_of(item) < range.first || step_of(item) > range.second))
            continue;  // decoded, given, not counted by the part
          ASSERT_LT(k, events.size()) << where;
          if (item.rfind("event ", 0) == 0) {
            ASSERT_EQ(item, events[k]) << where;
            ++k;
            continue;
          }
          unsigned long long count = 0, back = 0;
          long long first = 0;
          int used = 0;
          ASSERT_EQ(
              std::sscanf(item.c_str(), "run %llu %lld %llu %n", &count, &first, &back, &used), 3)
              << item;
          ASSERT_GE(count, 1u);
          ASSERT_LE(k + count, events.size()) << where;
          // The event before the run is of its shape (the part saw its tags' first values).
          ASSERT_GT(k, 0u);
          EXPECT_EQ(first, steps[k]) << where << ": " << item;
          uint64_t expected_back = 0;
          for (size_t j = k + 1; j < k + count; ++j) expected_back += steps[j] < steps[j - 1];
          EXPECT_EQ(back, expected_back) << where << ": " << item;
          EXPECT_EQ(item.substr(static_cast<size_t>(used)), events[k + count - 1]) << where;
          k += count;
          in_runs += count;
        }
        EXPECT_EQ(k, events.size()) << where;
        EXPECT_EQ(reader.records(), all_events.size()) << where;  // the intact records
        // Most events are counted in runs, not decoded.
        EXPECT_GT(in_runs, events.size() / 2) << where;
      }
    }
  }
}

// Without CRC checks a run is counted alike: the same runs and events as with them.
TEST(FileReader, RunsWithoutCrcChecksAreTheSame) {
  const std::string file = changing_file(20000, false);
  auto runs = [&](bool verify, unsigned jobs) {
    FileReader reader(FileKind::Summary);
    ReadOptions options;
    options.jobs = jobs;
    options.record.verify = verify;
    std::vector<std::string> merged;
    Log problems;
    ReadCallbacks callbacks = problems.callbacks();
    callbacks.event = nullptr;
    callbacks.part = [&] {
      return std::make_unique<RunPart>(merged, std::pair<int64_t, int64_t>{-1, INT64_MAX});
    };
    reader.read(bytes_of(file), options, callbacks);
    EXPECT_TRUE(problems.lines.empty());
    return merged;
  };
  const std::vector<std::string> checked = runs(true, 1);
  size_t in_runs = 0;
  for (const std::string& item : checked) in_runs += item.rfind("run ", 0) == 0;
  EXPECT_GT(in_runs, 10u);
  EXPECT_EQ(runs(false, 1), checked);
  EXPECT_EQ(runs(false, 3), runs(true, 3));
}

// A record whose payload holds a whole summary file (records with sound CRCs, as when a file's
// bytes are logged as a tensor): a chunk that starts inside that payload finds those records
// first, and the reading must notice that the chunk before ends elsewhere.
TEST(FileReader, RecordsInsideAPayloadAreNotTakenForTheFile) {
  std::string inner;
  for (uint64_t step = 1; step <= 400; ++step) inner += frame(scalar_event(step, {"inner"}));
  ProtoWriter carrier;
  carrier.fixed64(1, std::bit_cast<uint64_t>(5.0)).varint(2, 1000).string(99, inner);
  ProtoWriter version;
  version.fixed64(1, std::bit_cast<uint64_t>(1.0)).string(3, "MindSpore.Event:1");
  std::string file = frame(payload_text(version));
  for (uint64_t step = 1; step <= 300; ++step) file += frame(scalar_event(step, {"outer"}));
  file += frame(payload_text(carrier));
  for (uint64_t step = 1001; step <= 1300; ++step) file += frame(scalar_event(step, {"outer"}));

  Log serial = read_whole(file, 1);
  ASSERT_EQ(serial.lines.size(), 1u + 300 + 1 + 300);
  for (const std::string& line : serial.lines) EXPECT_EQ(line.find("inner"), std::string::npos);
  for (unsigned jobs : {2u, 4u})
    for (uint64_t chunk_bytes : {uint64_t{64}, uint64_t{1000}, uint64_t{4096}})
      EXPECT_EQ(read_whole(file, jobs, nullptr, chunk_bytes).lines, serial.lines)
          << jobs << " threads, chunks of " << chunk_bytes;
}

}  // namespace
}  // namespace msdt::summary
