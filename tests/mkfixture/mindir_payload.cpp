// "mindir" content (README.md, "mindir"; mindir spec §3-§5): a `mind_ir.ModelProto` as the 1.1+
// exporter writes it (header fields in field-number order, the main graph, functions, primitives,
// REF:: op types, weights in raw_data, typed repeated fields or external_data), the ONNX-based
// ModelProto of 0.7-1.0, and the two kinds of external weight files: the 1.6+ `data_N` (64-byte
// header, 64-byte aligned tensors in name order) and the 1.2-1.5 GraphProto chunk.
#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <map>
#include <optional>
#include <string>

#include "elements.h"
#include "payloads.h"
#include "support/proto_writer.h"
#include "tensor/dtype.h"

namespace msdt::fixture {
namespace {

using testing::ProtoWriter;

// DataType names (spec §4.7) and the element type each is written as.
constexpr std::array<std::pair<std::string_view, std::optional<DType>>, 19> kDataTypes{{
    {"UNDEFINED", std::nullopt},     {"FLOAT", DType::Float32},
    {"UINT8", DType::UInt8},         {"INT8", DType::Int8},
    {"UINT16", DType::UInt16},       {"INT16", DType::Int16},
    {"INT32", DType::Int32},         {"INT64", DType::Int64},
    {"STRING", std::nullopt},        {"BOOL", DType::Bool},
    {"FLOAT16", DType::Float16},     {"DOUBLE", DType::Float64},
    {"UINT32", DType::UInt32},       {"UINT64", DType::UInt64},
    {"COMPLEX64", DType::Complex64}, {"COMPLEX128", DType::Complex128},
    {"BFLOAT16", DType::BFloat16},   {"FLOAT64", DType::Float64},
    {"QINT4X2", DType::Int4},
}};

// Field numbers that differ between mind_ir and ONNX (spec §4; onnx.proto).
struct Schema {
  bool legacy;
  uint32_t tensor_name, float_data, int32_data, int64_data, double_data, uint64_data, external_data,
      graph_weight, graph_input, graph_output;
};
constexpr Schema kMindIR{false, 7, 3, 4, 6, 10, 11, 12, 3, 5, 6};
constexpr Schema kOnnx{true, 8, 4, 5, 7, 10, 11, 13, 5, 11, 12};

uint64_t data_type_of(const Node& node) {
  if (node.is_number()) return node.u64();
  const std::string name = node.string();
  for (size_t i = 0; i < kDataTypes.size(); ++i)
    if (kDataTypes[i].first == name) return i;
  node.fail("unknown DataType \"" + name + "\" (spec §4.7 names, or a number)");
}

std::optional<DType> element_type(uint64_t data_type) {
  return data_type < kDataTypes.size() ? kDataTypes[data_type].second : std::nullopt;
}

std::vector<int64_t> shape_of(const Node& t) {
  std::vector<int64_t> dims;
  if (auto s = t.find("shape")) {
    for (const Node& d : s->elements()) dims.push_back(d.i64());
  } else if (auto v = t.find("values")) {
    dims.push_back(static_cast<int64_t>(v->elements().size()));
  }
  return dims;
}

// The element bytes of a tensor object: "hex" as given, else "values"/"fill" encoded.
std::vector<std::byte> element_bytes(const Node& t, uint64_t data_type,
                                     const std::vector<int64_t>& dims) {
  if (auto h = t.find("hex")) return parse_hex(*h);
  const auto dtype = element_type(data_type);
  if (!dtype)
    t.at("dtype").fail("mkfixture has no element encoding for this DataType; give \"hex\"");
  std::vector<uint64_t> shape;
  for (int64_t d : dims) {
    if (d < 0) t.at("shape").fail("a negative dimension needs the content as \"hex\"");
    shape.push_back(static_cast<uint64_t>(d));
  }
  return encode_elements(*dtype, parse_value_spec(t), shape_elements(shape, t));
}

// Elements as the values of a typed repeated field: float_data and double_data hold the bits of
// each float (two per complex element), the integer fields sign- or zero-extended integers.
std::vector<uint64_t> field_values(const std::vector<std::byte>& bytes, DType dtype,
                                   unsigned value_bytes) {
  std::vector<uint64_t> out;
  const bool is_signed = dtype == DType::Int8 || dtype == DType::Int16 || dtype == DType::Int32 ||
                         dtype == DType::Int64;
  for (size_t i = 0; i + value_bytes <= bytes.size(); i += value_bytes) {
    uint64_t v = 0;
    for (unsigned b = 0; b < value_bytes; ++b)
      v |= static_cast<uint64_t>(static_cast<uint8_t>(bytes[i + b])) << (8 * b);
    if (is_signed && value_bytes < 8 && (v >> (8 * value_bytes - 1)) != 0)
      v |= ~uint64_t{0} << (8 * value_bytes);
    out.push_back(v);
  }
  return out;
}

// Where external tensors go in their data file (spec §5.1): after the 64-byte header, in name
// order (the part after the first ':'), each padded to 64 bytes.
struct Placement {
  uint64_t offset = 0, length = 0;
};
std::string sort_key(std::string_view name) {
  auto colon = name.find(':');
  return std::string(colon == std::string_view::npos ? name : name.substr(colon + 1));
}
uint64_t padded(uint64_t n) { return (n + 63) / 64 * 64; }

class Writer {
 public:
  explicit Writer(const Schema& schema) : s_(schema) {}

