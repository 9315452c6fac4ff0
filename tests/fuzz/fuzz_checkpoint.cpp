// Sniffs arbitrary bytes as a model file and reads them as a MindSpore checkpoint (checkpoint spec
// §2-§6): truncated framing, lengths beyond the end, negative and huge dims, sliced parameters,
// strings, map parameters, CRC trailers. Rejections are normal; a crash, a hang, an over-read or an
// unbounded allocation is not. Every parameter's bytes are then taken and touched, so a segment
// that points outside the input is caught by AddressSanitizer.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "model/checkpoint.h"
#include "model/sniff.h"
#include "touch.h"

namespace {

void take(msdt::Bytes file, const msdt::model::Content& content, unsigned& sum) {
  if (auto data = msdt::model::tensor_data(file, content)) {
    // A view holds exactly what its dtype and shape need.
    auto need = msdt::element_count(data->view().shape);
    if (!need || msdt::dtype_bytes(data->view().dtype, *need) != data->view().data.size())
      std::abort();
    sum += msdt::fuzz::touch(data->view().data);
  }
  if (auto raw = msdt::model::raw_data(file, content)) sum += msdt::fuzz::touch(raw->view().data);
  if (content.dtype == msdt::DType::String) (void)msdt::model::string_value(file, content);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Use the fuzzer's buffer as is: copying into a larger one would hide over-reads from ASan.
  msdt::Bytes file(reinterpret_cast<const std::byte*>(data), size);
  (void)msdt::model::sniff(file);
  // The walk reports offsets that only go forward and stay inside the file.
  uint64_t walked = 0;
  const msdt::model::Checkpoint checkpoint =
      msdt::model::read_checkpoint(file, {.verify_crc = true,
                                          .walked =
                                              [&](uint64_t offset) {
                                                if (offset < walked || offset > size) std::abort();
                                                walked = offset;
                                              },
                                          .parameter = {}});
  if (checkpoint.body_size > size) std::abort();
  unsigned sum = 0;
  for (const auto& p : checkpoint.parameters) {
    if (p.value_offsets.empty() || p.offset() >= size) std::abort();
    take(file, p.content, sum);
    for (const auto& component : p.map) take(file, component, sum);
  }
  for (const auto& problem : checkpoint.problems)
    if (!problem.offset) std::abort();  // every problem says where
  msdt::fuzz::sink = sum;
  return 0;
}
