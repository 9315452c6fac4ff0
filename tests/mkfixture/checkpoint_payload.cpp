// MindSpore checkpoints (README.md, "ckpt", "encrypted", "safetensors" and "Generated
// checkpoints"; spec checkpoint.md §3-§8): concatenated Checkpoint messages with sliced, string,
// opaque and map parameters and the 2.3+ CRC trailer, the encryption block container, safetensors
// files with MindSpore's metadata, and a large checkpoint streamed to disk for benchmarks.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <optional>
#include <set>
#include <string>

#include "elements.h"
#include "generated_output.h"
#include "payloads.h"
#include "support/proto_writer.h"
#include "tensor/dtype.h"
#include "writers.h"

namespace msdt::fixture {
namespace fs = std::filesystem;
namespace {

using testing::ProtoWriter;

// zlib's CRC-32 (binascii.crc32), chained like it: crc32(b, crc32(a)) == crc32(a + b).
uint32_t crc32_update(uint32_t crc, std::span<const std::byte> data) {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  crc = ~crc;
  for (std::byte b : data) crc = table[(crc ^ static_cast<uint8_t>(b)) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

std::span<const std::byte> as_bytes(std::string_view text) {
  return std::as_bytes(std::span(text.data(), text.size()));
}

void append(std::vector<std::byte>& out, std::span<const std::byte> more) {
  out.insert(out.end(), more.begin(), more.end());
}

void put_le(std::vector<std::byte>& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<std::byte>(value >> (8 * i)));
}

// "crc": true (the right value), "bad" (the right value with its lowest bit flipped), an integer
// (that value), or false (none).
std::optional<uint64_t> crc_choice(const Node& node, uint32_t right) {
  const json& v = node.value();
  if (v.is_boolean()) return v.get<bool>() ? std::optional<uint64_t>(right) : std::nullopt;
  if (v.is_string() && v.get<std::string>() == "bad") return right ^ 1u;
  if (v.is_number_unsigned() || v.is_string()) return node.u64();
  node.fail("expected true, false, \"bad\" or an integer, found " + brief(v));
}

// The §6 trailer: "crc_num" and the value as 10 big-endian bytes.
void append_crc_trailer(std::vector<std::byte>& out, uint64_t value) {
  append(out, as_bytes("crc_num"));
  for (int i = 9; i >= 0; --i)
    out.push_back(i >= 8 ? std::byte{0} : static_cast<std::byte>(value >> (8 * i)));
}

// The element type a checkpoint tensor_type spelling stands for, when mkfixture can encode
// values for it: MindSpore's labels ("Float32", "BFloat16", "Int4", "Bool"), the loader's old
// "Uint8" … "Uint64" (§5) and NumPy names (map parameters, §4.5). "str", "random_op" and unknown
// spellings have none.
std::optional<DType> ckpt_dtype(std::string_view spelling) {
  static constexpr std::pair<std::string_view, DType> kOldUnsigned[] = {{"Uint8", DType::UInt8},
                                                                        {"Uint16", DType::UInt16},
                                                                        {"Uint32", DType::UInt32},
                                                                        {"Uint64", DType::UInt64}};
  for (const auto& [name, dtype] : kOldUnsigned)
    if (spelling == name) return dtype;
  if (spelling == "str" || spelling == "random_op") return std::nullopt;
  auto dtype = parse_dtype_label(spelling);
  if (dtype && *dtype == DType::String) return std::nullopt;
  return dtype;
}

// safetensors dtype strings (the safetensors format's Dtype names).
std::optional<DType> safetensors_dtype(std::string_view spelling) {
  static constexpr std::pair<std::string_view, DType> kNames[] = {
      {"BOOL", DType::Bool},     {"U8", DType::UInt8},           {"I8", DType::Int8},
      {"I16", DType::Int16},     {"U16", DType::UInt16},         {"F16", DType::Float16},
      {"BF16", DType::BFloat16}, {"I32", DType::Int32},          {"U32", DType::UInt32},
      {"F32", DType::Float32},   {"F64", DType::Float64},        {"I64", DType::Int64},
      {"U64", DType::UInt64},    {"F8_E5M2", DType::Float8E5M2}, {"F8_E4M3", DType::Float8E4M3FN},
      {"C64", DType::Complex64},
  };
  for (const auto& [name, dtype] : kNames)
    if (spelling == name) return dtype;
  return std::nullopt;
}

// UTF-8 text as UTF-32LE, what NumPy's `U` dtype holds (§4.3).
std::vector<std::byte> utf32le(const Node& node) {
  const std::string text = node.string();
  std::vector<std::byte> out;
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    int extra = c < 0x80           ? 0
                : (c >> 5) == 0x6  ? 1
                : (c >> 4) == 0xE  ? 2
                : (c >> 3) == 0x1E ? 3
                                   : -1;
    if (extra < 0 || (extra > 0 && i + static_cast<size_t>(extra) >= text.size()))
      node.fail("the text is not valid UTF-8");
    uint32_t code = extra == 0 ? c : c & (0x3Fu >> extra);
    for (int k = 1; k <= extra; ++k) {
      const auto next = static_cast<unsigned char>(text[i + static_cast<size_t>(k)]);
      if ((next & 0xC0) != 0x80) node.fail("the text is not valid UTF-8");
      code = code << 6 | (next & 0x3Fu);
    }
    put_le(out, code, 4);
    i += static_cast<size_t>(extra) + 1;
  }
  return out;
}

// One TensorProto as the description states it, its content already encoded.
struct Tensor {
  std::string type;
  std::vector<int64_t> dims;
  bool packed = false;
  std::vector<std::byte> content;
  uint64_t element_bytes = 0;  // whole-byte element types: slices are cut between elements
};

// A tensor object: "dtype", "shape", one of "values"/"fill" (an encodable dtype), "text"
// (UTF-32LE), "hex" (these bytes); "packed_dims".
Tensor read_tensor(const Node& t) {
  Tensor out;
  out.type = t.at("dtype").string();
  if (auto p = t.find("packed_dims")) out.packed = p->boolean();
  int sources = 0;
  for (auto key : {"values", "fill", "text", "hex"}) sources += t.has(key) ? 1 : 0;
  if (sources > 1) t.fail("give one of \"values\", \"fill\", \"text\" and \"hex\"");
  if (auto s = t.find("shape")) {
    for (const auto& d : s->elements()) out.dims.push_back(d.i64());
  } else if (t.has("text")) {
    out.dims = {0};  // a string is written with dims [0] (§4.3)
  } else if (auto v = t.find("values")) {
    out.dims = {static_cast<int64_t>(v->elements().size())};
  } else if (!t.has("hex")) {
    t.fail("missing \"shape\"");
  }
  if (auto h = t.find("hex")) {
    out.content = parse_hex(*h);
    return out;
  }
  if (auto text = t.find("text")) {
    out.content = utf32le(*text);
    return out;
  }
  const auto dtype = ckpt_dtype(out.type);
  if (!dtype)
    t.at("dtype").fail("mkfixture has no element encoding for \"" + out.type +
                       "\"; give the content as \"hex\" (or \"text\" for a string)");
  std::vector<uint64_t> shape;
  for (int64_t d : out.dims) {
    if (d < 0) t.at("shape").fail("a negative dimension needs the content as \"hex\"");
    shape.push_back(static_cast<uint64_t>(d));
  }
  out.content = encode_elements(*dtype, parse_value_spec(t), shape_elements(shape, t));
  if (dtype_bits(*dtype) % 8 == 0) out.element_bytes = dtype_bits(*dtype) / 8;
  return out;
}

ProtoWriter tensor_proto(const Tensor& t, std::span<const std::byte> content) {
  ProtoWriter w;
  if (t.packed) {
    if (!t.dims.empty()) {
      std::vector<uint64_t> dims;
      for (int64_t d : t.dims) dims.push_back(static_cast<uint64_t>(d));
      w.packed_varints(1, dims);
    }
  } else {
    for (int64_t d : t.dims) w.varint(1, static_cast<uint64_t>(d));  // one tag per dim (§3.1)
  }
  w.string(2, t.type);
  w.bytes(3, content);
  return w;
}

// "slices": N cuts the content like np.array_split into N pieces (between elements when the
// element size is a whole number of bytes and divides the content); a list gives each piece's
// size in bytes.
std::vector<std::pair<size_t, size_t>> slice_ranges(const Tensor& t, const std::optional<Node>& n) {
  const size_t size = t.content.size();
  if (!n) return {{0, size}};
  std::vector<std::pair<size_t, size_t>> out;
  if (n->is_array()) {
    size_t offset = 0;
    for (const auto& piece : n->elements()) {
      const uint64_t bytes = piece.u64();
      if (bytes > size - offset)
        piece.fail("the slices add up to more than the content's " + std::to_string(size) +
                   " bytes");
      out.emplace_back(offset, bytes);
      offset += bytes;
    }
    if (offset != size)
      n->fail("the slices add up to " + std::to_string(offset) + " bytes, the content is " +
              std::to_string(size));
    if (out.empty()) n->fail("expected at least one slice");
    return out;
  }
  const uint64_t pieces = n->u64();
  if (pieces == 0) n->fail("expected at least one slice");
  const size_t unit = t.element_bytes > 0 && size % t.element_bytes == 0 ? t.element_bytes : 1;
  const size_t units = size / unit;
  size_t offset = 0;
  for (uint64_t i = 0; i < pieces; ++i) {
    const size_t count = units / pieces + (i < units % pieces ? 1 : 0);
    out.emplace_back(offset, count * unit);
    offset += count * unit;
  }
  return out;
}

void append_checkpoint_message(std::vector<std::byte>& out, const ProtoWriter& value,
                               const std::optional<std::string>& model_type) {
  ProtoWriter checkpoint;
  checkpoint.message(1, value);
  if (model_type) checkpoint.string(2, *model_type);  // v0.5's Checkpoint.model_type (§3.2)
  append(out, checkpoint.data());
}

}  // namespace

std::vector<std::byte> build_ckpt(const Node& ckpt) {
  ckpt.check_keys({"parameters", "crc", "extra_top_field"});
  std::optional<std::string> model_type;
  if (auto e = ckpt.find("extra_top_field")) {
    if (e->value().is_boolean()) {
      if (e->boolean()) model_type = "normal";
    } else {
      model_type = e->string();
    }
  }
  std::vector<std::byte> out;
  for (const auto& p : ckpt.at("parameters").elements()) {
    const std::string name = name_bytes(p.at("name"));
    if (auto map = p.find("map")) {
      p.check_keys({"name", "map"});
      // A map parameter: one Value per slice, each with a MapTensorProto of keys, values and
      // status (§4.5).
      std::vector<Node> slices = map->is_array() ? map->elements() : std::vector<Node>{*map};
      if (slices.empty()) map->fail("expected at least one slice");
      for (const auto& slice : slices) {
        slice.check_keys({"keys", "values", "status"});
        ProtoWriter maptensor;
        for (auto key : {"keys", "values", "status"}) {
          const Node tn = slice.at(key);
          tn.check_keys({"dtype", "shape", "values", "fill", "hex", "packed_dims"});
          const Tensor t = read_tensor(tn);
          maptensor.message(1, tensor_proto(t, t.content));
        }
        ProtoWriter value;
        value.string(1, name).message(3, maptensor);
        append_checkpoint_message(out, value, model_type);
      }
      continue;
    }
    p.check_keys(
        {"name", "dtype", "shape", "values", "fill", "text", "hex", "slices", "packed_dims"});
    const Tensor t = read_tensor(p);
    for (const auto& [offset, size] : slice_ranges(t, p.find("slices"))) {
      ProtoWriter value;
      value.string(1, name).message(2, tensor_proto(t, std::span(t.content).subspan(offset, size)));
      append_checkpoint_message(out, value, model_type);
    }
  }
  if (auto c = ckpt.find("crc")) {
    if (auto v = crc_choice(*c, crc32_update(0, out))) append_crc_trailer(out, *v);
  }
  return out;
}

std::vector<std::byte> build_encrypted(const Node& e) {
  e.check_keys({"mode", "blocks", "layout", "seed"});
  const std::string mode = e.has("mode") ? e.at("mode").string() : "AES-GCM";
  const std::string layout = e.has("layout") ? e.at("layout").string() : "new";
  if (layout != "new" && layout != "old")
    e.at("layout").fail("expected \"new\" (1.7+) or \"old\" (1.3-1.6), found \"" + layout + "\"");
  uint32_t magic = 0;
  if (mode == "AES-GCM")
    magic = 0x7F3A5ED8;
  else if (mode == "AES-CBC")
    magic = 0x7F3A5ED9;
  else if (mode == "SM4-CBC")
    magic = 0x7F3A5EDA;
  else
    e.at("mode").fail("expected \"AES-GCM\", \"AES-CBC\" or \"SM4-CBC\", found \"" + mode + "\"");
  if (layout == "old") {
    if (mode == "SM4-CBC") e.at("mode").fail("the old layout (1.3-1.6) has no SM4-CBC");
    magic = 0x7F3A5ED8;  // one MAGIC_NUM whatever the mode (§7.3)
  }
  const bool gcm_tag = layout == "new" && mode == "AES-GCM";
  SplitMix64 rng{e.has("seed") ? e.at("seed").u64() : 1};
  std::vector<std::byte> out;
  auto random_bytes = [&](uint64_t n) {
    for (uint64_t i = 0; i < n; ++i) out.push_back(static_cast<std::byte>(rng.next() >> 56));
  };
  for (const auto& block : e.at("blocks").elements()) {
    uint64_t cipher_len = 0;
    std::optional<uint64_t> block_len, iv_len, declared_cipher;
    if (block.is_object()) {
      block.check_keys({"cipher_len", "block_len", "iv_len", "declared_cipher_len"});
      cipher_len = block.at("cipher_len").u64();
      if (auto b = block.find("block_len")) block_len = b->u64();
      if (auto i = block.find("iv_len")) iv_len = i->u64();
      if (auto d = block.find("declared_cipher_len")) declared_cipher = d->u64();
    } else {
      cipher_len = block.u64();
    }
    put_le(out, magic, 4);
    if (gcm_tag) random_bytes(16);
    put_le(out, block_len.value_or(4 + 16 + 4 + cipher_len), 4);
    put_le(out, iv_len.value_or(16), 4);
    random_bytes(16);
    put_le(out, declared_cipher.value_or(cipher_len), 4);
    random_bytes(cipher_len);
  }
  return out;
}

std::vector<std::byte> build_safetensors(const Node& s) {
  s.check_keys({"tensors", "metadata", "crc", "header_size", "order", "align", "header_text"});
  struct Entry {
    std::string name, dtype;
    std::vector<uint64_t> shape;
    std::vector<std::byte> data;
  };
  std::vector<Entry> entries;
  std::set<std::string> names;
  for (const auto& t : s.at("tensors").elements()) {
    t.check_keys({"name", "dtype", "shape", "values", "fill", "hex"});
    Entry e;
    e.name = t.at("name").string();
    if (!names.insert(e.name).second) t.at("name").fail("a second tensor named \"" + e.name + "\"");
    e.dtype = t.at("dtype").string();
    if (t.has("hex") && (t.has("values") || t.has("fill")))
      t.fail("give one of \"values\", \"fill\" and \"hex\"");
    if (auto sh = t.find("shape"))
      e.shape = sh->u64_list();
    else if (auto v = t.find("values"))
      e.shape = {v->elements().size()};
    else
      t.fail("missing \"shape\"");
    if (auto h = t.find("hex")) {
      e.data = parse_hex(*h);
    } else {
      const auto dtype = safetensors_dtype(e.dtype);
      if (!dtype)
        t.at("dtype").fail("mkfixture has no element encoding for \"" + e.dtype +
                           "\"; give the data as \"hex\"");
      e.data = encode_elements(*dtype, parse_value_spec(t), shape_elements(e.shape, t));
    }
    entries.push_back(std::move(e));
  }
  const std::string order = s.has("order") ? s.at("order").string() : "as written";
  if (order == "sorted") {
    std::stable_sort(entries.begin(), entries.end(),
                     [](const Entry& a, const Entry& b) { return a.name < b.name; });
  } else if (order == "library") {
    // The safetensors library's own order: its Dtype enum descending, then the name.
    static constexpr std::string_view kDtypeOrder[] = {"BOOL", "U8",  "I8",  "F8_E5M2", "F8_E4M3",
                                                       "I16",  "U16", "F16", "BF16",    "I32",
                                                       "U32",  "F32", "F64", "I64",     "U64"};
    auto rank = [&](const Entry& e) {
      for (size_t i = 0; i < std::size(kDtypeOrder); ++i)
        if (e.dtype == kDtypeOrder[i]) return static_cast<int>(i);
      return -1;
    };
    std::stable_sort(entries.begin(), entries.end(), [&](const Entry& a, const Entry& b) {
      return rank(a) != rank(b) ? rank(a) > rank(b) : a.name < b.name;
    });
  } else if (order != "as written") {
    s.at("order").fail("expected \"as written\", \"sorted\" or \"library\", found \"" + order +
                       "\"");
  }

  json header = json::object();
  json metadata = json::object();
  bool has_metadata = false;
  if (auto m = s.find("metadata")) {
    if (!m->is_object()) m->fail("expected an object, found " + brief(m->value()));
    metadata = m->value();
    has_metadata = true;
  }
  if (auto c = s.find("crc")) {
    // §8.2: crc32 of each name, then of its bytes, in sorted name order, chained.
    std::vector<const Entry*> sorted;
    for (const auto& e : entries) sorted.push_back(&e);
    std::sort(sorted.begin(), sorted.end(),
              [](const Entry* a, const Entry* b) { return a->name < b->name; });
    uint32_t crc = 0;
    for (const Entry* e : sorted) {
      crc = crc32_update(crc, as_bytes(e->name));
      crc = crc32_update(crc, e->data);
    }
    if (auto v = crc_choice(*c, crc)) {
      metadata["crc_num"] = std::to_string(*v);
      has_metadata = true;
    }
  }
  if (has_metadata) header["__metadata__"] = metadata;
  uint64_t offset = 0;
  for (const auto& e : entries) {
    json info = json::object();
    info["dtype"] = e.dtype;
    info["shape"] = e.shape;
    info["data_offsets"] = {offset, offset + e.data.size()};
    header[e.name] = info;
    offset += e.data.size();
  }
  std::string text;
  if (auto h = s.find("header_text")) {
    text = h->string();  // verbatim, no padding
  } else {
    text = header.dump();
    const uint64_t align = s.has("align") ? s.at("align").u64() : 8;
    if (align == 0) s.at("align").fail("expected a positive alignment");
    text += std::string((align - text.size() % align) % align, ' ');
  }
  std::vector<std::byte> out;
  put_le(out, s.has("header_size") ? s.at("header_size").u64() : text.size(), 8);
  append(out, as_bytes(text));
  for (const auto& e : entries) append(out, e.data);
  return out;
}

namespace {

// A file written in pieces whose CRC-32 is kept on the way (the §6 trailer of a generated
// checkpoint).
class CrcStream {
 public:
  explicit CrcStream(OutputStream& out) : out_(out) {}
  void write(std::span<const std::byte> bytes) {
    crc_ = crc32_update(crc_, bytes);
    out_.write(bytes);
  }
  uint32_t crc() const { return crc_; }