  // Offsets of every external parameter of the model, computed before any graph is written.
  void place_external(const std::vector<Node>& graphs) {
    std::map<std::string, std::vector<std::pair<std::string, uint64_t>>> by_file;
    for (const Node& g : graphs) {
      auto params = g.find("parameters");
      if (!params) continue;
      for (const Node& p : params->elements()) {
        auto ext = p.find("external");
        if (!ext) continue;
        const uint64_t data_type = data_type_of(p.at("dtype"));
        const auto dims = shape_of(p);
        by_file[ext->string()].emplace_back(p.at("name").string(),
                                            element_bytes(p, data_type, dims).size());
      }
    }
    for (auto& [file, list] : by_file) {
      std::stable_sort(list.begin(), list.end(), [](const auto& a, const auto& b) {
        return sort_key(a.first) < sort_key(b.first);
      });
      uint64_t at = 64;
      for (const auto& [name, length] : list) {
        placements_[file + "\n" + name] = {at, length};
        at += padded(length);
      }
    }
  }

  ProtoWriter tensor(const Node& t) {
    t.check_keys({"name", "dtype", "shape", "values", "fill", "hex", "storage", "external",
                  "offset", "length", "packed", "compression_type", "quant_algo", "ref_key"});
    const uint64_t data_type = data_type_of(t.at("dtype"));
    const auto dims = shape_of(t);
    ProtoWriter w;
    for (int64_t d : dims) w.varint(1, static_cast<uint64_t>(d));
    w.varint(2, data_type);
    if (auto n = t.find("name")) w.string(s_.tensor_name, n->string());
    std::string storage = t.has("external") ? "external" : "raw_data";
    if (auto st = t.find("storage")) storage = st->string();
    const bool packed = t.find("packed") && t.at("packed").boolean();
    auto typed = [&](uint32_t field, unsigned value_bytes, bool fixed) {
      const auto dtype = element_type(data_type);
      if (!dtype || dtype_bits(*dtype) % 8 != 0)
        t.at("dtype").fail("typed fields need a whole-byte DataType");
      const bool complex = *dtype == DType::Complex64 || *dtype == DType::Complex128;
      const unsigned unit = dtype_bits(*dtype) / 8 / (complex ? 2 : 1);
      const bool floating = *dtype == DType::Float32 || *dtype == DType::Float64 || complex;
      if (fixed && (unit != value_bytes || !floating))
        t.at("storage").fail("float_data holds FLOAT/COMPLEX64, double_data DOUBLE/COMPLEX128");
      const auto values = field_values(element_bytes(t, data_type, dims), *dtype, unit);
      if (packed) {
        if (fixed) {
          std::vector<std::byte> raw;
          for (uint64_t v : values)
            for (unsigned b = 0; b < value_bytes; ++b)
              raw.push_back(static_cast<std::byte>(v >> (8 * b)));
          w.bytes(field, raw);
        } else {
          w.packed_varints(field, values);
        }
      } else {
        for (uint64_t v : values) {
          if (!fixed)
            w.varint(field, v);
          else if (value_bytes == 4)
            w.fixed32(field, static_cast<uint32_t>(v));
          else
            w.fixed64(field, v);
        }
      }
    };
    if (storage == "raw_data") {
      w.bytes(9, element_bytes(t, data_type, dims));
    } else if (storage == "float_data") {
      typed(s_.float_data, 4, true);
    } else if (storage == "double_data") {
      typed(s_.double_data, 8, true);
    } else if (storage == "int32_data") {
      typed(s_.int32_data, 4, false);
    } else if (storage == "int64_data") {
      typed(s_.int64_data, 8, false);
    } else if (storage == "uint64_data") {
      typed(s_.uint64_data, 8, false);
    } else if (storage == "external") {
      const std::string location = t.at("external").string();
      Placement place = placements_[location + "\n" + t.at("name").string()];
      if (auto o = t.find("offset")) place.offset = o->u64();
      if (auto l = t.find("length")) place.length = l->u64();
      if (s_.legacy) {
        auto entry = [&](std::string_view k, std::string_view v) {
          w.message(s_.external_data, ProtoWriter().string(1, k).string(2, v));
        };
        entry("location", location);
        entry("offset", std::to_string(place.offset));
        entry("length", std::to_string(place.length));
      } else {
        w.message(
            s_.external_data,
            ProtoWriter().string(1, location).varint(2, place.offset).varint(3, place.length));
      }
    } else if (storage != "none") {
      t.at("storage").fail(
          "expected raw_data, float_data, int32_data, int64_data, double_data, "
          "uint64_data, external or none");
    }
    if (auto r = t.find("ref_key")) w.string(13, r->string());
    if (auto c = t.find("compression_type")) w.varint(16, c->u64());
    if (auto q = t.find("quant_algo")) w.message(17, ProtoWriter().string(1, q->string()));
    return w;
  }

