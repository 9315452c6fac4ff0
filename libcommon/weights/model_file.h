// One model file opened for ckpt-inspect, whatever its format: mapped, recognised by content
// (model/sniff.h), read by its format's reader, and seen as one list of tensors (Item) with the
// format's own facts for --info. Formats: `.ckpt` (model/checkpoint.h), safetensors
// (model/safetensors.h), MindIR (model/mindir.h), MindSpore Lite `.ms` (model/ms_lite.h) and the
// `-graph.meta` graph (ir/load.h: its parameters are listed without bytes).
//
// Nothing here reads tensor bytes: item_data gives one item's elements when a mode needs them.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/error.h"
#include "io/mapped_file.h"
#include "model/content.h"
#include "model/sniff.h"

namespace msdt::weights {

// What few items have (MindIR and .ms weights, safetensors tensors stored as another dtype's
// view): kept apart, so that an item of a checkpoint of millions of plain tensors takes no room
// for it.
struct ItemDetail {
  std::string storage;  // MindIR: "raw_data", "external", "float_data", ...; empty otherwise
  std::string source;   // the external data file (relative to the model's folder), if any
  // Dims with a dynamic (negative) axis, as declared (a .ms graph input: [-1, 1, 4, 4]); the
  // content then has no shape and the element count is unknown.
  std::vector<int64_t> dynamic_dims;
};

// One listed tensor.
struct Item {
  std::string name;  // a map parameter's components are "<name>.keys", ".values", ".status"
  // "tensor", "str" (a string parameter), "random_op" (opaque RNG state), "map" (a map
  // parameter's component), "weight" (a MindIR or .ms tensor), "parameter" (-graph.meta: a graph
  // parameter, no bytes in the file).
  std::string_view kind;  // one of those static spellings
  model::Content content;
  std::unique_ptr<ItemDetail> detail;  // null: all its fields empty
  std::optional<uint64_t> offset;  // where the entry starts in the file (.ckpt: its first Value)
  bool has_bytes = true;           // false for -graph.meta parameters
  size_t index = 0;                // the reader's own number for it (a MindIR weight), for data()
  // The bytes its elements take when they are stored as values, not bytes (MindIR float_data,
  // int64_data, ...: varints or fields one by one); otherwise content.bytes().
  std::optional<uint64_t> element_bytes;
  uint64_t bytes() const { return element_bytes ? *element_bytes : content.bytes(); }
  const std::string& storage() const;
  const std::string& source() const;
  const std::vector<int64_t>& dynamic_dims() const;
  ItemDetail& set_detail();  // the detail, made when there is none
  // Its bytes are elements of a known dtype: data() gives them as that dtype (else as raw bytes:
  // strings, random_op, unknown spellings, compressed weights, -graph.meta parameters).
  bool numeric() const {
    return has_bytes && content.dtype && content.expected_bytes && kind != "str" &&
           kind != "random_op";
  }
  // bytes() is what the dtype and shape need (true when there is nothing to check).
  bool consistent() const { return !content.expected_bytes || *content.expected_bytes == bytes(); }
};

struct OpenOptions {
  bool verify_crc = false;  // .ckpt and safetensors crc_num (reads the whole file)
};

class ModelFile {
 public:
  std::string path;  // as given
  model::Sniff sniff;
  // A deque: items are added as the file is read, without the copies and the spare capacity of a
  // vector grown by doubling (a checkpoint may have millions of parameters).
  std::deque<Item> items;
  // --info facts in order (kind, version fields, counts, CRC, MindIR header, ...): JSON values.
  nlohmann::ordered_json info = nlohmann::ordered_json::object();
  // Why the tensors cannot be listed at all (an encrypted file: the key is needed); --info still
  // describes the file.
  std::optional<Error> unlistable;
  // Damage the reader found (each with its offset); what came before it is listed.
  std::vector<Error> problems;

  const MappedFile& file() const { return *file_; }
  // The elements of `item` (Item::numeric) or its raw bytes: a view into the mapped file or an
  // external data file, or a copy.
  Expected<model::TensorData> data(const Item& item) const;
  // Gives back the pages of `item`'s bytes once a one-pass reader is done with them.
  void drop(const Item& item) const;
  // Starts reading `item`'s bytes from the disk in the background, ahead of data() (a no-op for
  // bytes in another file).
  void prefetch(const Item& item) const;

  struct Format;  // the reader's own state for data(): external files mapped once, MindIR weights

 private:
  friend Expected<ModelFile> open_model(const std::string& path, const OpenOptions& options);
  std::shared_ptr<MappedFile> file_;
  std::shared_ptr<const Format> format_;
};

// Opens and reads `path` ("-" is standard input). An error only when the file cannot be read at
// all or is not a model file ("not a checkpoint: looks like ...").
Expected<ModelFile> open_model(const std::string& path, const OpenOptions& options = {});

}  // namespace msdt::weights
