// Feeds the input as one record's payload to the event decoder of each dialect (spec summary.md
// §5, §7, §15), and renders what it decoded as summary-cat would: tensors whose dims disagree
// with their data, absurd shapes, nested lineage maps, both meanings of field 6.
#include <cstddef>
#include <cstdint>

#include "summary/event.h"
#include "summary/output.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  msdt::Bytes payload(reinterpret_cast<const std::byte*>(data), size);
  using msdt::summary::Dialect;
  for (Dialect dialect : {Dialect::MindSpore, Dialect::TensorFlow, Dialect::Lineage}) {
    for (bool explain : {false, true}) {
      msdt::summary::EventDecoder decoder(dialect, explain);
      auto event = decoder.decode(payload, 0);
      if (!event) continue;
      size_t touched = event->detail.dump().size();
      for (const auto& value : event->values) {
        touched += msdt::summary::render_value(value).size();
        touched += msdt::summary::value_json(value).dump().size();
      }
      (void)touched;
    }
  }
  (void)msdt::summary::dialect_of_version_record(payload);
  return 0;
}