  // An attribute value: integer (INT64), number (FLOAT), boolean (BOOL), string (STRING), array
  // (TUPLE of values; legacy: ints or floats), {"tensor": T}, {"graph": "name"}.
  ProtoWriter attribute(std::string_view name, const Node& v) {
    ProtoWriter a;
    if (!name.empty()) a.string(1, name);
    const json& j = v.value();
    if (s_.legacy) {  // ONNX: 2 f, 3 i, 4 s, 5 t, 7 floats, 8 ints, 20 type
      if (j.is_boolean()) return a.varint(3, j.get<bool>() ? 1 : 0).varint(20, 2);
      if (j.is_number_integer()) return a.varint(3, static_cast<uint64_t>(v.i64())).varint(20, 2);
      if (j.is_number())
        return a.fixed32(2, std::bit_cast<uint32_t>(static_cast<float>(v.number()))).varint(20, 1);
      if (j.is_string()) return a.string(4, v.string()).varint(20, 3);
      if (j.is_array()) {
        bool ints =
            std::all_of(j.begin(), j.end(), [](const json& e) { return e.is_number_integer(); });
        for (const Node& e : v.elements()) {
          if (ints)
            a.varint(8, static_cast<uint64_t>(e.i64()));
          else
            a.fixed32(7, std::bit_cast<uint32_t>(static_cast<float>(e.number())));
        }
        return a.varint(20, ints ? 7 : 6);
      }
      if (auto t = v.find("tensor")) return a.message(5, tensor(*t)).varint(20, 4);
      v.fail("expected an integer, number, boolean, string, array or {\"tensor\": …}");
    }
    if (j.is_boolean()) return a.varint(3, j.get<bool>() ? 1 : 0).varint(16, 9);
    if (j.is_number_integer()) return a.varint(3, static_cast<uint64_t>(v.i64())).varint(16, 7);
    if (j.is_number())
      return a.fixed32(2, std::bit_cast<uint32_t>(static_cast<float>(v.number()))).varint(16, 1);
    if (j.is_string()) return a.string(5, v.string()).varint(16, 8);
    if (j.is_array()) {
      for (const Node& e : v.elements()) a.message(17, attribute("", e));
      return a.varint(16, 20);
    }
    if (auto t = v.find("tensor")) return a.message(6, tensor(*t)).varint(16, 17);
    if (auto g = v.find("graph"))
      return a.message(7, ProtoWriter().string(2, g->string())).varint(16, 18);
    v.fail(
        "expected an integer, number, boolean, string, array, {\"tensor\": …} or {\"graph\": …}");
  }

  void attributes(ProtoWriter& w, uint32_t field, const Node& attrs) {
    if (!attrs.is_object()) attrs.fail("expected an object of attribute values");
    for (const auto& [key, value] : attrs.value().items())
      w.message(field, attribute(key, Node(value, attrs.path() + "." + key)));
  }

