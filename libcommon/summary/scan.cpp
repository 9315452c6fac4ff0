#include "summary/scan.h"

#include <fmt/format.h>

#include <map>
#include <memory>
#include <system_error>
#include <thread>

#include "io/crlf.h"
#include "io/mapped_file.h"

namespace msdt::summary {
namespace fs = std::filesystem;

namespace {

// Read pages are given back in steps of this many bytes.
constexpr uint64_t kDropBytes = uint64_t{8} << 20;

struct Tracked {
  Source source;
  fs::path path;
  std::unique_ptr<FileReader> reader;
  uint64_t size_read = 0;  // the size the file had at the last read
  bool failed = false;     // could not be opened: not retried
  bool crlf = false;       // said to be damaged by a line-ending conversion: nothing more said
};

// What `repaired` (a file with its line-ending damage undone, io/crlf.h) is, when every record
// of it holds: framing, both CRCs (checked whatever --no-crc says) and the events' decoding.
std::optional<std::string> reads_cleanly(FileKind kind, Bytes repaired, ReadOptions options) {
  options.record.verify = true;
  FileReader reader(kind);
  bool clean = true;
  ReadCallbacks callbacks;
  callbacks.event = [](const Event&) {};  // decoded, then dropped
  callbacks.error = [&](const Error&) { clean = false; };
  reader.read(repaired, options, callbacks, true);
  if (!clean || reader.pending() || reader.records() == 0) return std::nullopt;
  if (reader.dialect() == Dialect::TensorFlow) return "TensorBoard event file (tfevents)";
  if (kind == FileKind::Lineage) return "MindSpore lineage file";
  if (kind == FileKind::Explain) return "MindSpore explain file";
  return "MindSpore summary file";
}

// One run directory (or a single file, or stdin) and the files read from it so far.
struct Run {
  std::string name;
  fs::path dir;       // empty for a single file
  std::string input;  // the argument as given
  std::vector<Tracked> files;
};

class Scanner {
 public:
  Scanner(const ScanOptions& options, const EventSink& sink, const PartMaker& parts,
          Diagnostics& diagnostics)
      : options_(options), sink_(sink), parts_(parts), diagnostics_(diagnostics) {}

  void add_input(const std::string& input) {
    if (input == "-") {
      Run run{".", {}, input, {}};
      run.files.push_back(track(".", "-", "-", FileKind::Summary));
      runs_.push_back(std::move(run));
      return;
    }
    std::error_code ec;
    fs::file_status status = fs::status(input, ec);
    if (ec) {
      diagnostics_.error(input, Error(fmt::format("cannot read: {}", ec.message())));
      return;
    }
    if (fs::is_directory(status)) {
      if (options_.runs) {
        auto runs = list_runs(input);
        if (!runs) {
          diagnostics_.error(input, runs.error());
          return;
        }
        if (runs->empty())
          diagnostics_.warning(input, Error("no summary or tfevents files in it or in its "
                                            "subdirectories"));
        for (auto& [name, dir] : *runs) runs_.push_back(Run{name, dir, input, {}});
        return;
      }
      runs_.push_back(Run{input, input, input, {}});
      return;
    }
    Run run{".", {}, input, {}};
    fs::path parent = fs::path(input).parent_path();
    if (!parent.empty()) run.name = parent.string();
    SummaryName name = classify_summary_name(fs::path(input).filename().string());
    run.files.push_back(track(run.name, input, input, name.kind));
    runs_.push_back(std::move(run));
  }

  void run() {
    for (bool first = true;; first = false) {
      for (Run& r : runs_) pass(r, first);
      if (!options_.follow || stopped()) break;
      if (options_.idle) options_.idle();
      for (int slept = 0; slept < options_.poll.count() && !stopped(); slept += 20)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      if (stopped()) break;
    }
    // Tails still incomplete when reading ends.
    for (Run& r : runs_)
      for (Tracked& t : r.files)
        if (t.reader && t.reader->pending() && options_.follow && !t.crlf) report_tail(t);
  }

 private:
  bool stopped() const { return options_.stop && options_.stop->load(); }

  Tracked track(const std::string& run, const fs::path& path, const std::string& shown,
                FileKind kind) {
    Tracked t;
    t.source.run = run;
    t.source.file = shown;
    t.source.kind = kind == FileKind::Other ? FileKind::Summary : kind;
    t.source.dialect = default_dialect(t.source.kind);
    t.path = path;
    t.reader = std::make_unique<FileReader>(t.source.kind);
    return t;
  }

