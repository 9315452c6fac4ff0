// Throughput of the graph readers (ir spec, summary spec §6) on generated networks: the same
// ResNet/transformer-like graph as .ir text (parse_ir_text) and as a GraphProto
// (parse_graph_proto), written by mkfixture's `"generate"` (tests/mkfixture/README.md, "Generated
// graphs"). The inputs are generated once per run into a temporary directory; mkfixture is the
// one of this build (MSDT_MKFIXTURE, set by bench/CMakeLists.txt) or the MKFIXTURE variable.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "ir/graph_proto.h"
#include "ir/text_parser.h"

namespace {

namespace fs = std::filesystem;

std::string mkfixture_program() {
  if (const char* env = std::getenv("MKFIXTURE")) return env;
#ifdef MSDT_MKFIXTURE
  return MSDT_MKFIXTURE;
#else
  return {};
#endif
}

// The generated file for (nodes, protobuf), read into memory; empty with `error` set on failure.
const std::string& generated(int64_t nodes, bool proto, std::string& error) {
  static std::map<std::pair<int64_t, bool>, std::string> cache;
  auto key = std::pair{nodes, proto};
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  std::string& bytes = cache[key];
  const std::string program = mkfixture_program();
  if (program.empty() || !fs::exists(program)) {
    error = "mkfixture not found; build it or set MKFIXTURE";
    return bytes;
  }
  const fs::path dir = fs::temp_directory_path() / ("msdt-ir-bench-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path description = dir / "graph.json", out = dir / "graph.out";
  std::ofstream(description) << "{\"kind\": \"file\", \"" << (proto ? "graph_proto" : "ir")
                             << "\": {\"style\": \"C\", \"generate\": {\"nodes\": " << nodes
                             << ", \"seed\": 1}}}\n";
  const std::string command =
      program + " " + description.string() + " -o " + out.string() + " > /dev/null";
  if (std::system(command.c_str()) != 0) {
    error = "failed: " + command;
  } else {
    std::ifstream in(out, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    bytes = text.str();
  }
  fs::remove_all(dir);
  return bytes;
}

template <class Parse>
void run(benchmark::State& state, bool proto, Parse parse) {
  std::string error;
  const std::string& input = generated(state.range(0), proto, error);
  if (input.empty()) {
    state.SkipWithError(error.c_str());
    return;
  }
  size_t nodes = 0;
  for (auto _ : state) {
    auto module = parse(input);
    if (!module) {
      state.SkipWithError(module.error().describe().c_str());
      return;
    }
    nodes = 0;
    for (const auto& g : module->graphs) nodes += g.nodes.size();
    benchmark::DoNotOptimize(nodes);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * input.size()));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * nodes));
  state.counters["file_MB"] = static_cast<double>(input.size()) / 1e6;
}

void BM_ParseIrText(benchmark::State& state) {
  run(state, false, [](const std::string& text) { return msdt::ir::parse_ir_text(text); });
}
BENCHMARK(BM_ParseIrText)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);

void BM_ParseGraphProto(benchmark::State& state) {
  run(state, true, [](const std::string& bytes) {
    return msdt::ir::parse_graph_proto(std::as_bytes(std::span(bytes.data(), bytes.size())));
  });
}
BENCHMARK(BM_ParseGraphProto)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);

}  // namespace