  ProtoWriter value_info(const Node& v) {
    ProtoWriter w;
    if (v.is_string()) return w.string(1, v.string());
    v.check_keys({"name", "dtype", "shape"});
    w.string(1, v.at("name").string());
    if (!v.has("dtype")) return w;
    if (!s_.legacy) return w.message(2, header(v));
    // ONNX TypeProto {1 tensor_type {1 elem_type, 2 shape {1 dim {1 dim_value}}}}
    ProtoWriter shape;
    for (int64_t d : shape_of(v))
      shape.message(1, ProtoWriter().varint(1, static_cast<uint64_t>(d)));
    return w.message(
        2, ProtoWriter().message(
               1, ProtoWriter().varint(1, data_type_of(v.at("dtype"))).message(2, shape)));
  }

  ProtoWriter header(const Node& v) {
    ProtoWriter t;
    for (int64_t d : shape_of(v)) t.varint(1, static_cast<uint64_t>(d));
    return t.varint(2, data_type_of(v.at("dtype")));
  }

  ProtoWriter node(const Node& n) {
    n.check_keys({"name", "op", "inputs", "outputs", "domain", "attrs"});
    ProtoWriter w;
    if (auto in = n.find("inputs"))
      for (const Node& i : in->elements()) w.string(1, i.string());
    const std::string name = n.at("name").string();
    if (auto out = n.find("outputs")) {
      for (const Node& o : out->elements()) w.string(2, o.string());
    } else {
      w.string(2, name);
    }
    w.string(3, name).string(4, n.at("op").string());
    if (auto a = n.find("attrs")) attributes(w, 5, *a);
    if (auto d = n.find("domain")) w.string(7, d->string());
    return w;
  }

  ProtoWriter graph(const Node& g) {
    g.check_keys({"name", "nodes", "parameters", "inputs", "outputs", "attrs"});
    ProtoWriter w;
    if (auto nodes = g.find("nodes"))
      for (const Node& n : nodes->elements()) w.message(1, node(n));
    if (auto name = g.find("name")) w.string(2, name->string());
    if (auto params = g.find("parameters"))
      for (const Node& p : params->elements()) w.message(s_.graph_weight, tensor(p));
    if (auto in = g.find("inputs"))
      for (const Node& i : in->elements()) w.message(s_.graph_input, value_info(i));
    if (auto out = g.find("outputs"))
      for (const Node& o : out->elements()) w.message(s_.graph_output, value_info(o));
    if (auto a = g.find("attrs")) {
      if (s_.legacy) a->fail("the legacy GraphProto has no attributes");
      attributes(w, 8, *a);
    }
    return w;
  }

  ProtoWriter primitive(const Node& p) {
    p.check_keys({"name", "op_type", "attrs", "instance_name", "prim_type"});
    ProtoWriter w;
    w.string(1, p.at("name").string()).string(2, p.at("op_type").string());
    if (auto a = p.find("attrs")) attributes(w, 3, *a);
    if (auto i = p.find("instance_name")) w.string(4, i->string());
    if (auto t = p.find("prim_type")) w.varint(5, t->u64());
    return w;
  }

