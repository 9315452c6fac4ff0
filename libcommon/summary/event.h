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

#include "io/error.h"
#include "summary/values.h"

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
  // Whether `payload` has the shape taken; its step in `step` when it does.
  bool matches(Bytes payload, int64_t& step) const;

 private:
  std::vector<uint8_t> bytes_;  // the payload taken
  std::vector<uint8_t> mask_;   // 0xFF where bytes must equal it, 0 in wall_time, step, floats
  size_t step_end_ = 0;         // the step's varint is bytes [10, step_end_)
};

// The dialect a file's first record says: a version string starting with "MindSpore.Event:"
// (any case) or "brain.Event:"; nullopt when the payload is no version event.
std::optional<Dialect> dialect_of_version_record(Bytes payload);

// anf_ir's DataType (spec §6.1) as our DType; nullopt for non-numeric or unknown types.
std::optional<DType> dtype_of_anf(uint64_t data_type);
// TensorFlow's DataType (spec §15.2) as our DType.
std::optional<DType> dtype_of_tf(uint64_t data_type);

}  // namespace msdt::summary
