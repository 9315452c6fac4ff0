// dump-convert: msaccucmp-compatible conversion of dump files to .npy / .bin / .json (dump spec
// §10.1), over single files, comma-separated lists and whole trees, in parallel.
//
// What is written for each kind of input:
// * DumpData containers (§5.3): one output per input/output tensor, named as msaccucmp names it;
//   buffers and workspaces as raw .bin; Opdebug overflow containers as one JSON per output (§5.8).
// * .npy: copied byte for byte when standard (version 1.0, little-endian, C order, 64-byte
//   aligned), so that DST is a complete mirror at the speed of cp; any other is rewritten in that
//   standard form ('<E2'/'>E2'/'V2' bfloat16 as float32 or raw uint16 per --bf16).
// * 1.1/1.2 .bin (format A) and msprobe raw files: `{name without .bin}.npy` / `{name}.npy`, with
//   shape and dtype from the name.
// * Side files (csv, json, graphs, execution order) are not tensors and are not copied.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "io/error.h"
#include "io/report.h"
#include "tensor/dtype.h"
#include "tensor/element_convert.h"

namespace msdt::dump {

enum class ConvertType { Npy, Bin, MsNpy };

// The command line as typed, before validation (the tool copies CLI11 results here).
struct ConvertArguments {
  std::string dump_file;  // -d: a file, a comma-separated list, a directory, or "-"
  std::string output;     // -out: a directory, or "-" for stdout
  std::string format;     // -f, empty when absent
  std::string shape;      // -s, empty when absent
  std::string type = "npy";
  std::optional<std::string> output_tensor, input_tensor;  // -o / -i
  std::optional<std::string> version;                      // -v
  std::string bf16 = "float32";
  std::optional<int64_t> jobs;  // -j
  bool skip_existing = false;
  bool no_progress = false;
};

struct ConvertOptions {
  std::vector<std::string> sources;    // -d split at commas
  std::string output;                  // "-" means standard output
  std::string target_format;           // empty: keep the device layout
  std::vector<uint64_t> target_shape;  // -s; empty when absent
  ConvertType type = ConvertType::Npy;
  // -o / -i: convert only this tensor of each container.
  std::optional<std::pair<std::string, uint32_t>> only_tensor;  // {"input"|"output", index}
  Bf16Mode bf16 = Bf16Mode::Float32;
  unsigned jobs = 1;
  bool skip_existing = false;
  bool progress = true;  // shown only when stderr is a terminal as well
};

// Checks the msaccucmp rules (-s and -o/-i only with -f, -o and -i exclusive, known -f and -t
// values, -v 1 or 2) and parses the values. Errors are usage errors (exit 2).
Expected<ConvertOptions> resolve_convert_arguments(const ConvertArguments& args);

// "1,3,224,224" -> {1,3,224,224}; every dimension a positive decimal integer.
Expected<std::vector<uint64_t>> parse_shape_argument(std::string_view text);
// -d text split at commas. A comma written \, belongs to the path and \\ is one backslash (any
// other backslash is kept as it is). Empty items are refused. resolve_convert_arguments takes a
// -d that names an existing path whole, before any splitting.
Expected<std::vector<std::string>> split_source_list(std::string_view text);

// msaccucmp spells its output option `-out`, a single-dash long option CLI11 cannot declare:
// rewrites `-out X` and `-out=X` to `--output …` before CLI11 sees them. Arguments after `--` are
// left alone, as is everything else.
std::vector<std::string> rewrite_msaccucmp_argv(std::span<const char* const> argv);

// ---- Output names (dump spec §10.1); `basename` is the source file's name on disk. ----

// "{basename}.{io}.{idx}.npy": device layout kept.
std::string npy_output_name(std::string_view basename, std::string_view io, uint32_t index);
// "{basename}.{io}.{idx}.{d0xd1x..}.npy": after -f.
std::string formatted_npy_output_name(std::string_view basename, std::string_view io,
                                      uint32_t index, std::span<const uint64_t> shape);
// "{basename}.{io}.{idx}.{d0_d1_..}.{dtype}.{FORMAT}.bin": raw elements after -f.
std::string bin_output_name(std::string_view basename, std::string_view io, uint32_t index,
                            std::span<const uint64_t> shape, std::string_view dtype,
                            std::string_view format);
// "{basename}.{io}.{idx}.{N}.{dtype}.{FORMAT}.bin": raw elements in the device layout, where N is
// the flat element count (msaccucmp names `-t bin` outputs without -f so, e.g.
// "….output.0.16.float16.NC1HWC0.bin" for a 1x1x1x1x16 tensor).
std::string device_bin_output_name(std::string_view basename, std::string_view io, uint32_t index,
                                   uint64_t element_count, std::string_view dtype,
                                   std::string_view format);
// "{basename'}.{io}.{idx}.{FORMAT}.npy", where basename' has its second dot field replaced by the
// last '/' segment of the container's op_name when the basename has exactly 5 dot fields
// (msaccucmp `make_msnpy_file_name`).
std::string msnpy_output_name(std::string_view basename, std::string_view op_name,
                              std::string_view io, uint32_t index, std::string_view format);
// "{basename}.{l1}buffer.{idx}.bin"; buffer types other than L1 (0) are written "type{N}".
std::string buffer_output_name(std::string_view basename, uint32_t buffer_type, uint32_t index);
// "{basename}.space.{idx}.bin".
std::string workspace_output_name(std::string_view basename, uint32_t index);
// "{basename}.output.{idx}.json".
std::string overflow_output_name(std::string_view basename, uint32_t index);
// Format A "{…}.bin" -> "{…}.npy"; anything else (msprobe raw) gets ".npy" appended.
std::string raw_tensor_output_name(std::string_view basename);

// uuid.uuid3(uuid.NAMESPACE_DNS, name) as 32 lower-case hex digits without dashes, as msaccucmp
// computes it for over-long names.
std::string uuid3_dns_hex(std::string_view name);

struct OutputName {
  std::string name;                         // what is written
  std::optional<std::string> mapping_line;  // "{new},{old}" when the name was shortened
};
// Names of 255 bytes or more become uuid3 hex + suffix (msaccucmp `handle_too_long_file_name`;
// it counts characters, we count bytes because NAME_MAX is in bytes).
OutputName shorten_long_name(std::string name, std::string_view suffix);

// ---- The driver. ----

// Converts everything, reporting each failed file on `diagnostics` (one line each) and listing
// failed files in DST/convert_failed_file_list.txt (removed when none failed). Sources whose
// outputs would share names in one directory are refused before anything is written. Returns the
// exit status: 0, 1 (some input failed), 2 (usage: `-out -` with several outputs, -out overlapping
// -d) or 3 (an output could not be written). The pieces are listed in convert_internal.h.
int run_convert(const ConvertOptions& options, Diagnostics& diagnostics);

}  // namespace msdt::dump
