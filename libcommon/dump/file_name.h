// The file-name grammars of every dump layout (dump spec §3), parsed from the right so op names
// keep their dots and underscores.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tensor/dtype.h"

namespace msdt::dump {

enum class FileKind {
  Unknown,
  LegacyBin,             // format A: {kernel}_{io}_{i}_shape_{dims}_{dtype}_{format}.bin
  Npy,                   // formats C, E, F, G, H-npy, I, J with .npy
  AscendBinary,          // formats B, D, H: {type}.{name}.{task}[.{stream}].{ts}
  Overflow,              // Opdebug.Node_OpDebug.{task}.{stream}.{ts} (binary container)
  OverflowJson,          // Opdebug.Node_OpDebug.{task}.{stream}.{ts}.output.0.json
  MsprobeRaw,            // msprobe raw bytes: ….{io}.{slot}.{FORMAT}.{DTYPE}, no .npy
  ConvertedNpy,          // msaccucmp output {src}.{io}.{i}[.{AxB}].npy (format I)
  StatisticCsv,          // statistic.csv
  MappingCsv,            // mapping.csv
  ExecutionOrder,        // ms_execution_order_graph_{g}.csv
  GlobalExecutionOrder,  // ms_global_execution_order_graph_{g}.csv
  KernelArgsJson,        // {op_type}.{op_name}.json (2.3+)
  Metadata,              // data_dump.json, hccl.json, config.json, acl_dump_{id}.json
  Graph,                 // ms_output_trace_code_graph_{g}.{pb,ir}
  ConvertFailedList,     // convert_failed_file_list.txt
};
std::string_view file_kind_name(FileKind kind);

enum class Io { Input, Output };
std::string_view io_name(Io io);  // "input", "output"

struct DumpFileName {
  FileKind kind = FileKind::Unknown;
  std::string op_type;
  std::string op_name;  // as in the name (format A: the kernel with "--" separators kept)
  std::optional<uint64_t> task_id, stream_id, timestamp;
  std::optional<Io> io;
  std::optional<uint32_t> slot;
  std::string device_format;  // as written ("DefaultFormat", "FracZ", "ND")
  bool device_format_known = true;
  std::string dtype_label;        // as written, empty when the name has none
  std::optional<DType> dtype;     // dtype_label parsed
  std::vector<uint64_t> shape;    // format A only ("shape_0" is a 0-d tensor: empty)
  bool has_shape = false;
  std::optional<uint32_t> graph_id;  // execution order / graph files
  std::string problem;  // for Unknown: which rule failed, for the user
};

// Classifies one file name (no directory part).
DumpFileName parse_dump_file_name(std::string_view basename);

}  // namespace msdt::dump
