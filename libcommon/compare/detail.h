// Single-tensor detail mode (compare spec §8.3, §12.5): every element of one compared tensor pair,
// as msaccucmp's `-op` writes it, plus a heatmap of the element-wise difference.
//
// Files, in the output directory, for the tensor `{op}_{io}_{slot}` (op name with '/' written '_'):
// * `{prefix}_{n}.csv`, n from 0, each at most `max_line` data lines under the header
//   `Index,<coordinates>,NPUDump,GroundTruth,AbsoluteError,RelativeError`: the coordinates are
//   N,C,H,W for a 4-D tensor and D0,D1,… otherwise; values '%.6f' followed by a tab, as msaccucmp;
//   AbsoluteError |x − y|, RelativeError |x − y| / |y|, `-` when it is NaN or infinite; for bool
//   tensors both error columns are `-`;
// * `{prefix}_summary.txt`: the element count, the minimum and maximum of each error, and the top N
//   elements by absolute and by relative error (NaN and Inf errors ranked last, as msaccucmp
//   replaces them before ranking).
// Files are written atomically; the elements are streamed in blocks, so memory stays flat except
// for the top-N lists.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "compare/pairing.h"
#include "compare/run.h"

namespace msdt::compare {

struct DetailOptions {
  std::string op;  // op name as dumped, or in key spelling
  dump::Io io = dump::Io::Output;
  uint32_t slot = 0;
  uint64_t occurrence = 0;                   // 0-based
  size_t top = 20;                           // msaccucmp -n: 1..10000
  uint64_t max_line = 1000000;               // msaccucmp -ml
  std::filesystem::path directory = ".";     // where the files go
  std::optional<std::filesystem::path> png;  // heatmap of |x − y| (rank-2 view)
  bool cast_float32 = false;
};

// `--tensor input:N|output:N` into options.io and options.slot; "expected input:N or output:N,
// not 'x'" otherwise.
Status parse_tensor_spec(std::string_view text, DetailOptions& options);

// The row of `pairing` the options name: my op name (or the golden one) equal to `op` as written
// or in key spelling, or else ending with it after a scope separator when that names one op
// ("Conv2D-op5"), with that io, slot and occurrence; an error listing what the op has when the
// tensor is not there, or the ops a short name fits when it fits several.
Expected<size_t> find_detail_row(const Pairing& pairing, const DetailOptions& options);

// What stopped write_detail: an input that could not be read or compared (its display path), or
// an output that could not be written (its path).
struct DetailFailure {
  std::string file;
  Error error;
  bool output = false;
};

// Writes the files of the row; `written` receives their paths in order.
std::optional<DetailFailure> write_detail(const Pairing& pairing, size_t row,
                                          const DetailOptions& options,
                                          std::vector<std::filesystem::path>& written);

}  // namespace msdt::compare