  void pass(Run& r, bool first) {
    if (!r.dir.empty()) {
      auto files = list_run_files(r.dir);
      if (!files) {
        if (first) diagnostics_.error(r.input, files.error());
        return;
      }
      if (files->empty() && first && !options_.follow)
        diagnostics_.warning(r.input, Error("no summary or tfevents files in the directory"));
      // New files join in name order; files already tracked keep their place.
      for (const fs::path& p : *files) {
        bool known = false;
        for (const Tracked& t : r.files) known = known || t.path == p;
        if (!known) {
          std::string shown = (r.dir / p.filename()).string();  // with --runs, the run folder too
          r.files.push_back(
              track(r.name, p, shown, classify_summary_name(p.filename().string()).kind));
        }
      }
    }
    for (Tracked& t : r.files) read(t, first);
  }

  void read(Tracked& t, bool first) {
    if (t.failed) return;
    if (t.path == "-") {  // standard input is read once, whole
      if (first) read_stdin(t);
      return;
    }
    if (!first) {
      std::error_code ec;
      uint64_t size = fs::file_size(t.path, ec);
      if (ec || size == t.size_read) return;
    }
    auto file = MappedFile::open(t.path, Reading::Parts);
    if (!file) {
      diagnostics_.error(t.source.file, file.error());
      t.failed = true;
      return;
    }
    t.size_read = file->size();
    if (file->size() == 0 && !options_.follow) {
      diagnostics_.warning(t.source.file, Error("empty file"));
      return;
    }
    read_file(t, *file);
  }

  void read_file(Tracked& t, const MappedFile& file) {
    ReadCallbacks callbacks;
    if (sink_) {
      callbacks.event = [&](const Event& e) {
        if (auto d = t.reader->dialect()) t.source.dialect = *d;
        sink_(t.source, e);
      };
    }
    if (parts_) {
      callbacks.part = [&] {
        if (auto d = t.reader->dialect()) t.source.dialect = *d;
        return parts_(t.source);
      };
    }
    // The first problem of a reading asks whether the file is damaged by a line-ending conversion
    // (io/crlf.h); if so, that one line is all that is said about the file.
    bool asked = false;
    auto damaged = [&](const Error& e) {
      if (t.crlf || asked) return t.crlf;
      asked = true;
      Error line = e;
      auto parse = [&](Bytes repaired) {
        return reads_cleanly(t.source.kind, repaired, options_.read);
      };
      if (!explain_line_ending_damage(line, file.bytes(), t.source.file, parse)) return false;
      diagnostics_.error(t.source.file, line);
      return t.crlf = true;
    };
    callbacks.error = [&](const Error& e) {
      if (!damaged(e)) diagnostics_.error(t.source.file, e);
    };
    callbacks.truncated = [&](const Error& e) {
      if (damaged(e)) return;
      if (options_.strict)
        diagnostics_.error(t.source.file, e);
      else
        diagnostics_.warning(t.source.file, e);
    };
    // Pages read are given back as the reading goes: the resident set stays flat however large
    // the file (the reading is one pass; anything that looks back reads the file again).
    PageDropper dropper(file, kDropBytes, t.reader->offset());
    callbacks.done_before = [&](uint64_t offset) { dropper.done_before(offset); };
    t.reader->read(file.bytes(), options_.read, callbacks, options_.follow);
    if (options_.read_done) options_.read_done();
  }

  void report_tail(Tracked& t) {
    Error e = Error::at_offset(t.reader->offset(),
                               fmt::format("incomplete record at the end ({} bytes) when "
                                           "following stopped",
                                           t.reader->pending()));
    if (options_.strict)
      diagnostics_.error(t.source.file, e);
    else
      diagnostics_.warning(t.source.file, e);
  }

  void read_stdin(Tracked& t) {
    auto in = MappedFile::read_stdin();
    if (!in) {
      diagnostics_.error("-", in.error());
      return;
    }
    read_file(t, *in);
  }

  const ScanOptions& options_;
  const EventSink& sink_;
  const PartMaker& parts_;
  Diagnostics& diagnostics_;
  std::vector<Run> runs_;
};

}  // namespace

void scan(const std::vector<std::string>& inputs, const ScanOptions& options, const EventSink& sink,
          Diagnostics& diagnostics, const PartMaker& parts) {
  Scanner scanner(options, sink, parts, diagnostics);
  for (const std::string& input : inputs) scanner.add_input(input);
  scanner.run();
}

}  // namespace msdt::summary
