// Reads arbitrary bytes as a safetensors file (checkpoint spec §8): header sizes past the end or
// the cap, headers that are not UTF-8 or not JSON, deep nesting, missing or ill-typed keys,
// offsets that overlap, leave holes, run backwards or past 2^64, shapes whose element count
// overflows, MindSpore metadata (crc_num, Int4). Rejections are normal; a crash, a hang, an
// over-read or an unbounded allocation is not. Every listed tensor's bytes are then taken and
// touched, so a segment that points outside the input is caught by AddressSanitizer, and the
// listing is written back with write_safetensors' header, which must accept what it describes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "model/safetensors.h"
#include "model/sniff.h"
#include "touch.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Use the fuzzer's buffer as is: copying into a larger one would hide over-reads from ASan.
  msdt::Bytes file(reinterpret_cast<const std::byte*>(data), size);
  (void)msdt::model::sniff(file);
  const msdt::model::Safetensors s = msdt::model::read_safetensors(file, {.verify_crc = true});
  if (s.file_size != size) std::abort();
  unsigned sum = 0;
  std::vector<msdt::model::SafetensorsEntry> entries;
  for (const auto& t : s.tensors) {
    const msdt::model::Content& c = t.content;
    if (c.segments.size() != 1 || t.header_offset < 8 || t.header_offset >= s.data_offset())
      std::abort();
    if (auto d = msdt::model::tensor_data(file, c)) {
      // A view holds exactly what its dtype and shape need.
      auto need = msdt::element_count(d->view().shape);
      if (!need || msdt::dtype_bytes(d->view().dtype, *need) != d->view().data.size()) std::abort();
      sum += msdt::fuzz::touch(d->view().data);
      if (msdt::model::safetensors_dtype_name(d->view().dtype))
        entries.push_back({t.name, d->view().dtype, d->view().shape, d->view().data.size()});
    }
    if (auto raw = msdt::model::raw_data(file, c)) sum += msdt::fuzz::touch(raw->view().data);
  }
  for (const auto& [key, value] : s.metadata)
    sum += static_cast<unsigned>(key.size() + value.size());
  for (const auto& problem : s.problems)
    if (!problem.offset || problem.message.find('\n') != std::string::npos)
      std::abort();  // every problem says where, on one line
  // The tensors read back are a valid file to write (their names are UTF-8 and distinct).
  if (!msdt::model::safetensors_header(entries, s.metadata)) std::abort();
  msdt::fuzz::sink = sum + static_cast<unsigned>(s.crc.status);
  return 0;
}
