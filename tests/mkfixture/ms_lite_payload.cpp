// "ms_lite" content (payloads.h, README.md "ms_lite"; mindir spec §9): a MindSpore Lite `.ms`
// model, the FlatBuffers MetaGraph of §9.3 written back to front by tests/support's
// FlatBufferWriter (children before their tables, aligned scalars, one vtable per table, the root
// offset and identifier last). TypeId names go through libcommon's §9.4 table with the
// description's version, so a name of 45 and up is written as that release numbers it.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "elements.h"
#include "model/ms_lite.h"
#include "payloads.h"
#include "support/flatbuffer_writer.h"

namespace msdt::fixture {
namespace {

using testing::FlatBufferWriter;
using Ref = FlatBufferWriter::Ref;

constexpr std::string_view kDefaultVersion = "MindSpore Lite 2.2.0";

int32_t i32(const Node& node) {
  const int64_t v = node.i64();
  if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max())
    node.fail("expected a 32-bit integer, found " + brief(node.value()));
  return static_cast<int32_t>(v);
}

uint32_t u32(const Node& node) {
  const uint64_t v = node.u64();
  if (v > std::numeric_limits<uint32_t>::max())
    node.fail("expected a 32-bit unsigned integer, found " + brief(node.value()));
  return static_cast<uint32_t>(v);
}

std::vector<uint32_t> u32_list(const Node& node) {
  std::vector<uint32_t> out;
  for (const auto& e : node.elements()) out.push_back(u32(e));
  return out;
}

// A number, or a name `name_of` knows (its values 0 … limit-1).
template <class NameOf>
int32_t number_or_name(const Node& node, NameOf name_of, int32_t limit, std::string_view what) {
  if (!node.is_string() || parse_u64_literal(node.string())) return i32(node);
  const std::string name = node.string();
  for (int32_t i = 0; i < limit; ++i)
    if (name_of(i) == name) return i;
  node.fail("unknown " + std::string(what) + " \"" + name + "\"");
}

int32_t data_type(const Node& node, std::string_view version) {
  if (!node.is_string() || parse_u64_literal(node.string())) return i32(node);
  const std::string name = node.string();
  if (auto id = model::lite_type_id(name, version)) return *id;
  if (model::lite_release(version).empty())
    node.fail("\"" + name + "\" is not a TypeId below 45, and from 45 on the number depends on " +
              "the release: give a \"version\" naming one (\"MindSpore Lite 1.1\" to \"2.7\") " +
              "or the number");
  node.fail("MindSpore Lite " + model::lite_release(version) + " has no TypeId \"" + name + "\"");
}

Ref quant_param(FlatBufferWriter& w, const Node& q) {
  q.check_keys({"scale", "zeroPoint", "min", "max", "numBits", "narrowRange", "inited"});
  w.start_table();
  if (auto v = q.find("scale")) w.add_scalar<double>(0, v->number());
  if (auto v = q.find("min")) w.add_scalar<double>(2, v->number());
  if (auto v = q.find("max")) w.add_scalar<double>(3, v->number());
  if (auto v = q.find("zeroPoint")) w.add_scalar<int32_t>(1, i32(*v));
  if (auto v = q.find("numBits")) w.add_scalar<int32_t>(5, i32(*v));
  if (auto v = q.find("narrowRange")) w.add_scalar<uint8_t>(4, v->boolean() ? 1 : 0);
  if (auto v = q.find("inited")) w.add_scalar<uint8_t>(6, v->boolean() ? 1 : 0);
  return w.end_table();
}

Ref external_data(FlatBufferWriter& w, const Node& e) {
  e.check_keys({"checkSum", "location", "offset", "length"});
  std::optional<Ref> check_sum, location;
  if (auto v = e.find("checkSum")) check_sum = w.string(v->string());
  if (auto v = e.find("location")) location = w.string(v->string());
  w.start_table();
  if (auto v = e.find("offset")) w.add_scalar<int64_t>(2, v->i64());
  if (auto v = e.find("length")) w.add_scalar<int64_t>(3, v->i64());
  if (check_sum) w.add_ref(0, *check_sum);
  if (location) w.add_ref(1, *location);
  return w.end_table();
}

// The `data` bytes: "hex" as given, or "values"/"fill" encoded as the TypeId's element type;
// nullopt when the tensor has none of them (no data vector).
std::optional<std::vector<std::byte>> tensor_data(const Node& t, int32_t type,
                                                  std::string_view version,
                                                  const std::vector<int32_t>& dims) {
  if (t.has("hex") && (t.has("values") || t.has("fill")))
    t.fail("give one of \"values\", \"fill\" and \"hex\"");
  if (auto h = t.find("hex")) return parse_hex(*h);
  if (!t.has("values") && !t.has("fill")) return std::nullopt;
  const model::LiteType lite = model::lite_type(type, version);
  if (!lite.dtype)
    t.at("dataType")
        .fail("mkfixture has no element encoding for " + lite.name + "; give the data as \"hex\"");
  std::vector<uint64_t> shape;
  for (int32_t d : dims) {
    if (d < 0) t.at("dims").fail("a negative dimension needs the data as \"hex\"");
    shape.push_back(static_cast<uint64_t>(d));
  }
  return encode_elements(*lite.dtype, parse_value_spec(t), shape_elements(shape, t));
}

// `legacy`: a 0.7-1.0 Tensor, whose table ends at quantParams (no name, compression or
// externalData) and whose Format enum has NC4HW4 at 100.
Ref tensor(FlatBufferWriter& w, const Node& t, std::string_view version, bool legacy) {
  if (legacy)
    t.check_keys({"nodeType", "dataType", "dims", "format", "values", "fill", "hex", "quantParams",
                  "refCount", "offset"});
  else
    t.check_keys({"name", "nodeType", "dataType", "dims", "format", "values", "fill", "hex",
                  "quantParams", "externalData", "enableHuffmanCode", "weightQuantCompressType",
                  "refCount", "offset"});
  const int32_t type = t.has("dataType") ? data_type(t.at("dataType"), version) : 0;
  std::vector<int32_t> dims;
  if (auto d = t.find("dims")) {
    for (const auto& e : d->elements()) dims.push_back(i32(e));
  } else if (auto v = t.find("values")) {
    dims = {static_cast<int32_t>(v->elements().size())};
  }
  // Children first (back to front): strings and vectors, then the table that refers to them.
  std::optional<Ref> name, data, quant, external;
  if (auto n = t.find("name")) name = w.string(n->string());
  const Ref dims_ref = w.vector_of<int32_t>(dims);
  if (auto bytes = tensor_data(t, type, version, dims)) data = w.scalar_vector(*bytes, 1);
  if (auto q = t.find("quantParams")) {
    std::vector<Ref> refs;
    for (const auto& e : q->elements()) refs.push_back(quant_param(w, e));
    quant = w.ref_vector(refs);
  }
  if (auto x = t.find("externalData")) {
    std::vector<Ref> refs;
    for (const auto& e : x->elements()) refs.push_back(external_data(w, e));
    external = w.ref_vector(refs);
  }
  w.start_table();
  if (auto v = t.find("nodeType")) w.add_scalar<int32_t>(0, i32(*v));
  w.add_scalar<int32_t>(1, type);
  w.add_ref(2, dims_ref);
  if (auto v = t.find("format"))
    w.add_scalar<int32_t>(
        3, number_or_name(
               *v, [legacy](int32_t f) { return model::lite_format_name(f, legacy); },
               legacy ? 102 : 19, "format"));
  if (auto v = t.find("refCount")) w.add_scalar<int32_t>(4, i32(*v));
  if (auto v = t.find("offset")) w.add_scalar<int32_t>(5, i32(*v));
  if (data) w.add_ref(6, *data);
  if (quant) w.add_ref(7, *quant);
  if (name) w.add_ref(9, *name);
  if (auto v = t.find("enableHuffmanCode")) w.add_scalar<uint8_t>(10, v->boolean() ? 1 : 0);
  if (auto v = t.find("weightQuantCompressType"))
    w.add_scalar<int32_t>(
        11, number_or_name(*v, model::lite_compress_name, 7, "weightQuantCompressType"));
  if (external) w.add_ref(12, *external);
  return w.end_table();
}

Ref node(FlatBufferWriter& w, const Node& n) {
  n.check_keys({"name", "primitive", "inputIndex", "outputIndex", "quantType", "deviceType"});
  std::optional<Ref> name, primitive, inputs, outputs;
  if (auto v = n.find("name")) name = w.string(v->string());
  if (auto p = n.find("primitive")) {
    // Primitive { value: PrimitiveType }: a union, its type byte (id 0) and the op's table
    // (id 1), written empty: the op's attributes are not described.
    const uint64_t type = p->u64();
    if (type > 255)
      p->fail("expected a PrimitiveType number up to 255, found " + brief(p->value()));
    std::optional<Ref> value;
    if (type != 0) {
      w.start_table();
      value = w.end_table();
    }
    w.start_table();
    w.add_scalar<uint8_t>(0, static_cast<uint8_t>(type));
    if (value) w.add_ref(1, *value);
    primitive = w.end_table();
  }
  if (auto v = n.find("inputIndex")) inputs = w.vector_of<uint32_t>(u32_list(*v));
  if (auto v = n.find("outputIndex")) outputs = w.vector_of<uint32_t>(u32_list(*v));
  w.start_table();
  if (name) w.add_ref(0, *name);
  if (primitive) w.add_ref(2, *primitive);
  if (inputs) w.add_ref(3, *inputs);
  if (outputs) w.add_ref(4, *outputs);
  if (auto v = n.find("quantType")) w.add_scalar<int32_t>(5, i32(*v));
  if (auto v = n.find("deviceType")) w.add_scalar<int32_t>(6, i32(*v));
  return w.end_table();
}

Ref index_vector(FlatBufferWriter& w, std::vector<uint32_t> values) {
  return w.vector_of<uint32_t>(values);
}

std::vector<uint32_t> all_indices(size_t n) {
  std::vector<uint32_t> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<uint32_t>(i);
  return out;
}

}  // namespace

