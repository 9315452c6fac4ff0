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
  EXPECT_TRUE(ext.content.segments.empty());
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
  EXPECT_EQ(lite_release("MindSpore Lite 1.0.0"), "");
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

}  // namespace
}  // namespace msdt::model
