// What rdr-inspect does: finds the Running Data Recorder's directories under a path (the 1.6+
// `rank_N/rdr/` layout, a rank or rdr directory given directly, the 1.2-1.3 flat layout), reads
// every recorder file of every rank and failure (timestamp) on the worker pool, and answers from
// them: the default one-screen report with its diagnosis (the kernel that was running, its
// execution-order position, stream, graph node and memory, and which file to open next), the
// execution order around a kernel, the memory of the kernels launched, the stream assignment, one
// graph as text or DOT, and the side-by-side table of where each rank stopped. Every view is built
// once as data and spelled as text or as one JSON document (spec rdr.md; the keys are documented
// in rdr-inspect(1)).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dump/select.h"
#include "io/regex.h"
#include "io/report.h"
#include "ir/graph.h"
#include "rdr/recorders.h"

namespace msdt::rdr {

// One recorder file and what it held.
struct RecorderFile {
  std::string path;  // as found under the input
  RecorderName name;
  Kind kind = Kind::Text;
  std::string detail;  // graphs: "1.x order", "RDR 2.x order", "protobuf", ".dat"
  uint64_t bytes = 0;
  std::optional<Error> problem;  // malformed: reported, its content left out of the diagnosis
  std::optional<ExecOrder> exec_order;
  std::optional<StreamAssignment> streams;
  std::optional<MemoryList> memory;
  std::optional<TaskList> tasks;
  std::shared_ptr<ir::Module> graph;
  std::string first_line;  // text recorders: the first non-blank line (shown in the listing)
};

// Everything one rank recorded at one failure (files sharing a timestamp).
struct Failure {
  std::string timestamp;            // 14 digits
  std::vector<RecorderFile> files;  // by kind, then name
};

struct RankRecord {
  std::optional<uint32_t> rank;  // absent in the flat layout
  std::string directory;
  std::vector<Failure> failures;     // by timestamp
  std::vector<std::string> ignored;  // files whose names are not the recorder's pattern
};

struct Recording {
  std::string input;
  std::vector<RankRecord> ranks;  // by rank
};

struct ReadOptions {
  std::optional<dump::IdList> ranks;     // --rank
  std::optional<std::string> timestamp;  // --time: one failure (14 digits, or "last")
  unsigned jobs = 1;
};

// Reads every recorder file under `input`. Malformed files are reported to `diagnostics` (one
// line naming the file and line) and kept with their problem; an input without any recorder file
// is an error.
Expected<Recording> read_recording(const std::string& input, const ReadOptions& options,
                                   Diagnostics& diagnostics);

// Where one rank's failure stopped, and what the files say about that kernel. The pointers point
// into the Failure diagnosed, which must outlive the Diagnosis.
struct Diagnosis {
  std::string last_kernel;  // the fullname of the last kernel in the memory list; empty if none
  const RecorderFile* memory_file = nullptr;
  const RecorderFile* broken_memory = nullptr;  // a memory list that could not be read
  const KernelMemory* memory = nullptr;
  uint64_t launched = 0;  // kernels in the memory list (launched in the last step)

  const RecorderFile* exec_file = nullptr;  // the execution order holding the kernel
  size_t block = 0;                         // its block (the last one recorded)
  std::optional<size_t> position;           // its index in that block
  size_t total = 0;                         // kernels in that block
  std::string located_by;                   // how the position was found

  const StreamNode* stream = nullptr;  // from assign_stream
  const TaskInfo* task = nullptr;      // from task_info_graph
  const RecorderFile* graph_file = nullptr;
  const ir::Graph* graph = nullptr;
  const ir::Node* node = nullptr;

  std::string next;  // one line: which file to open next and why
};
Diagnosis diagnose(const Failure& failure);

enum class View : uint8_t { Report, ExecOrder, Memory, Streams, Graph, Dot };

struct ViewOptions {
  View view = View::Report;
  bool json = false;
  const Regex* around = nullptr;     // --around: centre the execution order on a match
  uint32_t context = 5;              // --context
  std::optional<uint32_t> graph_id;  // --graph
};

// The text (or the JSON document) of `view` over every recording read. Exit status by the caller
// (problems were reported while reading; a view that finds nothing to show says so in the
// output). Errors: --graph ID names no graph file, a DOT drawing over its node limit.
Expected<std::string> render(const std::vector<Recording>& recordings, const ViewOptions& options);

}  // namespace msdt::rdr
