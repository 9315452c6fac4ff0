#include "ir/convert.h"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <map>

#include "dump/file_workers.h"
#include "dump/tree.h"
#include "io/bury.h"
#include "io/mapped_file.h"
#include "io/output_file.h"
#include "io/parallel.h"
#include "ir/diff.h"
#include "ir/load.h"
#include "ir/report.h"
#include "table/format.h"

namespace msdt::ir {
namespace {

namespace fs = std::filesystem;

struct Result {
  std::string text;  // the output
  dump::DeferredDiagnostics problems;
  bool failed = false;
  bool skipped = false;  // not a graph file (directory walks)
};

std::string display(const std::string& input) { return input == "-" ? "<stdin>" : input; }

Expected<MappedFile> read_input(const std::string& input) {
  return input == "-" ? MappedFile::read_stdin(std::nullopt, MappedFile::refuse_zero_start)
                      : MappedFile::open(input, Reading::Whole);
}

// Reads one input and renders what `options` ask for. `last`: nothing is read after it.
// `stream`: DOT and JSON go there as they are made rather than into Result::text.
Result render(const std::string& input, const ConvertOptions& options, bool in_walk,
              bool last = false, const DotWriter* stream = nullptr) {
  Result r;
  std::string name = display(input);
  auto mapped = read_input(input);
  if (!mapped) {
    r.problems.error(name, mapped.error());
    r.failed = true;
    return r;
  }
  Loaded loaded = load_graph(mapped->bytes());
  explain_line_endings(loaded, mapped->bytes(), name);
  if (!loaded.module) {
    if (in_walk && !loaded.not_a_graph.empty()) {
      r.problems.warning(name, Error("skipped, not a graph file: " + loaded.not_a_graph));
      r.skipped = true;
    } else {
      r.problems.error(name, loaded.module.error());
      r.failed = true;
    }
    return r;
  }
  const Module& module = *loaded.module;
  struct Leave {
    Loaded& loaded;
    bool bury_it;
    ~Leave() {
      if (bury_it) bury(std::make_unique<Module>(std::move(*loaded.module)));
    }
  } leave{loaded, last && !options.free_model};
  for (const Error& w : module.warnings) r.problems.warning(name, w);
  switch (options.output) {
    case Output::Dot: {
      if (stream) {
        if (Status failed = draw_dot(module, options.draw, nullptr, *stream)) {
          r.problems.error(name, *failed);
          r.failed = true;
        }
        return r;
      }
      auto dot = draw_dot(module, options.draw);
      if (!dot) {
        r.problems.error(name, dot.error());
        r.failed = true;
        return r;
      }
      r.text = std::move(*dot);
      break;
    }
    case Output::Json:
      if (stream) {
        // Failures of the writer are output errors, which convert_inputs reports itself.
        (void)write_module_json(module, *stream);
        return r;
      }
      r.text = module_json_text(module);
      break;
    case Output::Stats:
      r.text = counts_text(count_nodes(module, options.stats_scope_depth));
      break;
    case Output::StatsJson:
      r.text = table::to_json_text(counts_json(count_nodes(module, options.stats_scope_depth)), 2) +
               "\n";
      break;
    case Output::Why: {
      auto why = why_text(module);
      if (!why) {
        r.problems.error(name, why.error());
        r.failed = true;
        return r;
      }
      r.text = std::move(*why);
      break;
    }
    case Output::WhyJson:
      if (!module.failure) {
        r.problems.error(name, why_text(module).error());
        r.failed = true;
        return r;
      }
      r.text = table::to_json_text(why_json(module), 2) + "\n";
      break;
  }
  return r;
}

// The -o directory of a run over several inputs: the directory the user named is made and opened
// as given; the folders mirrored below it are made and opened beneath it, so that a symbolic link
// planted there that leads outside is refused, once per folder, instead of written through.
class OutputTree {
 public:
  explicit OutputTree(fs::path root) : root_(std::move(root)) {}

  // The folder of `relative` (a file's path under the root), or the error; `first` is true the
  // first time that error is returned.
  Expected<const OpenDirectory*> folder(const std::string& relative, bool& first) {
    first = false;
    if (!top_) {
      std::error_code ec;
      fs::create_directories(root_, ec);
      top_ = ec ? Expected<OpenDirectory>(
                      Error(fmt::format("cannot create the directory: {}", ec.message())))
                : OpenDirectory::open(root_);
      first = !*top_;
    }
    if (!*top_) return top_->error();
    const std::string parent = fs::path(relative).parent_path().string();
    if (parent.empty()) return &**top_;
    auto [it, fresh] = folders_.try_emplace(parent, Error("not opened"));
    if (fresh) {
      it->second = (*top_)->below(parent, true);
      first = !it->second;
    }
    if (!it->second) return it->second.error();
    return &*it->second;
  }

