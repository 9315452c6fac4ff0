// Generator of the seed corpora of fuzz_ascend_dump and fuzz_protobuf (tests/fuzz/corpus/). Under
// ctest it checks that the checked-in seeds are what this file generates; with
// MSDT_WRITE_CORPUS=1 it (re)writes them:
//   MSDT_WRITE_CORPUS=1 MSDT_SOURCE_DIR=/work/main build/tests/ascend_fuzz_corpus_test
// Files not named seed-* (crashers the fuzzer found) are left alone.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "dump/ascend_dump.h"
#include "support/ascend_dump_writer.h"
#include "support/proto_writer.h"

namespace msdt::dump {
namespace {

using msdt::testing::AscendDumpSpec;
using msdt::testing::AscendTensorSpec;
using msdt::testing::ProtoWriter;
using msdt::testing::write_ascend_dump;

struct Seed {
  std::string name;
  std::vector<std::byte> bytes;
};

std::vector<std::byte> counting(size_t n) {
  std::vector<std::byte> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<std::byte>(i * 7 + 1);
  return out;
}

void append_le(std::vector<std::byte>& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<std::byte>(value >> (8 * i)));
}

AscendTensorSpec tensor(uint32_t data_type, std::vector<uint64_t> shape, size_t payload_bytes) {
  AscendTensorSpec t;
  t.data_type = data_type;
  t.shape = std::move(shape);
  t.payload = counting(payload_bytes);
  return t;
}

AscendDumpSpec overflow_spec(std::vector<std::byte> payload) {
  AscendDumpSpec spec;
  spec.op_name = "Node_OpDebug";
  AscendTensorSpec out = tensor(4, {payload.size()}, 0);
  out.payload = std::move(payload);
  spec.outputs = {out};
  return spec;
}

std::vector<Seed> ascend_dump_seeds() {
  std::vector<Seed> seeds;
  {
    AscendDumpSpec spec;
    spec.dump_time = 1690000000123456;
    spec.op_name = "Default/network/Conv2D-op12";
    spec.attrs = {{"threadMode", "0"}};
    spec.dfx_message = "dfx";
    AscendTensorSpec in0 = tensor(2, {1, 1, 2, 2, 16}, 128);
    in0.format = 3;
    in0.original_shape = std::vector<uint64_t>{1, 3, 2, 2};
    in0.sub_format = -1;
    in0.address = 0x1000;
    AscendTensorSpec out0 = tensor(1, {2, 2}, 20);
    out0.original_op_name = "orig";
    out0.unpacked_shape = true;
    AscendTensorSpec buf = tensor(0, {}, 4);
    spec.inputs = {in0};
    spec.outputs = {out0};
    spec.buffers = {buf};
    spec.workspaces = {buf};
    seeds.push_back({"seed-full", write_ascend_dump(spec)});
  }
  seeds.push_back({"seed-empty", write_ascend_dump(AscendDumpSpec{})});
  {
    AscendDumpSpec spec;
    spec.inputs = {tensor(28, {5}, 3), tensor(0, {9}, 5), tensor(1, {}, 8), tensor(13, {1}, 4)};
    spec.outputs = {tensor(12, {0, 3}, 0)};
    seeds.push_back({"seed-dtypes", write_ascend_dump(spec)});
  }
  {
    AscendDumpSpec spec;
    spec.version = "1.0";
    spec.whole_protobuf = true;
    spec.inputs = {tensor(1, {2}, 8)};
    spec.outputs = {tensor(3, {3}, 3)};
    seeds.push_back({"seed-whole-protobuf", write_ascend_dump(spec)});
  }
  {
    std::vector<std::byte> old(2048);
    for (size_t i = 0; i < old.size(); i += 8) old[i] = static_cast<std::byte>(i / 8 + 1);
    seeds.push_back({"seed-overflow-old", write_ascend_dump(overflow_spec(old))});
  }
  {
    std::vector<std::byte> fresh;
    append_le(fresh, 0x5A5A5A5A, 4);
    append_le(fresh, 1, 4);
    for (uint64_t v : {1, 0, 0, 112}) append_le(fresh, v, 4);
    for (uint64_t v = 1; v <= 14; ++v) append_le(fresh, v * 0x100, 8);
    seeds.push_back({"seed-overflow-new-aic", write_ascend_dump(overflow_spec(fresh))});
    std::vector<std::byte> sdma;
    append_le(sdma, 0x5A5A5A5A, 4);
    append_le(sdma, 0, 4);
    for (uint64_t v : {1, 3, 0, 80}) append_le(sdma, v, 4);
    for (uint64_t v = 1; v <= 10; ++v) append_le(sdma, v, 8);
    seeds.push_back({"seed-overflow-new-sdma", write_ascend_dump(overflow_spec(sdma))});
  }
  {
    // Fields the writer has no option for: dim_range, offset, arg_index, input_type, a group.
    ProtoWriter range;
    range.varint(1, 0).varint(2, 4);
    ProtoWriter op;
    op.string(1, "fused").varint(2, 1).varint(3, 27).varint(4, 29);
    ProtoWriter shape;
    shape.packed_varints(1, std::vector<uint64_t>{2});
    ProtoWriter output;
    output.varint(1, 27).varint(2, 0x1003).message(3, shape).message(4, op).varint(6, 4);
    output.message(10, range).varint(11, 8).varint(12, 2).tag(40, 3).varint(1, 1).tag(40, 4);
    ProtoWriter input;
    input.varint(1, 1).message(3, shape).varint(5, 8).varint(9, 1).varint(10, 3).varint(11, 1);
    ProtoWriter space;
    space.varint(1, 0).varint(3, 2).varint(4, 5);
    ProtoWriter message;
    message.string(1, "2.0").message(3, output).message(4, input).message(8, space);
    message.string(9, "dfx").fixed64(77, 1);
    std::vector<std::byte> file;
    append_le(file, message.data().size(), 8);
    file.insert(file.end(), message.data().begin(), message.data().end());
    const auto payload = counting(14);
    file.insert(file.end(), payload.begin(), payload.end());
    seeds.push_back({"seed-newer-fields", file});
  }
  {
    AscendDumpSpec spec;
    spec.inputs = {tensor(1, {1}, 4)};
    spec.inputs[0].size_override = 5;
    seeds.push_back({"seed-size-mismatch", write_ascend_dump(spec)});
    spec.inputs[0].size_override = std::nullopt;
    spec.header_length_override = 1000;
    seeds.push_back({"seed-header-too-long", write_ascend_dump(spec)});
  }
  return seeds;
}

std::vector<Seed> protobuf_seeds() {
  std::vector<Seed> seeds;
  AscendDumpSpec spec;
  spec.op_name = "op";
  spec.inputs = {tensor(1, {2, 3}, 24)};
  spec.outputs = {tensor(2, {4}, 8)};
  spec.outputs[0].original_op_name = "orig";
  seeds.push_back({"seed-dump-data", msdt::testing::encode_dump_data(spec)});
  ProtoWriter all_types;
  all_types.varint(1, ~uint64_t{0}).fixed64(2, 1).fixed32(3, 2).string(4, "text");
  all_types.packed_varints(5, std::vector<uint64_t>{1, 300, 70000});
  seeds.push_back({"seed-wire-types", all_types.take()});
  ProtoWriter groups;
  groups.tag(1, 3).tag(2, 3).varint(3, 1).tag(2, 4).string(4, "x").tag(1, 4).varint(5, 5);
  seeds.push_back({"seed-groups", groups.take()});
  ProtoWriter nested;
  ProtoWriter inner;
  inner.varint(1, 1).string(2, "deep");
  ProtoWriter middle;
  middle.message(1, inner).message(1, inner);
  nested.message(1, middle).message(2, middle);
  seeds.push_back({"seed-nested", nested.take()});
  return seeds;
}

std::vector<std::byte> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> out(chars.size());
  for (size_t i = 0; i < chars.size(); ++i) out[i] = static_cast<std::byte>(chars[i]);
  return out;
}