// A 0.7 or 1.0 model (README.md "schema"): no identifier, that release's MetaGraph fields.
std::vector<std::byte> build_legacy(const Node& ms, std::string_view schema) {
  const bool v0_7 = schema == "0.7";
  if (v0_7)
    ms.check_keys({"schema", "name", "fmkType", "inputIndex", "outputIndex", "mempoolSize", "nodes",
                   "allTensors"});
  else
    ms.check_keys({"schema", "name", "version", "fmkType", "inputIndex", "outputIndex",
                   "mempoolSize", "nodes", "allTensors"});
  // The TypeIds of 0.7 and 1.0 end at 44 (§9.4); the version only says which release wrote it.
  const std::string types = v0_7 ? "MindSpore Lite 0.7.0" : "MindSpore Lite 1.0.0";
  std::string version = types;
  if (auto v = ms.find("version")) version = v->string();

  FlatBufferWriter w;
  std::vector<Ref> tensors;
  if (ms.has("allTensors"))
    for (const auto& t : ms.at("allTensors").elements())
      tensors.push_back(tensor(w, t, types, true));
  const Ref tensor_vector = w.ref_vector(tensors);
  std::vector<Ref> nodes;
  if (ms.has("nodes"))
    for (const auto& n : ms.at("nodes").elements()) nodes.push_back(node(w, n));
  const Ref node_vector = w.ref_vector(nodes);
  std::vector<uint32_t> inputs, outputs;
  if (auto v = ms.find("inputIndex")) inputs = u32_list(*v);
  if (auto v = ms.find("outputIndex")) outputs = u32_list(*v);
  std::optional<Ref> name, version_ref;
  if (auto v = ms.find("name")) name = w.string(v->string());
  if (!v0_7) version_ref = w.string(version);
  const Ref input_ref = index_vector(w, inputs);
  const Ref output_ref = index_vector(w, outputs);
  // 0.7: name, fmkType, inputIndex, outputIndex, mempoolSize, nodes, allTensors; 1.0 puts
  // version after name and numbers the rest one higher.
  const uint16_t shift = v0_7 ? 0 : 1;
  w.start_table();
  if (name) w.add_ref(0, *name);
  if (version_ref) w.add_ref(1, *version_ref);
  if (auto v = ms.find("fmkType")) w.add_scalar<int32_t>(1 + shift, i32(*v));
  w.add_ref(2 + shift, input_ref);
  w.add_ref(3 + shift, output_ref);
  if (auto v = ms.find("mempoolSize")) w.add_scalar<uint32_t>(4 + shift, u32(*v));
  w.add_ref(5 + shift, node_vector);
  w.add_ref(6 + shift, tensor_vector);
  const Ref root = w.end_table();
  return w.finish(root, "");
}