 private:
  fs::path root_;
  std::optional<Expected<OpenDirectory>> top_;
  std::map<std::string, Expected<OpenDirectory>> folders_;
};

Status write_in(const OpenDirectory& folder, const std::string& relative, const std::string& text) {
  return write_file_atomically(folder, fs::path(relative).filename().string(), text);
}

bool to_stdout(const std::string& destination) { return destination.empty() || destination == "-"; }

}  // namespace

std::string output_name(std::string_view input_name, Output output) {
  // "x.ir" -> "x.dot"; any other name keeps its extension ("x.dat.dot", "ms_output_1.pb.dot"),
  // so the .ir and .dat that 1.x writes for every pass do not land on one output.
  fs::path p{std::string(input_name)};
  std::string stem = p.extension() == ".ir" ? p.stem().string() : p.filename().string();
  switch (output) {
    case Output::Dot:
      return stem + ".dot";
    case Output::Json:
      return stem + ".json";
    case Output::Stats:
      return stem + ".stats.txt";
    case Output::StatsJson:
      return stem + ".stats.json";
    case Output::Why:
      return stem + ".why.txt";
    case Output::WhyJson:
      return stem + ".why.json";
  }
  return stem;
}

int convert_inputs(const std::vector<std::string>& inputs, const ConvertOptions& options,
                   Diagnostics& diagnostics) {
  bool any_directory = false;
  for (const std::string& input : inputs) {
    std::error_code ec;
    if (input != "-" && fs::is_directory(input, ec)) any_directory = true;
  }
  // One drawing or model (--json) to standard output or to the file -o names, written as it is
  // made.
  if (inputs.size() == 1 && !any_directory &&
      (options.output == Output::Dot || options.output == Output::Json)) {
    std::optional<OpenDirectory> directory;
    std::optional<AtomicFile> file;
    Status output_error;
    DotWriter write = [&](std::string_view piece) -> Status {
      if (to_stdout(options.destination)) {
        std::cout.write(piece.data(), static_cast<std::streamsize>(piece.size()));
        return std::nullopt;
      }
      if (!file) {  // made at the first piece: a drawing refused leaves nothing behind
        fs::path target(options.destination);
        auto opened = OpenDirectory::open(target.has_parent_path() ? target.parent_path() : ".");
        if (!opened) return output_error = opened.error();
        directory.emplace(std::move(*opened));
        // The user named it: a link to a device (-o /dev/stdout) is written through.
        auto created = AtomicFile::create(*directory, target.filename().string(), Links::Follow);
        if (!created) return output_error = created.error();
        file.emplace(std::move(*created));
      }
      if (Status failed = file->write(piece)) return output_error = failed;
      return std::nullopt;
    };
    Result r = render(inputs.front(), options, false, true, &write);
    if (output_error) {
      diagnostics.output_error(options.destination, *output_error);
      return kExitOutput;
    }
    r.problems.replay(diagnostics);
    if (r.failed) return kExitBadInput;
    if (file) {
      if (Status failed = file->commit()) {
        diagnostics.output_error(options.destination, *failed);
        return kExitOutput;
      }
    }
    return kExitOk;
  }
  // One file to standard output or to the file -o names.
  if (inputs.size() == 1 && !any_directory) {
    Result r = render(inputs.front(), options, false, true);
    r.problems.replay(diagnostics);
    if (r.failed) return kExitBadInput;
    if (to_stdout(options.destination)) {
      std::cout << r.text;
      return kExitOk;
    }
    if (auto error = write_file_atomically(options.destination, r.text)) {
      diagnostics.output_error(options.destination, *error);
      return kExitOutput;
    }
    return kExitOk;
  }

  // Directories and several files: every output under the -o directory.
  struct Job {
    std::string input;
    std::string relative;  // the output's path under the destination
    bool in_walk;
  };
  std::vector<Job> jobs;
  bool walk_failed = false;
  for (const std::string& input : inputs) {
    std::error_code ec;
    if (input == "-" || !fs::is_directory(input, ec)) {
      jobs.push_back({input, output_name(input == "-" ? "stdin" : input, options.output), false});
      continue;
    }
    std::vector<std::string> files;
    dump::WalkCallbacks callbacks;
    callbacks.directory = [&](const dump::DumpDirectory& dir) {
      for (const dump::DumpFile& f : dir.files) {
        if (is_output_temporary(f.path.filename().string())) continue;
        files.push_back(f.path.string());
      }
    };
    callbacks.error = [&](const std::string& where, const Error& error) {
      diagnostics.error(where, error);
      walk_failed = true;
    };
    callbacks.warning = [&](const std::string& where, const Error& error) {
      diagnostics.warning(where, error);
    };
    std::vector<std::string> root{input};
    dump::walk_dump_tree(root, callbacks);
    for (const std::string& f : files) {
      fs::path relative = fs::path(f).lexically_relative(input);
      fs::path out =
          relative.parent_path() / output_name(relative.filename().string(), options.output);
      jobs.push_back({f, out.string(), true});
    }
  }
  // Two graph files with one output name (rank_0/om/analyze_fail.ir and rank_1/om/analyze_fail.ir
  // given by name) would overwrite each other: the second is refused. Outputs are written here,
  // in input order, so the first one always wins whatever -j.
  std::map<std::string, std::string> claimed;
  OutputTree tree(options.destination);
  bool bad = walk_failed, output_failed = false;
  ordered_parallel<Result>(
      jobs.size(), options.jobs, 4 * size_t{options.jobs},
      [&](size_t i) { return render(jobs[i].input, options, jobs[i].in_walk); },
      [&](size_t i, Result&& r) {
        r.problems.replay(diagnostics);
        if (r.failed) bad = true;
        if (r.failed || r.skipped) return;
        auto [it, fresh] = claimed.emplace(jobs[i].relative, jobs[i].input);
        if (!fresh) {
          diagnostics.error(display(jobs[i].input),
                            Error(fmt::format("its output {} would overwrite that of {}; give "
                                              "the directory above them instead, to keep their "
                                              "paths",
                                              jobs[i].relative, display(it->second))));
          bad = true;
          return;
        }
        const fs::path shown = fs::path(options.destination) / jobs[i].relative;
        Status checked = check_relative_path(jobs[i].relative, "output name");
        bool first = !!checked;
        auto folder = checked ? Expected<const OpenDirectory*>(*checked)
                              : tree.folder(jobs[i].relative, first);
        Status written =
            folder ? write_in(**folder, jobs[i].relative, r.text) : Status(folder.error());
        if (written) {
          // A folder that cannot be made or is refused is said once, for its first file.
          if (first || folder)
            diagnostics.output_error(folder ? shown.string() : shown.parent_path().string(),
                                     *written);
          output_failed = true;
        }
      });
  if (output_failed) return kExitOutput;
  return bad ? kExitBadInput : kExitOk;
}

int diff_inputs(const std::string& before, const std::string& after, const ConvertOptions& options,
                Diagnostics& diagnostics) {
  std::optional<Module> modules[2];
  const std::string* names[2] = {&before, &after};
  for (int k = 0; k < 2; ++k) {
    auto mapped = read_input(*names[k]);
    if (!mapped) {
      diagnostics.error(display(*names[k]), mapped.error());
      return kExitBadInput;
    }
    Loaded loaded = load_graph(mapped->bytes());
    explain_line_endings(loaded, mapped->bytes(), display(*names[k]));
    if (!loaded.module) {
      diagnostics.error(display(*names[k]), loaded.module.error());
      return kExitBadInput;
    }
    for (const Error& w : loaded.module->warnings) diagnostics.warning(display(*names[k]), w);
    modules[k] = std::move(*loaded.module);
  }
  DiffResult diff = diff_modules(*modules[0], *modules[1]);
  std::string text;
  if (options.output == Output::Stats) {
    text = diff_stats_text(diff);
  } else if (options.output == Output::StatsJson) {
    text = table::to_json_text(diff_stats_json(diff), 2) + "\n";
  } else {
    auto dot = draw_dot(*modules[1], options.draw, &diff.marks);
    if (!dot) {
      diagnostics.error(display(after), dot.error());
      return kExitBadInput;
    }
    text = std::move(*dot);
  }
  if (to_stdout(options.destination)) {
    std::cout << text;
    return kExitOk;
  }
  if (auto error = write_file_atomically(options.destination, text)) {
    diagnostics.output_error(options.destination, *error);
    return kExitOutput;
  }
  return kExitOk;
}

}  // namespace msdt::ir
