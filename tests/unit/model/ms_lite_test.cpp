#include "model/ms_lite.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "model/sniff.h"
#include "support/flatbuffer_writer.h"

namespace msdt::model {
namespace {

using msdt::testing::FlatBufferWriter;
using File = std::vector<std::byte>;
using Ref = FlatBufferWriter::Ref;

File pattern(size_t n, size_t start = 1) {
  File out(n);
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<std::byte>((start + i) % 251);
  return out;
}

struct TensorSpec {
  std::string name;
  int32_t node_type = 0;
  int32_t data_type = 43;
  std::vector<int32_t> dims;
  int32_t format = 0;
  File data;
  bool has_data = false;
  int quant_params = 0;
  int32_t compress = 0;
  std::string external;      // a location: one externalData entry
  int external_repeats = 1;  // that entry's table referred to this many times
};

TensorSpec spec(std::string name, std::vector<int32_t> dims, int32_t data_type = 43) {
  TensorSpec t;
  t.name = std::move(name);
  t.dims = std::move(dims);
  t.data_type = data_type;
  return t;
}
TensorSpec with_data(TensorSpec t, File data) {
  t.data = std::move(data);
  t.has_data = true;
  return t;
}

Ref tensor(FlatBufferWriter& w, const TensorSpec& t) {
  const Ref name = w.string(t.name);
  const Ref dims = w.vector_of<int32_t>(t.dims);
  Ref data = 0, quant = 0, external = 0;
  if (t.has_data) data = w.scalar_vector(t.data, 1);
  if (t.quant_params > 0) {
    std::vector<Ref> params;
    for (int i = 0; i < t.quant_params; ++i) {
      w.start_table();
      w.add_scalar<double>(0, 0.5);
      params.push_back(w.end_table());
    }
    quant = w.ref_vector(params);
  }
  if (!t.external.empty()) {
    const Ref location = w.string(t.external);
    w.start_table();
    w.add_ref(1, location);
    w.add_scalar<int64_t>(2, 64);
    w.add_scalar<int64_t>(3, 24);
    const Ref entry = w.end_table();
    external = w.ref_vector(std::vector<Ref>(static_cast<size_t>(t.external_repeats), entry));
  }
  w.start_table();
  w.add_scalar<int32_t>(0, t.node_type);
  w.add_scalar<int32_t>(1, t.data_type);
  w.add_ref(2, dims);
  w.add_scalar<int32_t>(3, t.format);
  if (t.has_data) w.add_ref(6, data);
  if (quant) w.add_ref(7, quant);
  w.add_ref(9, name);
  if (t.compress) w.add_scalar<int32_t>(11, t.compress);
  if (external) w.add_ref(12, external);
  return w.end_table();
}

struct GraphSpec {
  std::string identifier = "MSL2";
  std::string version = "MindSpore Lite 2.2.0";
  std::vector<TensorSpec> tensors;
  int nodes = 2;
  bool obfuscate = false;
  int tensor_repeats = 1;  // each tensor's table referred to this many times (sharing)
};

File model(const GraphSpec& g) {
  FlatBufferWriter w;
  std::vector<Ref> tensors;
  for (const auto& t : g.tensors) {
    const Ref r = tensor(w, t);
    for (int i = 0; i < g.tensor_repeats; ++i) tensors.push_back(r);
  }
  const Ref all = w.ref_vector(tensors);
  std::vector<Ref> nodes;
  for (int i = 0; i < g.nodes; ++i) {
    const Ref name = w.string("op" + std::to_string(i));
    w.start_table();
    w.add_ref(0, name);
    nodes.push_back(w.end_table());
  }
  const Ref node_vector = w.ref_vector(nodes);
  const Ref sub_name = w.string("main_graph");
  w.start_table();
  w.add_ref(0, sub_name);
  const Ref sub = w.end_table();
  const Ref subs = w.ref_vector(std::vector<Ref>{sub});
  const Ref inputs = w.vector_of<uint32_t>(std::vector<uint32_t>{0});
  const Ref outputs = w.vector_of<uint32_t>(std::vector<uint32_t>{1, 2});
  const Ref name = w.string("lenet");
  const Ref version = w.string(g.version);
  w.start_table();
  w.add_ref(0, name);
  w.add_ref(1, version);
  w.add_scalar<int32_t>(2, 3);
  w.add_ref(3, inputs);
  w.add_ref(4, outputs);
  w.add_ref(6, node_vector);
  w.add_ref(7, all);
  w.add_ref(8, subs);
  if (g.obfuscate) w.add_scalar<uint8_t>(9, 1);
  const Ref root = w.end_table();
  return w.finish(root, g.identifier);
}

GraphSpec small_graph() {
  GraphSpec g;
  g.tensors.push_back(spec("x", {-1, 3}));
  g.tensors.back().node_type = 1;
  g.tensors.push_back(with_data(spec("fc.weight", {2, 3}), pattern(24)));
  g.tensors.push_back(with_data(spec("q", {4}, 32), pattern(4)));
  g.tensors.back().quant_params = 2;
  g.tensors.push_back(with_data(spec("bf", {2}, 45), pattern(4)));
  g.tensors.back().format = 1;
  g.tensors.push_back(spec("ext", {6}));
  g.tensors.back().external = "model.ms.data";
  return g;
}

size_t find(const File& file, const File& needle) {
  auto it = std::search(file.begin(), file.end(), needle.begin(), needle.end());
  return static_cast<size_t>(it - file.begin());
}

void put_u32(File& file, size_t at, uint32_t value) {
  for (int i = 0; i < 4; ++i) file[at + i] = static_cast<std::byte>(value >> (8 * i));
}

TEST(MsLite, ReadsTheGraphAndWhereEachTensorLies) {
  const File file = model(small_graph());
  EXPECT_EQ(sniff(file).kind, FileKind::MsLite);
  const MsLite m = read_ms_lite(file);
  for (const auto& p : m.problems) ADD_FAILURE() << p.describe();
  EXPECT_EQ(m.identifier, "MSL2");
  EXPECT_TRUE(m.supported);
  EXPECT_EQ(m.name, "lenet");
  EXPECT_EQ(m.version, "MindSpore Lite 2.2.0");
  EXPECT_EQ(m.release, "2.2");
  EXPECT_EQ(m.fmk_type, 3);
  EXPECT_EQ(m.node_count, 2u);
  EXPECT_EQ(m.tensor_count, 5u);
  EXPECT_EQ(m.subgraph_count, 1u);
  EXPECT_EQ(m.subgraph_names, std::vector<std::string>{"main_graph"});
  EXPECT_EQ(m.inputs, std::vector<uint32_t>{0});
  EXPECT_EQ(m.outputs, (std::vector<uint32_t>{1, 2}));
  EXPECT_FALSE(m.obfuscated);
  ASSERT_EQ(m.tensors.size(), 5u);

  const MsLiteTensor& x = m.tensors[0];
  EXPECT_EQ(x.name, "x");
  EXPECT_EQ(x.node_type, 1);
  EXPECT_EQ(x.dims, (std::vector<int32_t>{-1, 3}));
  EXPECT_TRUE(x.content.dims.empty());  // a dynamic axis: no shape
  EXPECT_TRUE(x.content.segments.empty());

  const MsLiteTensor& w = m.tensors[1];
  EXPECT_EQ(w.data_type, 43);
  EXPECT_EQ(w.data_type_name, "Float32");
  EXPECT_EQ(w.content.dtype, DType::Float32);
  EXPECT_EQ(w.content.shape, (std::vector<uint64_t>{2, 3}));
  EXPECT_EQ(w.format_name, "NCHW");
  ASSERT_EQ(w.content.segments.size(), 1u);
  EXPECT_EQ(w.content.segments[0].offset, find(file, pattern(24)));
  EXPECT_EQ(w.content.segments[0].length, 24u);
  auto data = tensor_data(file, w.content);
  ASSERT_TRUE(data) << data.error().describe();
  EXPECT_EQ(data->view().data.data(), file.data() + find(file, pattern(24)));

  EXPECT_EQ(m.tensors[2].data_type_name, "Int8");
  EXPECT_EQ(m.tensors[2].quant_params, 2u);
  EXPECT_EQ(m.tensors[3].data_type_name, "BFloat16");  // 45 in 2.2-2.6
  EXPECT_EQ(m.tensors[3].content.dtype, DType::BFloat16);
  EXPECT_EQ(m.tensors[3].format_name, "NHWC");
  const MsLiteTensor& ext = m.tensors[4];
  EXPECT_TRUE(ext.external);
  ASSERT_EQ(ext.external_data.size(), 1u);
  EXPECT_EQ(ext.external_data[0].location, "model.ms.data");
  EXPECT_EQ(ext.external_data[0].offset, 64);
  EXPECT_EQ(ext.external_data[0].length, 24);
  // The range in the external file; the need of its dims checked.
  EXPECT_EQ(ext.external_range, 0u);
  ASSERT_EQ(ext.content.segments.size(), 1u);
  EXPECT_EQ(ext.content.segments[0].offset, 64u);
  EXPECT_EQ(ext.content.segments[0].length, 24u);
  EXPECT_EQ(ext.content.expected_bytes, 24u);
}

TEST(MsLite, OlderIdentifiersAreIdentifiedNotDecoded) {
  GraphSpec g = small_graph();
  g.identifier = "MSL1";
  MsLite m = read_ms_lite(model(g));
  EXPECT_EQ(m.identifier, "MSL1");
  EXPECT_FALSE(m.supported);
  EXPECT_TRUE(m.tensors.empty());
  EXPECT_TRUE(m.problems.empty());
  g.identifier = "";
  m = read_ms_lite(model(g));
  EXPECT_EQ(m.identifier, "");
  EXPECT_FALSE(m.supported);
}

TEST(MsLite, ShortFile) {
  const File file = pattern(5);
  const MsLite m = read_ms_lite(file);
  ASSERT_EQ(m.problems.size(), 1u);
  EXPECT_EQ(m.problems[0].describe(),
            "offset 0x0: a file of 5 bytes is too short for a FlatBuffers root offset and "
            "identifier (8 bytes)");
}

TEST(MsLite, TypeIdsFrom45NeedTheRelease) {
  EXPECT_EQ(lite_type(43, "").name, "Float32");
  EXPECT_TRUE(lite_type(43, "").resolved);
  EXPECT_EQ(lite_type(12, "").name, "String");
  EXPECT_FALSE(lite_type(12, "").dtype);  // Lite's own string packing
  EXPECT_EQ(lite_type(31, "").dtype, DType::Int32);
  EXPECT_EQ(lite_type(47, "MindSpore Lite 1.5.0").name, "Int4");
  EXPECT_EQ(lite_type(47, "MindSpore Lite 1.5.0").dtype, DType::Int4);
  EXPECT_EQ(lite_type(47, "MindSpore Lite 1.8.1").name, "Complex128");
  EXPECT_EQ(lite_type(46, "MindSpore Lite 2.1.0").name, "Complex");
  EXPECT_EQ(lite_type(46, "MindSpore Lite 2.3.1").dtype, DType::Float64);  // Double
  EXPECT_EQ(lite_type(46, "MindSpore Lite 2.7.0").name, "Float8E4M3FN");
  const LiteType unknown = lite_type(47, "");
  EXPECT_FALSE(unknown.resolved);
  EXPECT_FALSE(unknown.dtype);
  EXPECT_EQ(unknown.name,
            "TypeId 47 (Int4, Complex128, Complex64, Complex or Float8E5M2 by "
            "release)");
  EXPECT_EQ(lite_type(45, "MindSpore Lite 3.0.0").name,
            "TypeId 45 (Complex64, Complex, Double or BFloat16 by release)");
  EXPECT_EQ(lite_type(52, "MindSpore Lite 2.2.0").name, "TypeId 52 (past the end of 2.2's TypeId)");
  EXPECT_EQ(lite_type(99, "").name, "TypeId 99");
  EXPECT_EQ(lite_type(20, "").name, "TypeId 20");

  EXPECT_EQ(lite_release("MindSpore Lite 2.2.10"), "2.2");
  EXPECT_EQ(lite_release("MindSpore Lite 1.10.1"), "1.10");
  EXPECT_EQ(lite_release("MindSpore Lite 1.0.0"), "1.0");  // TypeIds end at 44
  EXPECT_EQ(lite_type(45, "MindSpore Lite 1.0.0").name, "TypeId 45 (past the end of 1.0's TypeId)");
  EXPECT_EQ(lite_release("2.2.0"), "");
  EXPECT_EQ(lite_type_id("BFloat16", "MindSpore Lite 2.2.0"), 45);
  EXPECT_EQ(lite_type_id("Float32", ""), 43);
  EXPECT_EQ(lite_type_id("BFloat16", ""), std::nullopt);
  EXPECT_EQ(lite_type_id("BFloat16", "MindSpore Lite 1.8.0"), std::nullopt);
}

TEST(MsLite, DataThatDoesNotMatchItsDims) {
  GraphSpec g;
  g.tensors = {with_data(spec("w", {2, 3}), pattern(20)), with_data(spec("neg", {-2}), pattern(8)),
               with_data(spec("packed", {2, 3}), pattern(5))};
  g.tensors[2].compress = 4;
  const File file = model(g);
  const MsLite m = read_ms_lite(file);
  ASSERT_EQ(m.tensors.size(), 3u);
  ASSERT_EQ(m.problems.size(), 2u);
  EXPECT_EQ(m.problems[0].describe(),
            fmt::format("offset {:#x}: allTensors[0] 'w': data: holds 20 bytes, dims [2, 3] "
                        "Float32 need 24",
                        find(file, pattern(20))));
  EXPECT_EQ(m.problems[1].describe(),
            fmt::format("offset {:#x}: allTensors[1] 'neg': data: dims [-2] hold a negative "
                        "dimension, yet the tensor holds 8 bytes of data",
                        find(file, pattern(8))));
  EXPECT_FALSE(m.tensors[0].content.consistent());
  EXPECT_TRUE(m.tensors[2].compressed());
  EXPECT_EQ(m.tensors[2].compress_name, "BITPACKING");
  EXPECT_FALSE(m.tensors[2].content.expected_bytes);
}

TEST(MsLite, AVectorPastTheEndLosesThatFieldOnly) {
  GraphSpec g = small_graph();
  File file = model(g);
  const size_t data = find(file, pattern(24));
  put_u32(file, data - 4, 0xFFFFFFF0u);
  const MsLite m = read_ms_lite(file);
  ASSERT_EQ(m.tensors.size(), 5u);
  ASSERT_EQ(m.problems.size(), 1u);
  EXPECT_EQ(m.problems[0].describe(),
            fmt::format("offset {:#x}: allTensors[1] 'fc.weight': data: vector of 4294967280 "
                        "elements of 1 bytes goes past the end of the file ({} bytes)",
                        data - 4, file.size()));
  EXPECT_TRUE(m.tensors[1].content.segments.empty());
  EXPECT_EQ(m.tensors[2].name, "q");
}

TEST(MsLite, ABrokenVtableLosesThatTensor) {
  GraphSpec g = small_graph();
  File file = model(g);
  const MsLite good = read_ms_lite(file);
  const uint64_t table = good.tensors[2].offset;
  put_u32(file, table, 0x7FFFFFF0u);  // vtable far before the start
  const MsLite m = read_ms_lite(file);
  ASSERT_EQ(m.problems.size(), 1u);
  EXPECT_EQ(m.problems[0].describe(),
            fmt::format("offset {:#x}: allTensors[2]: table's vtable offset 2147483632 leads "
                        "outside the file ({} bytes)",
                        table, file.size()));
  ASSERT_EQ(m.tensors.size(), 4u);
  EXPECT_EQ(m.tensors[2].name, "bf");
}

TEST(MsLite, EveryTruncationIsReadWithoutCrashing) {
  const File file = model(small_graph());
  for (size_t n = 0; n < file.size(); ++n) {
    const File cut(file.begin(), file.begin() + static_cast<ptrdiff_t>(n));
    const MsLite m = read_ms_lite(cut);
    for (const auto& p : m.problems) EXPECT_TRUE(p.offset) << p.message;
    for (const auto& t : m.tensors)
      for (const auto& s : t.content.segments) EXPECT_LE(s.offset + s.length, n);
    // The last three bytes are the first string's NUL and padding, which reading does not need.
    if (n >= 8 && n + 3 < file.size()) {
      EXPECT_FALSE(m.problems.empty()) << n;
    }
  }
}

TEST(MsLite, SharedTablesStopDecodingAtTheBudget) {
  GraphSpec g;
  g.tensors = {spec(std::string(2000, 'n'), std::vector<int32_t>(500, 1))};
  g.tensor_repeats = 20000;
  const File file = model(g);
  const MsLite m = read_ms_lite(file);
  EXPECT_EQ(m.tensor_count, 20000u);
  EXPECT_LT(m.tensors.size(), 2000u);
  ASSERT_EQ(m.problems.size(), 1u);
  EXPECT_NE(m.problems[0].message.find("decoding stops"), std::string::npos);
}

TEST(MsLite, SharedExternalEntriesStopDecodingAtTheBudget) {
  GraphSpec g;
  g.tensors = {spec("w", {6})};
  g.tensors[0].external = std::string(3000, 'l');
  g.tensors[0].external_repeats = 20000;
  const MsLite m = read_ms_lite(model(g));
  ASSERT_EQ(m.problems.size(), 1u);
  EXPECT_NE(m.problems[0].message.find("allTensors[0] 'w': externalData["), std::string::npos);
  EXPECT_NE(m.problems[0].message.find("decoding stops"), std::string::npos);
  EXPECT_TRUE(m.tensors.empty());
}

// A 0.7 or 1.0 model as those converters wrote it: no identifier, the release's MetaGraph field
// numbers, Tensor tables without a name (fields 0-7), empty strings and zero scalars left out.
File legacy_model(bool v0_7, const std::vector<TensorSpec>& specs, size_t tensors = 0,
                  std::string_view identifier = "") {
  FlatBufferWriter w;
  std::vector<Ref> refs;
  for (const TensorSpec& t : specs) {
    const Ref dims = w.vector_of<int32_t>(t.dims);
    Ref data = 0;
    if (t.has_data) data = w.scalar_vector(t.data, 1);
    w.start_table();
    if (t.node_type) w.add_scalar<int32_t>(0, t.node_type);
    w.add_scalar<int32_t>(1, t.data_type);
    w.add_ref(2, dims);
    if (t.format) w.add_scalar<int32_t>(3, t.format);
    if (t.has_data) w.add_ref(6, data);
    refs.push_back(w.end_table());
  }
  for (size_t i = specs.size(); i < tensors; ++i) refs.push_back(refs.back());
  const Ref all = w.ref_vector(refs);
  const Ref nodes = w.ref_vector(std::vector<Ref>{});
  const Ref inputs = w.vector_of<uint32_t>(std::vector<uint32_t>{0});
  const Ref outputs = w.vector_of<uint32_t>(std::vector<uint32_t>{1});
  const Ref version = w.string("MindSpore Lite 1.0.0");
  const uint16_t shift = v0_7 ? 0 : 1;
  w.start_table();
  if (!v0_7) w.add_ref(1, version);
  if (v0_7) w.add_scalar<int32_t>(1, 1);  // fmkType; 0 (TF) is left out as the default
  w.add_ref(2 + shift, inputs);
  w.add_ref(3 + shift, outputs);
  w.add_ref(5 + shift, nodes);
  w.add_ref(6 + shift, all);
  return w.finish(w.end_table(), identifier);
}

std::vector<TensorSpec> legacy_tensors() {
  std::vector<TensorSpec> out = {spec("", {1, 3}), with_data(spec("", {2, 3}), pattern(24)),
                                 with_data(spec("", {2}, 42), pattern(4))};
  out[0].node_type = 1;
  out[2].format = 100;
  return out;
}

TEST(MsLite, Version1_0WithoutIdentifierIsReadWithItsSchema) {
  const File file = legacy_model(false, legacy_tensors());
  // The bytes of the model zoo's 1.0 files: root offset 24, then a vtable of 8 fields.
  const File head(file.begin(), file.begin() + 8);
  EXPECT_EQ(head, (File{std::byte{0x18}, {}, {}, {}, std::byte{0x14}, {}, std::byte{0x18}, {}}));
  const Sniff s = sniff(file);
  EXPECT_EQ(s.kind, FileKind::MsLite);
  EXPECT_EQ(s.lite_identifier, "");
  EXPECT_EQ(s.description, "a MindSpore Lite model (no identifier: 1.0 schema)");
  EXPECT_EQ(lite_legacy_schema(file), LiteLegacySchema::V1_0);

  const MsLite m = read_ms_lite(file);
  for (const auto& p : m.problems) ADD_FAILURE() << p.describe();
  EXPECT_TRUE(m.supported);
  EXPECT_EQ(m.legacy, LiteLegacySchema::V1_0);
  EXPECT_EQ(m.version, "MindSpore Lite 1.0.0");
  EXPECT_EQ(m.release, "1.0");
  EXPECT_EQ(m.fmk_type, 0);
  EXPECT_EQ(m.inputs, std::vector<uint32_t>{0});
  EXPECT_EQ(m.outputs, std::vector<uint32_t>{1});
  EXPECT_EQ(m.subgraph_count, 0u);
  ASSERT_EQ(m.tensors.size(), 3u);
  EXPECT_EQ(m.tensors[0].node_type, 1);
  EXPECT_TRUE(m.tensors[0].content.segments.empty());
  EXPECT_EQ(m.tensors[1].name, "");
  EXPECT_EQ(m.tensors[1].content.shape, (std::vector<uint64_t>{2, 3}));
  ASSERT_EQ(m.tensors[1].content.segments.size(), 1u);
  EXPECT_EQ(m.tensors[1].content.segments[0].offset, find(file, pattern(24)));
  EXPECT_EQ(m.tensors[1].content.expected_bytes, 24u);
  EXPECT_EQ(m.tensors[2].data_type_name, "Float16");
  EXPECT_EQ(m.tensors[2].format_name, "NC4HW4");  // 100 before 1.2
}

TEST(MsLite, Version0_7HasNoVersionField) {
  const File file = legacy_model(true, legacy_tensors());
  EXPECT_EQ(lite_legacy_schema(file), LiteLegacySchema::V0_7);
  EXPECT_EQ(sniff(file).description, "a MindSpore Lite model (no identifier: 0.7 schema)");
  const MsLite m = read_ms_lite(file);
  for (const auto& p : m.problems) ADD_FAILURE() << p.describe();
  EXPECT_EQ(m.version, "");
  EXPECT_EQ(m.fmk_type, 1);
  EXPECT_EQ(m.outputs, std::vector<uint32_t>{1});
  ASSERT_EQ(m.tensors.size(), 3u);
  EXPECT_EQ(m.tensors[1].content.expected_bytes, 24u);
  // TypeIds end at 44 in 0.7-1.0: 45 is no type.
  std::vector<TensorSpec> odd = {with_data(spec("", {1}, 45), pattern(4))};
  const MsLite n = read_ms_lite(legacy_model(true, odd));
  ASSERT_EQ(n.tensors.size(), 1u);
  EXPECT_EQ(n.tensors[0].data_type_name, "TypeId 45 (past the end of 0.7's TypeId)");
}

TEST(MsLite, TheLegacyShapeIsCheckedBeforeSayingMs) {
  const File good = legacy_model(false, legacy_tensors());
  // Nothing of another shape: a current model without its identifier, a damaged root table.
  GraphSpec current = small_graph();
  current.identifier = "";
  EXPECT_EQ(lite_legacy_schema(model(current)), std::nullopt);
  EXPECT_EQ(sniff(model(current)).kind, FileKind::Unknown);
  File bad = good;
  put_u32(bad, 0, 26);  // a root offset not aligned to 4
  EXPECT_EQ(lite_legacy_schema(bad), std::nullopt);
  // The same tables behind another FlatBuffers identifier (a TFLite model's "TFL3", say).
  EXPECT_EQ(lite_legacy_schema(legacy_model(false, legacy_tensors(), 0, "TFL3")), std::nullopt);
  bad = good;
  bad[4] = std::byte{0x16};  // a vtable of 9 fields: neither schema
  EXPECT_EQ(lite_legacy_schema(bad), std::nullopt);
  bad = good;
  bad[8] = std::byte{0x06};  // field 0 at 6 bytes: not aligned
  EXPECT_EQ(lite_legacy_schema(bad), std::nullopt);
  for (size_t n = 0; n < good.size(); ++n) {
    const File cut(good.begin(), good.begin() + static_cast<ptrdiff_t>(n));
    if (lite_legacy_schema(cut)) {
      // Only a file cut inside data the root table does not check can still look whole.
      EXPECT_GT(n, good.size() / 2) << n;
    }
  }
  // Random bytes, with root offsets that point inside them, are never taken for a model.
  uint64_t state = 0x9E3779B97F4A7C15u;
  size_t taken = 0;
  for (int i = 0; i < 200000; ++i) {
    File file(64 + i % 512);
    for (auto& b : file) {
      state = state * 6364136223846793005u + 1442695040888963407u;
      b = static_cast<std::byte>(state >> 56);
    }
    put_u32(file, 0, static_cast<uint32_t>(8 + 4 * (i % 12)));
    if (i % 2) file[4] = std::byte{0x14}, file[5] = std::byte{0};
    if (lite_legacy_schema(file) || sniff(file).kind == FileKind::MsLite) ++taken;
  }
  EXPECT_EQ(taken, 0u);
}

TEST(MsLite, DamagedExternalEntriesAreProblems) {
  struct Case {
    int64_t offset, length;
    std::string damage;
  };
  for (const Case& c : {Case{-8, 24, "offset -8 length 24: a negative offset"},
                        Case{0, -1, "offset 0 length -1: no length"},
                        Case{0, -5, "offset 0 length -5: a negative length"},
                        Case{int64_t{1} << 62, (int64_t{1} << 62) + 8,
                             "offset 4611686018427387904 length 4611686018427387912: an end "
                             "past 2^63"}}) {
    FlatBufferWriter w;
    const Ref location = w.string("model.ms.data");
    w.start_table();
    w.add_ref(1, location);
    w.add_scalar<int64_t>(2, c.offset);
    w.add_scalar<int64_t>(3, c.length);
    const Ref entry = w.end_table();
    const Ref entries = w.ref_vector(std::vector<Ref>{entry});
    const Ref dims = w.vector_of<int32_t>(std::vector<int32_t>{6});
    const Ref name = w.string("w");
    w.start_table();
    w.add_scalar<int32_t>(1, 43);
    w.add_ref(2, dims);
    w.add_ref(9, name);
    w.add_ref(12, entries);
    const Ref t = w.end_table();
    const Ref all = w.ref_vector(std::vector<Ref>{t});
    w.start_table();
    w.add_ref(7, all);
    const File file = w.finish(w.end_table(), "MSL2");
    const MsLite m = read_ms_lite(file);
    ASSERT_EQ(m.tensors.size(), 1u);
    ASSERT_EQ(m.problems.size(), 1u) << c.damage;
    EXPECT_EQ(m.problems[0].describe(),
              fmt::format("offset {:#x}: allTensors[0] 'w': externalData[0]: {}",
                          m.tensors[0].offset, c.damage));
    EXPECT_FALSE(m.tensors[0].external_range);
    EXPECT_TRUE(m.tensors[0].content.segments.empty());
  }
}

TEST(MsLite, ExternalBytesThatDoNotMatchTheDimsAreAProblem) {
  GraphSpec g;
  g.tensors = {spec("w", {5})};  // 20 bytes needed; the entry says 24
  g.tensors[0].external = "model.ms.data";
  const MsLite m = read_ms_lite(model(g));
  ASSERT_EQ(m.problems.size(), 1u);
  EXPECT_EQ(m.problems[0].describe(),
            fmt::format("offset {:#x}: allTensors[0] 'w': externalData: holds 24 bytes, dims [5] "
                        "Float32 need 20",
                        m.tensors[0].offset));
  g.tensors[0] = spec("w", {6});
  g.tensors[0].external = "model.ms.data";
  g.tensors[0].external_repeats = 2;
  const MsLite two = read_ms_lite(model(g));
  ASSERT_EQ(two.problems.size(), 1u);
  EXPECT_NE(two.problems[0].message.find("externalData: 2 entries where one is expected"),
            std::string::npos)
      << two.problems[0].message;
}

}  // namespace
}  // namespace msdt::model
