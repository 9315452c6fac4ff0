// One record's payload as an event: MindSpore's `mindspore.irpb.Event` (summary and explain
// files), its `LineageEvent` (lineage files), or TensorFlow's `Event` (tfevents files). The
// dialect is fixed per file before decoding, since the two schemas reuse field numbers with other
// meanings (spec summary.md §15.3).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/byte_reader.h"
#include "io/error.h"
#include "proto/wire_reader.h"
#include "summary/values.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace msdt::summary {

enum class Dialect : uint8_t { MindSpore, TensorFlow, Lineage };

std::string_view dialect_name(Dialect dialect);  // "mindspore", "tensorflow", "lineage"

enum class EventKind : uint8_t {
  Version,  // the first record: "MindSpore.Event:1", "brain.Event:2"
  Summary,  // values
  Graph,    // MindSpore: a GraphProto (anf_ir); TensorFlow: a serialized GraphDef
  Explain,  // an `_explain` record
  Lineage,  // train or evaluation lineage, dataset graph, user-defined info
  Other,    // TensorFlow's session logs, log messages, run metadata; an empty event
};

std::string_view event_kind_name(EventKind kind);

struct Event {
  uint64_t offset = 0;  // the payload's byte offset in the file
  double wall_time = 0;
  std::optional<int64_t> step;
  EventKind kind = EventKind::Other;
  std::string version;
  std::vector<Value> values;
  Bytes graph;  // Graph: the message, a view into the file
  uint64_t graph_offset = 0;
  // Explain, Lineage and Other: the content as JSON, keys named as in the .proto files
  // (e.g. {"train_lineage": {"hyper_parameters": {"learning_rate": 0.01, …}}}).
  nlohmann::ordered_json detail;
};

// Which parts of an event a command needs: tensor elements, image and graph bytes stay views
// either way; `values` false skips Summary values altogether (e.g. listing graphs only).
struct DecodeOptions {
  bool values = true;
};

// Decodes the events of one file in order. TensorFlow writers attach a value's plugin metadata
// only to the first value of a tag, so the decoder remembers it per tag.
class EventDecoder {
 public:
  // `explain_file`: field 6 of a MindSpore event is `explain` (current schema) rather than the
  // 0.1-era `train_lineage`; without it the field's content decides (spec §9).
  explicit EventDecoder(Dialect dialect, bool explain_file = false)
      : dialect_(dialect), explain_file_(explain_file) {}

  Dialect dialect() const { return dialect_; }

  // `base`: the payload's offset in the file, for error offsets. Unknown fields are skipped;
  // an error means the payload is not a protobuf message of the expected shape.
  Expected<Event> decode(Bytes payload, uint64_t base, const DecodeOptions& options = {});
  // The same into `out`, which is overwritten whole but keeps its memory: a reader decoding
  // record after record into one Event allocates nothing per value. `out` is unspecified after
  // an error.
  Status decode_into(Bytes payload, uint64_t base, const DecodeOptions& options, Event& out);

 private:
  Dialect dialect_;
  bool explain_file_;
  std::map<std::string, std::string, std::less<>> plugin_by_tag_;
};

// The events of one MindSpore writer are nearly all of one shape (wall_time, step, then scalars,
// each a short tag and a float: decode_into's fast case) and differ from one another only in the
// wall time, the step and the floats' bytes. Once an event of that shape is taken, matches() tells
// whether another payload has exactly the same tags in the same layout, without decoding it: a
// comparison of its bytes with the taken ones outside those fields. For readers that only count
// values (summary-cat --tags: EventPart::takes_runs in reader.h).
class RepeatedShape {
 public:
  // Takes `payload` as the shape when it is an event of the common shape (true); otherwise false,
  // and the shape taken before is kept.
  bool take(Bytes payload);
  bool taken() const { return !bytes_.empty(); }
  size_t size() const { return bytes_.size(); }
  // Whether `payload` has the shape taken; its step in `step` when it does. Inline: a run's
  // records are checked by it in a loop of their own (reader.cpp).
  bool matches(Bytes payload, int64_t& step) const;

 private:
  std::vector<uint8_t> bytes_;  // the payload taken
  std::vector<uint8_t> mask_;   // 0xFF where bytes must equal it, 0 in wall_time, step, floats
  size_t step_end_ = 0;         // the step's varint is bytes [10, step_end_)
};

inline bool RepeatedShape::matches(Bytes payload, int64_t& step) const {
  const size_t n = payload.size();
  if (n != bytes_.size() || n == 0) return false;
  const std::byte* p = payload.data();
  const auto* b = reinterpret_cast<const std::byte*>(bytes_.data());
  const auto* m = reinterpret_cast<const std::byte*>(mask_.data());
  // Every byte compared, without an early exit; 16 at a time, the last 16 overlapping the ones
  // before (comparing a byte twice changes nothing).
  size_t i = 0;
#if defined(__SSE2__)
  if (n >= 16) {
    auto load = [](const std::byte* at) {
      return _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
    };
    __m128i differ = _mm_setzero_si128();
    for (; i + 16 <= n; i += 16)
      differ =
          _mm_or_si128(differ, _mm_and_si128(_mm_xor_si128(load(p + i), load(b + i)), load(m + i)));
    const size_t last = n - 16;
    differ = _mm_or_si128(
        differ, _mm_and_si128(_mm_xor_si128(load(p + last), load(b + last)), load(m + last)));
    if (_mm_movemask_epi8(_mm_cmpeq_epi8(differ, _mm_setzero_si128())) != 0xFFFF) return false;
    i = n;
  }
#endif
  uint64_t differ = 0;
  for (; i + 8 <= n; i += 8) differ |= (load_u64le(p + i) ^ load_u64le(b + i)) & load_u64le(m + i);
  for (; i < n; ++i) differ |= static_cast<uint64_t>((p[i] ^ b[i]) & m[i]);
  if (differ) return false;
  // The step's varint must have the same width: it ends where the taken one does.
  size_t at = 10;
  uint64_t value = 0;
  if (!proto::simple_varint(reinterpret_cast<const uint8_t*>(p), step_end_, at, value) ||
      at != step_end_)
    return false;
  step = static_cast<int64_t>(value);
  return true;
}

// The dialect a file's first record says: a version string starting with "MindSpore.Event:"
// (any case) or "brain.Event:"; nullopt when the payload is no version event.
std::optional<Dialect> dialect_of_version_record(Bytes payload);

// anf_ir's DataType (spec §6.1) as our DType; nullopt for non-numeric or unknown types.
std::optional<DType> dtype_of_anf(uint64_t data_type);
// TensorFlow's DataType (spec §15.2) as our DType.
std::optional<DType> dtype_of_tf(uint64_t data_type);

}  // namespace msdt::summary
