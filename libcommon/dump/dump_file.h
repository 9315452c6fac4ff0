// Reading the tensors a dump file holds, whatever its format: .npy, 1.1/1.2 .bin, the Ascend
// DumpData container, Opdebug overflow records, msprobe raw files and statistic.csv rows.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "dump/ascend_dump.h"
#include "dump/file_name.h"
#include "dump/side_files.h"
#include "dump/tree.h"
#include "io/byte_reader.h"
#include "tensor/npy.h"

namespace msdt::dump {

// One tensor: a row of dump-parse, an output of dump-convert.
struct DumpTensor {
  std::string format;  // "npy", "bin", "ascend", "overflow", "msprobe-raw", "statistic"
  std::string op_type, op_name;
  std::optional<uint64_t> task_id, stream_id, timestamp;
  std::string io;  // "input", "output"; empty when unknown
  std::optional<uint32_t> slot;
  std::string device_format;
  std::optional<DType> dtype;   // the dtype of the stored elements
  std::vector<uint64_t> shape;  // as stored (device shape for DumpData)
  bool shape_known = false;
  uint64_t bytes = 0;                               // payload bytes on disk
  std::optional<TensorView> view;                   // elements; valid while the file's bytes live
  const NpyHeader* npy = nullptr;                   // for format "npy"
  const AscendDump* container = nullptr;            // for "ascend" and "overflow"
  const AscendTensor* ascend = nullptr;             // for "ascend" and "overflow"
  const StatisticRow* statistics = nullptr;         // for "statistic"
  const nlohmann::json* overflow_record = nullptr;  // for "overflow-json": the decoded record
};

// Parses `contents` (the bytes of `file`) and calls `visit` for each tensor in order. Files that
// hold no tensors (execution order, metadata, graphs) visit nothing; an npy-mode overflow record
// (JSON) is one entry of format "overflow-json". An unknown or damaged file is an Error naming
// the offset or line; a file whose name says one thing and content another is classified by
// content (a .npy magic, a DumpData container). `warn` hears what is read anyway but must be
// said: bytes after a container's last payload, an npy file whose name is outside the grammar.
Status read_dump_file(const DumpFile& file, Bytes contents,
                      const std::function<void(const Error&)>& warn,
                      const std::function<void(const DumpTensor&)>& visit);
// The same without warnings.
Status read_dump_file(const DumpFile& file, Bytes contents,
                      const std::function<void(const DumpTensor&)>& visit);

// After reading `file` failed with `error`: when its bytes are a binary dump file (.npy, format A
// .bin, DumpData) damaged by a line-ending conversion, `error` says so and the result is true
// (io/crlf.h). read_dump_file does it itself; a reader that parses a container on its own
// (dump-convert) calls it.
bool explain_line_endings(const DumpFile& file, Bytes contents, Error& error);

}  // namespace msdt::dump