 private:
  const Schema& s_;
  std::map<std::string, Placement> placements_;
};

// The 1.6+ data file (spec §5.1): byte 0 the byte order, zeros to 64, then each tensor padded to
// 64 bytes, in name order.
std::vector<std::byte> data_file(const Node& d) {
  d.check_keys({"tensors", "little_endian"});
  std::vector<std::byte> out(64);
  const bool little = !d.find("little_endian") || d.at("little_endian").boolean();
  out[0] = std::byte{little ? uint8_t{1} : uint8_t{0}};
  std::vector<Node> tensors = d.at("tensors").elements();
  std::stable_sort(tensors.begin(), tensors.end(), [](const Node& a, const Node& b) {
    return sort_key(a.at("name").string()) < sort_key(b.at("name").string());
  });
  for (const Node& t : tensors) {
    t.check_keys({"name", "dtype", "shape", "values", "fill", "hex"});
    auto bytes = element_bytes(t, data_type_of(t.at("dtype")), shape_of(t));
    out.insert(out.end(), bytes.begin(), bytes.end());
    out.resize(64 + padded(out.size() - 64));
  }
  return out;
}

}  // namespace

std::vector<std::byte> build_mindir(const Node& mindir) {
  if (auto d = mindir.find("data_file")) {
    mindir.check_keys({"data_file"});
    return data_file(*d);
  }
  if (auto c = mindir.find("graph_chunk")) {  // 1.2-1.5 (spec §5.2): a GraphProto of parameters
    mindir.check_keys({"graph_chunk"});
    c->check_keys({"tensors"});
    Writer writer(kMindIR);
    ProtoWriter w;
    for (const Node& t : c->at("tensors").elements()) w.message(3, writer.tensor(t));
    return w.take();
  }
  mindir.check_keys({"generation", "ir_version", "producer_name", "producer_version", "domain",
                     "model_version", "doc_string", "graph", "functions", "preprocessor",
                     "little_endian", "parallel_layouts", "primitives", "mind_ir_version",
                     "user_info", "opset"});
  std::string generation = "mind_ir";
  if (auto g = mindir.find("generation")) generation = g->string();
  if (generation != "mind_ir" && generation != "legacy")
    mindir.at("generation").fail("expected \"mind_ir\" or \"legacy\"");
  const bool legacy = generation == "legacy";
  Writer writer(legacy ? kOnnx : kMindIR);
  std::vector<Node> graphs;
  if (auto g = mindir.find("graph")) graphs.push_back(*g);
  if (auto fs = mindir.find("functions")) {
    if (legacy) fs->fail("the legacy ModelProto has no functions");
    for (const Node& f : fs->elements()) graphs.push_back(f);
  }
  writer.place_external(graphs);

  // A header field: the default unless given; null leaves it out.
  auto given = [&](std::string_view key) -> std::optional<Node> {
    auto n = mindir.find(key);
    if (n && n->value().is_null()) return std::nullopt;
    return n;
  };
  auto present = [&](std::string_view key) {
    auto n = mindir.find(key);
    return !n || !n->value().is_null();
  };
  ProtoWriter m;
  if (legacy) {  // onnx.ModelProto: 1 ir_version int64 4, 2 producer_name, 5 model_version 1
    if (present("ir_version")) m.varint(1, given("ir_version") ? given("ir_version")->u64() : 4);
    if (present("producer_name"))
      m.string(2, given("producer_name") ? given("producer_name")->string() : "MindSpore");
    if (auto v = given("producer_version")) m.string(3, v->string());
    if (auto v = given("domain")) m.string(4, v->string());
    if (present("model_version"))
      m.varint(5, given("model_version") ? given("model_version")->u64() : 1);
    if (auto v = given("doc_string")) m.string(6, v->string());
    if (!graphs.empty()) m.message(7, writer.graph(graphs[0]));
    if (auto o = mindir.find("opset"))
      m.message(8, ProtoWriter().string(1, "").varint(2, o->u64()));
    return m.take();
  }
  auto text = [&](uint32_t field, std::string_view key, std::optional<std::string_view> def) {
    if (auto v = given(key))
      m.string(field, v->string());
    else if (def && present(key))
      m.string(field, *def);
  };
  text(1, "ir_version", "0.1.1");
  text(2, "producer_name", "MindSpore");
  text(3, "producer_version", std::nullopt);
  text(4, "domain", std::nullopt);
  text(5, "model_version", "2.6.0");
  text(6, "doc_string", std::nullopt);
  if (auto g = mindir.find("graph")) m.message(7, writer.graph(*g));
  for (size_t i = mindir.has("graph") ? 1 : 0; i < graphs.size(); ++i)
    m.message(8, writer.graph(graphs[i]));
  if (auto p = given("preprocessor")) {
    if (p->is_string()) {
      m.string(9, p->string());  // 1.5: JSON text (spec §4.10)
    } else {
      ProtoWriter pre;
      for (uint64_t i = 0; i < p->u64(); ++i)
        pre.message(1, ProtoWriter().string(1, "[\"image\"]").string(4, "Decode").varint(6, 0));
      m.message(9, pre);
    }
  }
  if (present("little_endian"))
    m.varint(10, given("little_endian") ? (given("little_endian")->boolean() ? 1 : 0) : 1);
  if (auto n = given("parallel_layouts")) {
    ProtoWriter parallel;
    for (uint64_t i = 0; i < n->u64(); ++i)
      parallel.message(1, ProtoWriter().string(1, "layout" + std::to_string(i)));
    m.message(11, parallel);
  }
  if (auto ps = mindir.find("primitives"))
    for (const Node& p : ps->elements()) m.message(12, writer.primitive(p));
  if (present("mind_ir_version"))
    m.varint(13, given("mind_ir_version") ? given("mind_ir_version")->u64() : 3);
  if (auto u = given("user_info")) {
    if (!u->is_object()) u->fail("expected an object of strings");
    for (const auto& [key, value] : u->value().items())
      m.message(
          14, ProtoWriter().string(1, key).string(2, Node(value, u->path() + "." + key).string()));
  }
  return m.take();
}

}  // namespace msdt::fixture
