// Reads arbitrary bytes as a MindIR model (mindir spec §2-§5, §4.10): both generations, truncated
// messages, lengths beyond their message, wrong wire types, typed repeated fields, external data
// and graph chunks. Rejections and problems are normal; a crash, a hang, an over-read or an
// unbounded allocation is not. Every weight's bytes are taken and touched (external ones from the
// input itself, standing in for the data file), so a segment outside its file is caught by ASan.
// The model is then converted to the graph model and drawn (ir-to-dot FILE.mindir).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "ir/draw.h"
#include "ir/mindir_graph.h"
#include "model/mindir.h"
#include "touch.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Use the fuzzer's buffer as is: copying into a larger one would hide over-reads from ASan.
  msdt::Bytes file(reinterpret_cast<const std::byte*>(data), size);
  msdt::model::MindIR model = msdt::model::read_mindir(file);
  // The same bytes as a 1.2-1.5 data file (spec §5.2).
  msdt::model::add_graph_chunk(model, file, "Net_variables/data_0");
  const msdt::model::MindIRFileSource source =
      [&](std::string_view) -> msdt::Expected<msdt::Bytes> { return file; };
  unsigned sum = 0;
  for (const auto& weight : model.weights) {
    if (weight.graph >= model.graphs.size()) std::abort();
    if (auto got = msdt::model::mindir_tensor_data(file, weight, source)) {
      auto need = msdt::element_count(got->view().shape);
      if (!need || msdt::dtype_bytes(got->view().dtype, *need) != got->view().data.size())
        std::abort();
      sum += msdt::fuzz::touch(got->view().data);
    }
  }
  for (const auto& graph : model.graphs)
    for (size_t w : graph.weights)
      if (w >= model.weights.size()) std::abort();
  for (const auto& problem : model.problems)
    if (!problem.offset) std::abort();  // every problem says where
  (void)model.data_files();
  const msdt::ir::Module module = msdt::ir::mindir_module(model);
  if (auto dot = msdt::ir::draw_dot(module, msdt::ir::DrawOptions{}))
    sum += msdt::fuzz::touch(std::as_bytes(std::span(*dot)));
  msdt::fuzz::sink = sum;
  return 0;
}