void sync_corpus(const std::string& parser, const std::vector<Seed>& seeds) {
  const char* source = std::getenv("MSDT_SOURCE_DIR");
  if (source == nullptr) GTEST_SKIP() << "MSDT_SOURCE_DIR is not set";
  const auto dir = std::filesystem::path(source) / "tests" / "fuzz" / "corpus" / parser;
  const bool write = std::getenv("MSDT_WRITE_CORPUS") != nullptr;
  if (write) std::filesystem::create_directories(dir);
  for (const Seed& seed : seeds) {
    const auto path = dir / seed.name;
    if (write) {
      std::ofstream out(path, std::ios::binary);
      out.write(reinterpret_cast<const char*>(seed.bytes.data()),
                static_cast<std::streamsize>(seed.bytes.size()));
    }
    EXPECT_EQ(read_file(path), seed.bytes)
        << path << " is stale; regenerate with MSDT_WRITE_CORPUS=1";
  }
}

TEST(FuzzCorpus, AscendDumpSeedsAreCurrent) { sync_corpus("ascend_dump", ascend_dump_seeds()); }

TEST(FuzzCorpus, ProtobufSeedsAreCurrent) { sync_corpus("protobuf", protobuf_seeds()); }

// The seeds are meant to reach deep: the valid ones must parse.
TEST(FuzzCorpus, ValidAscendSeedsParse) {
  for (const Seed& seed : ascend_dump_seeds()) {
    const bool broken = seed.name == "seed-size-mismatch" || seed.name == "seed-header-too-long";
    auto dump = parse_ascend_dump(seed.bytes);
    EXPECT_EQ(dump.has_value(), !broken)
        << seed.name << ": " << (dump ? std::string("parsed") : dump.error().describe());
  }
}

}  // namespace
}  // namespace msdt::dump