std::vector<std::byte> build_ms_lite(const Node& ms) {
  if (auto s = ms.find("schema")) {
    const std::string schema = s->string();
    if (schema == "0.7" || schema == "1.0") return build_legacy(ms, schema);
    if (schema != "current")
      s->fail("expected \"0.7\", \"1.0\" or \"current\", found \"" + schema + "\"");
  }
  ms.check_keys({"schema", "identifier", "name", "version", "fmkType", "inputIndex", "outputIndex",
                 "mempoolSize", "nodes", "allTensors", "subGraph", "obfuscate"});
  std::string identifier = "MSL2";
  if (auto v = ms.find("identifier")) {
    identifier = v->string();
    if (!identifier.empty() && identifier.size() != 4)
      v->fail("expected 4 characters (\"MSL2\", \"MSL1\") or \"\" for none, found \"" + identifier +
              "\"");
  }
  std::string version(kDefaultVersion);
  if (auto v = ms.find("version")) version = v->string();

  FlatBufferWriter w;
  std::vector<Ref> tensors;
  std::vector<Node> tensor_nodes =
      ms.has("allTensors") ? ms.at("allTensors").elements() : std::vector<Node>{};
  for (const auto& t : tensor_nodes) tensors.push_back(tensor(w, t, version, false));
  const Ref tensor_vector = w.ref_vector(tensors);
  std::vector<Ref> nodes;
  const std::vector<Node> node_nodes =
      ms.has("nodes") ? ms.at("nodes").elements() : std::vector<Node>{};
  for (const auto& n : node_nodes) nodes.push_back(node(w, n));
  const Ref node_vector = w.ref_vector(nodes);

  std::vector<uint32_t> inputs, outputs;
  if (auto v = ms.find("inputIndex")) inputs = u32_list(*v);
  if (auto v = ms.find("outputIndex")) outputs = u32_list(*v);

  // Without "subGraph", one subgraph holds everything, as the converter writes a plain model.
  std::vector<Ref> subgraphs;
  if (auto list = ms.find("subGraph")) {
    for (const auto& s : list->elements()) {
      s.check_keys({"name", "inputIndices", "outputIndices", "nodeIndices", "tensorIndices"});
      std::optional<Ref> name, in, out, node_indices, tensor_indices;
      if (auto v = s.find("name")) name = w.string(v->string());
      if (auto v = s.find("inputIndices")) in = index_vector(w, u32_list(*v));
      if (auto v = s.find("outputIndices")) out = index_vector(w, u32_list(*v));
      if (auto v = s.find("nodeIndices")) node_indices = index_vector(w, u32_list(*v));
      if (auto v = s.find("tensorIndices")) tensor_indices = index_vector(w, u32_list(*v));
      w.start_table();
      if (name) w.add_ref(0, *name);
      if (in) w.add_ref(1, *in);
      if (out) w.add_ref(2, *out);
      if (node_indices) w.add_ref(3, *node_indices);
      if (tensor_indices) w.add_ref(4, *tensor_indices);
      subgraphs.push_back(w.end_table());
    }
  } else {
    const Ref name = w.string(ms.has("name") ? ms.at("name").string() : "main");
    const Ref in = index_vector(w, inputs);
    const Ref out = index_vector(w, outputs);
    const Ref node_indices = index_vector(w, all_indices(nodes.size()));
    const Ref tensor_indices = index_vector(w, all_indices(tensors.size()));
    w.start_table();
    w.add_ref(0, name);
    w.add_ref(1, in);
    w.add_ref(2, out);
    w.add_ref(3, node_indices);
    w.add_ref(4, tensor_indices);
    subgraphs.push_back(w.end_table());
  }
  const Ref subgraph_vector = w.ref_vector(subgraphs);

  std::optional<Ref> name;
  if (auto v = ms.find("name")) name = w.string(v->string());
  const Ref version_ref = w.string(version);
  const Ref input_ref = index_vector(w, inputs);
  const Ref output_ref = index_vector(w, outputs);
  w.start_table();
  if (name) w.add_ref(0, *name);
  w.add_ref(1, version_ref);
  if (auto v = ms.find("fmkType")) w.add_scalar<int32_t>(2, i32(*v));
  w.add_ref(3, input_ref);
  w.add_ref(4, output_ref);
  if (auto v = ms.find("mempoolSize")) w.add_scalar<uint32_t>(5, u32(*v));
  w.add_ref(6, node_vector);
  w.add_ref(7, tensor_vector);
  w.add_ref(8, subgraph_vector);
  if (auto v = ms.find("obfuscate")) w.add_scalar<uint8_t>(9, v->boolean() ? 1 : 0);
  const Ref root = w.end_table();
  return w.finish(root, identifier);
}

}  // namespace msdt::fixture
