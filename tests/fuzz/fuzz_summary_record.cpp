// Feeds the input as a whole summary file to the record reader and the event decoder (spec
// summary.md §3, §12): damaged framing, resync, truncated tails and garbage payloads. Rejections
// are normal; a crash, a hang or an unbounded allocation is not.
#include <cstddef>
#include <cstdint>

#include "summary/reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  msdt::Bytes file(reinterpret_cast<const std::byte*>(data), size);
  for (auto kind : {msdt::summary::FileKind::Summary, msdt::summary::FileKind::TfEvents,
                    msdt::summary::FileKind::Lineage}) {
    for (bool verify : {true, false}) {
      msdt::summary::FileReader reader(kind);
      msdt::summary::ReadOptions options;
      options.record.verify = verify;
      options.record.max_length = 1 << 20;
      size_t seen = 0;
      msdt::summary::ReadCallbacks callbacks;
      callbacks.event = [&](const msdt::summary::Event& e) { seen += e.values.size(); };
      callbacks.error = [&](const msdt::Error& e) { seen += e.message.size(); };
      callbacks.truncated = [&](const msdt::Error&) { ++seen; };
      reader.read(file, options, callbacks);
      (void)seen;
    }
  }
  return 0;
}
