// Reads arbitrary bytes as a MindSpore Lite `.ms` model (mindir spec §9): root offsets and vtable
// offsets anywhere, vtables and tables past the end, vectors with huge counts, tables shared by
// many entries. Rejections and problems are normal; a crash, a hang, an over-read or an unbounded
// allocation is not. Every tensor's data range is then taken and touched, so a segment outside
// the input is caught by AddressSanitizer.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "model/ms_lite.h"
#include "model/sniff.h"
#include "touch.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Use the fuzzer's buffer as is: copying into a larger one would hide over-reads from ASan.
  msdt::Bytes file(reinterpret_cast<const std::byte*>(data), size);
  (void)msdt::model::sniff(file);
  const msdt::model::MsLite model = msdt::model::read_ms_lite(file);
  if (model.tensors.size() > model.tensor_count) std::abort();
  if (model.supported != (model.identifier == "MSL2" || model.legacy.has_value())) std::abort();
  // A file sniffed as a 0.7-1.0 model is decoded with that schema.
  if (model.legacy != msdt::model::lite_legacy_schema(file)) std::abort();
  unsigned sum = 0;
  for (const auto& t : model.tensors) {
    if (t.offset >= size || t.content.segments.size() > 1) std::abort();
    if (t.external) continue;  // its range lies in another file
    if (auto view = msdt::model::tensor_data(file, t.content)) {
      // A view holds exactly what its dtype and shape need.
      auto need = msdt::element_count(view->view().shape);
      if (!need || msdt::dtype_bytes(view->view().dtype, *need) != view->view().data.size())
        std::abort();
      sum += msdt::fuzz::touch(view->view().data);
    }
    if (auto raw = msdt::model::raw_data(file, t.content))
      sum += msdt::fuzz::touch(raw->view().data);
  }
  for (const auto& problem : model.problems)
    if (!problem.offset) std::abort();  // every problem says where
  msdt::fuzz::sink = sum;
  return 0;
}
