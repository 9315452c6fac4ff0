#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "io/mapped_file.h"
#include "io/regex.h"
#include "model/safetensors.h"
#include "support/proto_writer.h"
#include "support/temp_tree.h"
#include "tensor/npy.h"
#include "weights/model_file.h"
#include "weights/modes.h"

namespace msdt::weights {
namespace {

using msdt::testing::ProtoWriter;

std::string floats(std::initializer_list<float> values) {
  std::string out(values.size() * 4, '\0');
  size_t i = 0;
  for (float v : values) std::memcpy(out.data() + 4 * i++, &v, 4);
  return out;
}

ProtoWriter tensor(std::initializer_list<uint64_t> dims, std::string_view type,
                   std::string_view content) {
  ProtoWriter t;
  for (uint64_t d : dims) t.varint(1, d);
  t.string(2, type).bytes(3, std::as_bytes(std::span(content.data(), content.size())));
  return t;
}

// One Checkpoint message holding one Value (checkpoint spec §3.3).
std::string value(std::string_view tag, const ProtoWriter& t) {
  ProtoWriter v;
  v.string(1, tag).message(2, t);
  ProtoWriter c;
  c.message(1, v);
  std::vector<std::byte> bytes = c.take();
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

std::string map_value(std::string_view tag) {
  ProtoWriter m;
  int64_t keys[] = {3, 7};
  int32_t status[] = {0, 1};
  m.message(1, tensor({2}, "int64", std::string_view(reinterpret_cast<char*>(keys), 16)))
      .message(1, tensor({2, 1}, "float32", floats({0.5f, 1.5f})))
      .message(1, tensor({2}, "int32", std::string_view(reinterpret_cast<char*>(status), 8)));
  ProtoWriter v;
  v.string(1, tag).message(3, m);
  ProtoWriter c;
  c.message(1, v);
  std::vector<std::byte> bytes = c.take();
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

std::vector<nlohmann::json> json_lines(const std::string& text) {
  std::vector<nlohmann::json> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
  return out;
}

class InspectTest : public msdt::testing::TempTreeTest {
 protected:
  InspectTest() : TempTreeTest("msdt-inspect-") {}
  std::ostringstream err_;
  Diagnostics diagnostics_{"ckpt-inspect", err_};
};

TEST_F(InspectTest, OpensACheckpointAsItsTensorsWithMapComponentsAsThree) {
  write("a.ckpt", value("w", tensor({2}, "Float32", floats({1, 2}))) + map_value("emb") +
                      value("s", tensor({0}, "str", std::string("h\0\0\0i\0\0\0", 8))));
  Expected<ModelFile> model = open_model(input("a.ckpt"));
  ASSERT_TRUE(model) << model.error().describe();
  std::vector<std::string> names, kinds;
  for (const Item& item : model->items) {
    names.push_back(item.name);
    kinds.emplace_back(item.kind);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"w", "emb.keys", "emb.values", "emb.status", "s"}));
  EXPECT_EQ(kinds, (std::vector<std::string>{"tensor", "map", "map", "map", "str"}));
  EXPECT_EQ(model->info["kind"], "checkpoint");
  EXPECT_EQ(model->info["parameters"], 3);
  EXPECT_TRUE(model->problems.empty());
  Expected<model::TensorData> w = model->data(model->items[0]);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->view().data.size(), 8u);
  EXPECT_FALSE(w->copied());  // a view into the mapping
}

TEST_F(InspectTest, RefusesFilesOfAnotherKindAndCannotListEncryptedOnes) {
  write("w.npy", std::string("\x93NUMPY\x01\x00", 8) + std::string(120, ' '));
  Expected<ModelFile> npy = open_model(input("w.npy"));
  ASSERT_FALSE(npy);
  EXPECT_EQ(npy.error().describe(), "not a checkpoint: looks like a NumPy .npy file");
  // The SM4-CBC container of spec §7.2: magic, block_len, iv_len, IV, cipher_len, ciphertext.
  std::string block = "\xda\x5e\x3a\x7f";
  auto int32 = [&](uint32_t v) { block += std::string(reinterpret_cast<char*>(&v), 4); };
  int32(24 + 16);
  int32(16);
  block += std::string(16, 'i');
  int32(16);
  block += std::string(16, 'c');
  write("enc.ckpt", block);
  Expected<ModelFile> enc = open_model(input("enc.ckpt"));
  ASSERT_TRUE(enc) << enc.error().describe();
  ASSERT_TRUE(enc->unlistable);
  EXPECT_EQ(enc->info["cipher"], "SM4-CBC");
}

TEST_F(InspectTest, DiffMetricsFollowMsprobesRulesAndTheExitStatusSaysWhetherAnythingDiffers) {
  write("a.ckpt", value("same", tensor({2}, "Float32", floats({1, 2}))) +
                      value("moved", tensor({2}, "Float32", floats({3, 4}))) +
                      value("zero", tensor({2}, "Float32", floats({0, 0}))) +
                      value("both.zero", tensor({1}, "Float32", floats({0}))) +
                      value("scalar", tensor({}, "Float32", floats({2}))) +
                      value("gone", tensor({1}, "Float32", floats({1}))));
  write("b.ckpt", value("same", tensor({2}, "Float32", floats({1, 2}))) +
                      value("moved", tensor({2}, "Float32", floats({3, 4.5}))) +
                      value("zero", tensor({2}, "Float32", floats({0, 1}))) +
                      value("both.zero", tensor({1}, "Float32", floats({0}))) +
                      value("scalar", tensor({}, "Float32", floats({-1}))) +
                      value("new", tensor({1}, "Float32", floats({1}))));
  std::ostringstream out;
  DiffOptions options;
  options.format = table::Format::Json;
  EXPECT_EQ(diff_models(input("a.ckpt"), input("b.ckpt"), options, out, diagnostics_),
            kExitDiffers);
  std::vector<nlohmann::json> rows = json_lines(out.str());
  ASSERT_EQ(rows.size(), 7u);
  EXPECT_EQ(rows[0]["status"], "same");
  EXPECT_EQ(rows[0]["cosine"], 1.0);
  EXPECT_EQ(rows[1]["status"], "changed");
  EXPECT_DOUBLE_EQ(rows[1]["l2"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(rows[1]["max_abs"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(rows[1]["rel_l2"].get<double>(), 0.1);  // 0.5 / ||(3, 4)||
  EXPECT_DOUBLE_EQ(rows[1]["cosine"].get<double>(), (9 + 18) / (5 * std::sqrt(9 + 20.25)));
  EXPECT_TRUE(rows[2]["cosine"].is_null());  // exactly one norm is 0
  EXPECT_TRUE(rows[2]["rel_l2"].is_null());
  EXPECT_EQ(rows[3]["cosine"], 1.0);  // both norms 0
  EXPECT_EQ(rows[4]["l2"], 3.0);      // one element: |a - b| and the sign of ab
  EXPECT_EQ(rows[4]["cosine"], -1.0);
  EXPECT_EQ(rows[5]["status"], "only_a");
  EXPECT_EQ(rows[6]["status"], "only_b");
  EXPECT_EQ(err_.str(), "");

  // A tolerance above every change leaves only the parameters on one side.
  options.tolerance = 10;
  options.selection.name = *compile_user_regex("^(same|moved|scalar)$");
  std::ostringstream quiet;
  EXPECT_EQ(diff_models(input("a.ckpt"), input("b.ckpt"), options, quiet, diagnostics_), kExitOk);
  // An unreadable side is exit status 3 and one line.
  std::ostringstream none;
  EXPECT_EQ(diff_models(input("a.ckpt"), input("missing.ckpt"), options, none, diagnostics_),
            kExitDiffUnreadable);
  EXPECT_NE(err_.str().find("missing.ckpt"), std::string::npos);
}

TEST_F(InspectTest, ExportWritesNpyFilesUnderQuotedNamesAndStringsAsText) {
  write("a.ckpt", value("fc/w", tensor({2}, "Float32", floats({1.5, -2}))) +
                      value("bf", tensor({1}, "BFloat16", std::string("\x80\x3f", 2))) +
                      value("s", tensor({0}, "str", std::string("o\0\0\0k\0\0\0", 8))));
  export_npy(input("a.ckpt"), input("out"), {}, diagnostics_);
  EXPECT_EQ(err_.str(), "");
  for (auto [name, dtype, first] : {std::tuple{"fc%2Fw.npy", DType::Float32, 1.5f},
                                    std::tuple{"bf.npy", DType::Float32, 1.0f}}) {
    Expected<MappedFile> file = MappedFile::open(path("out") / name);
    ASSERT_TRUE(file) << name;
    Expected<NpyHeader> header = parse_npy(file->bytes());
    ASSERT_TRUE(header) << name;
    Expected<TensorView> view = npy_tensor(file->bytes(), *header);
    ASSERT_TRUE(view);
    EXPECT_EQ(view->dtype, dtype) << name;  // bfloat16 becomes float32 by default
    float v;
    std::memcpy(&v, view->data.data(), 4);
    EXPECT_EQ(v, first) << name;
  }
  Expected<MappedFile> text = MappedFile::open(path("out") / "s.txt");
  ASSERT_TRUE(text);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(text->bytes().data()), text->size()), "ok\n");
}

TEST_F(InspectTest, ToSafetensorsWritesWhatTheReaderReadsBackAndWarnsOfTheRest) {
  write("a.ckpt", value("w", tensor({2, 2}, "Float32", floats({1, 2, 3, 4}))) +
                      value("q", tensor({2}, "Int4", std::string("\x12", 1))) +
                      value("h", tensor({1}, "Float16", std::string("\x00\x3c", 2))));
  export_safetensors(input("a.ckpt"), input("a.safetensors"), {}, diagnostics_);
  EXPECT_NE(err_.str().find("'q' (tensor int4) left out"), std::string::npos) << err_.str();
  Expected<MappedFile> file = MappedFile::open(path("a.safetensors"));
  ASSERT_TRUE(file);
  model::Safetensors st = model::read_safetensors(file->bytes());
  EXPECT_TRUE(st.problems.empty());
  ASSERT_EQ(st.tensors.size(), 2u);
  EXPECT_EQ(st.tensors[0].name, "w");
  EXPECT_EQ(st.tensors[0].content.spelling, "F32");
  EXPECT_EQ(st.tensors[0].content.shape, (std::vector<uint64_t>{2, 2}));
  EXPECT_EQ(st.tensors[1].content.spelling, "F16");
  ASSERT_NE(st.metadata_value("format"), nullptr);
  EXPECT_EQ(*st.metadata_value("format"), "ms");
}

TEST_F(InspectTest, ListingWithStatisticsReadsEachTensorOnceInFileOrder) {
  write("a.ckpt", value("w", tensor({3}, "Float32", floats({1, -2, 4}))) +
                      value("s", tensor({0}, "str", std::string("x\0\0\0", 4))));
  std::ostringstream out;
  ListOptions options;
  options.format = table::Format::Json;
  options.stats = true;
  options.jobs = 4;
  list_models({input("a.ckpt")}, options, out, diagnostics_);
  std::vector<nlohmann::json> rows = json_lines(out.str());
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["name"], "w");
  EXPECT_EQ(rows[0]["count"], 3);
  EXPECT_EQ(rows[0]["min"], -2.0);
  EXPECT_EQ(rows[0]["max"], 4.0);
  EXPECT_EQ(rows[0]["mean"], 1.0);
  EXPECT_TRUE(rows[1]["count"].is_null());  // a string has no statistics
  EXPECT_EQ(err_.str(), "");
}

}  // namespace
}  // namespace msdt::weights
