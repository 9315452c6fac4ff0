// What ckpt-inspect does with model files (inspect/model_file.h): list their tensors, describe
// the files (--info), compare two checkpoints parameter by parameter (--diff), and write the
// tensors out as .npy files or one safetensors file. Every mode reports a bad file as one line and
// goes on with the next; output order is the files' order whatever the worker count.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "io/regex.h"
#include "io/report.h"
#include "table/sink.h"
#include "tensor/element_convert.h"

namespace msdt::weights {

struct Selection {
  std::optional<Regex> name;  // --name: searched in each item's name
};

struct ListOptions {
  table::Format format = table::Format::Tsv;
  bool header = true;
  bool stats = false;       // one pass over each tensor's elements (tensor/stats.h)
  bool verify_crc = false;  // reads the whole file
  bool show_file = false;   // a `file` column (several files given)
  Selection selection;
  unsigned jobs = 1;
};

// One row per tensor of every file: name, dtype, shape, elements, bytes, offset (JSON adds kind,
// type as written, storage and source), with --stats the dump tools' statistics.
void list_models(const std::vector<std::string>& paths, const ListOptions& options,
                 std::ostream& out, Diagnostics& diagnostics);

struct InfoOptions {
  bool json = false;
  bool verify_crc = false;
};
// Per file: kind, description, size, the format's facts (counts, versions, CRC, headers) and the
// totals of its tensors; text "key: value" lines with a blank line between files, or one JSON
// object per line.
void describe_models(const std::vector<std::string>& paths, const InfoOptions& options,
                     std::ostream& out, Diagnostics& diagnostics);

struct DiffOptions {
  table::Format format = table::Format::Tsv;
  bool header = true;
  Selection selection;
  std::optional<uint64_t> top;  // --top N: the N largest changes
  double tolerance = 0;         // a parameter differs when max |a - b| > tolerance
  bool all = true;              // rows of unchanged parameters too
  unsigned jobs = 1;
};
// The exit status of a diff: 0 nothing differs, 1 something does, 3 a file could not be read
// or the output written.
inline constexpr int kExitDiffers = 1;
inline constexpr int kExitDiffUnreadable = 3;
// Pairs the parameters of `a` and `b` by name. Rows: only_a, only_b, dtype and shape changes,
// then per parameter l2 = ||a - b||, cosine (msprobe: 1 when both norms are 0, absent when one
// is), max_abs and rel_l2 = ||a - b|| / ||a||. Returns the exit status.
int diff_models(const std::string& a, const std::string& b, const DiffOptions& options,
                std::ostream& out, Diagnostics& diagnostics);

struct ExportOptions {
  Bf16Mode bf16 = Bf16Mode::Float32;
  Selection selection;
  unsigned jobs = 1;
};
// One file per tensor in `directory` (created when missing), named by the tensor's name quoted
// as summary-cat quotes tags (bytes other than letters, digits and "_.-~" as %XX): NAME.npy,
// a string parameter's text as NAME.txt, random_op and other opaque contents as NAME.bin. Each
// written whole or not at all.
void export_npy(const std::string& path, const std::string& directory, const ExportOptions& options,
                Diagnostics& diagnostics);

// Every numeric tensor of `path` into one safetensors file `output` (written whole or not at
// all); strings and opaque contents are left out with a warning each.
void export_safetensors(const std::string& path, const std::string& output,
                        const Selection& selection, Diagnostics& diagnostics);

}  // namespace msdt::weights