 private:
  OutputStream& out_;
  uint32_t crc_ = 0;
};

std::vector<uint64_t> generated_shape(uint64_t count) {
  if (count % 16 == 0 && count >= 64) return {count / 16, 16};
  return {count};
}

}  // namespace

void write_generated_checkpoint(const Node& d, const fs::path& out) {
  d.check_keys({"kind", "seed", "parameters", "total_bytes", "min_bytes", "dtype", "perturb",
                "slice_bytes", "crc"});
  const uint64_t seed = d.has("seed") ? d.at("seed").u64() : 1;
  const uint64_t parameters = d.at("parameters").u64();
  const double total_bytes = static_cast<double>(d.at("total_bytes").u64());
  const double min_bytes = d.has("min_bytes") ? static_cast<double>(d.at("min_bytes").u64()) : 64;
  const std::string type = d.has("dtype") ? d.at("dtype").string() : "Float32";
  const auto dtype = ckpt_dtype(type);
  if (!dtype || dtype_bits(*dtype) % 8 != 0)
    d.at("dtype").fail("expected a checkpoint spelling of a whole-byte type such as \"Float32\"");
  const uint64_t item = dtype_bits(*dtype) / 8;
  const uint64_t slice_bytes =
      d.has("slice_bytes") ? d.at("slice_bytes").u64() : uint64_t{512} * 1024 * 1024;
  if (slice_bytes < item) d.at("slice_bytes").fail("expected at least one element per slice");
  const uint64_t slice_elements = slice_bytes / item;
  const bool crc = d.has("crc") && d.at("crc").boolean();
  std::optional<Perturbation> perturb;
  if (auto p = d.find("perturb")) perturb = parse_perturbation(*p);

  // Log-uniform relative sizes over three decades, scaled to the requested total (as
  // "Generated trees").
  SplitMix64 rng{seed};
  std::vector<double> relative(parameters);
  double relative_sum = 0;
  for (auto& r : relative) relative_sum += r = std::exp(rng.unit() * std::log(1000.0));
  const double scale = parameters == 0 ? 0 : total_bytes / relative_sum;

  static const char* const kParts[] = {"attention.wq.weight",    "attention.wk.weight",
                                       "attention.wv.weight",    "attention.wo.weight",
                                       "feed_forward.w1.weight", "feed_forward.w2.weight",
                                       "feed_forward.w3.weight", "attention_norm.weight"};
  if (!out.parent_path().empty()) fs::create_directories(out.parent_path());
  OutputStream file(out);
  CrcStream sink(file);
  ElementBlocks blocks(seed, perturb);
  for (uint64_t i = 0; i < parameters; ++i) {
    const std::string name =
        "model.layers." + std::to_string(i / 8) + "." + std::string(kParts[i % 8]);
    const uint64_t count = std::max<uint64_t>(
        1, static_cast<uint64_t>(std::max(min_bytes, relative[i] * scale)) / item);
    const auto shape = generated_shape(count);
    // Parameters over slice_bytes are cut into Values of the same tag (§4.2); each message's
    // lengths are known before its content is streamed.
    for (uint64_t first = 0; first < count; first += slice_elements) {
      const uint64_t n = std::min(slice_elements, count - first);
      ProtoWriter tensor_head;
      for (uint64_t dim : shape) tensor_head.varint(1, dim);
      tensor_head.string(2, type).tag(3, 2).varint_raw(n * item);
      const uint64_t tensor_len = tensor_head.data().size() + n * item;
      ProtoWriter value_head;
      value_head.string(1, name).tag(2, 2).varint_raw(tensor_len);
      ProtoWriter message_head;
      message_head.tag(1, 2).varint_raw(value_head.data().size() + tensor_len);
      sink.write(message_head.data());
      sink.write(value_head.data());
      sink.write(tensor_head.data());
      blocks.write(sink, *dtype, n, i, first);
    }
  }
  if (crc) {
    std::vector<std::byte> trailer;
    append_crc_trailer(trailer, sink.crc());
    file.write(trailer);
  }
  file.close();
}

}  // namespace msdt::fixture
