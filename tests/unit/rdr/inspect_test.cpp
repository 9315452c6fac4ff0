// The diagnosis of rdr-inspect: how the last kernel launched is placed in the execution order
// (assign_stream's index for its full name, else its place in the memory list), and which rank
// is marked as the one that stopped earliest.
#include "rdr/inspect.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace fs = std::filesystem;
using namespace msdt::rdr;

namespace {

constexpr char kTime[] = "20240501120305";

class InspectTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ =
        fs::temp_directory_path() /
        ("rdr_inspect_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
         "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  void write(const std::string& relative, const std::string& text) {
    fs::path path = root_ / relative;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }

  // An execution order of `ops` (kernel k is Default/<op>-op<k>, node CNode_<k>).
  void exec_order(const std::string& rank, const std::vector<std::string>& ops) {
    std::string text = std::string(kExecOrderBanner) +
                       "\nexecution_order size: " + std::to_string(ops.size()) + "\n";
    for (size_t i = 0; i < ops.size(); ++i)
      text += std::to_string(i) + ":\n\t@kernel_graph_1:CNode_" + std::to_string(i) +
              "{[0]: ValueNode<Primitive> " + ops[i] + ", [1]: x}\n\t0\n\t1\n";
    text += std::string(kExecOrderBanner) + "\n";
    write(rank + "/rdr/SESSION.graph_exec_order.1." + kTime + ".txt", text);
  }

  // A memory list of the first `launched` kernels of `ops`.
  void memory(const std::string& rank, const std::vector<std::string>& ops, size_t launched) {
    std::string text;
    for (size_t i = 0; i < launched; ++i)
      text += "Default/" + ops[i] + "-op" + std::to_string(i) +
              "\nkernel_inputs 1\n&0x1000 #16\nkernel_workspaces 0\nkernel_outputs 1\n&0x2000 "
              "#16\n\n";
    write(rank + "/rdr/KERNEL.mem_address_list." + kTime + ".txt", text);
  }

  Recording read() {
    msdt::Diagnostics diagnostics("test", errors_);
    auto recording = read_recording(root_.string(), ReadOptions{}, diagnostics);
    EXPECT_TRUE(recording) << recording.error().describe();
    return std::move(*recording);
  }

  fs::path root_;
  std::ostringstream errors_;
};

const std::vector<std::string> kOps = {"Conv2D", "ReLU", "MatMul", "BiasAdd", "Softmax"};

TEST_F(InspectTest, PlacesTheLastKernelByItsPlaceInTheMemoryList) {
  exec_order("rank_0", kOps);
  memory("rank_0", kOps, 3);
  Recording recording = read();
  ASSERT_EQ(recording.ranks.size(), 1u);
  Diagnosis d = diagnose(recording.ranks[0].failures.at(0));
  EXPECT_EQ(d.last_kernel, "Default/MatMul-op2");
  EXPECT_EQ(d.launched, 3u);
  ASSERT_TRUE(d.position);
  EXPECT_EQ(*d.position, 2u);
  EXPECT_EQ(d.total, 5u);
  EXPECT_EQ(d.located_by, "its place in the memory list (the op types agree)");
  EXPECT_EQ(errors_.str(), "");
}

TEST_F(InspectTest, SaysWhenThePlaceInTheMemoryListDisagreesWithTheOrder) {
  exec_order("rank_0", {"Conv2D", "ReLU", "Cast", "BiasAdd"});
  memory("rank_0", kOps, 3);     // the third kernel launched is a MatMul, the order says Cast
  Recording recording = read();  // the diagnosis points into it
  Diagnosis d = diagnose(recording.ranks[0].failures.at(0));
  ASSERT_TRUE(d.position);
  EXPECT_EQ(*d.position, 2u);
  EXPECT_EQ(d.located_by,
            "its place in the memory list (but the execution order has Cast there, not MatMul: a "
            "guess)");
}

TEST_F(InspectTest, AssignStreamGivesTheIndexOfTheFullName) {
  exec_order("rank_0", kOps);
  memory("rank_0", kOps, 3);
  // assign_stream puts the MatMul at index 4 (the memory list alone would say 2) on stream 7.
  write(std::string("rank_0/rdr/DEVICE.assign_stream.1.") + kTime + ".json",
        R"([{"event_id": 0, "index": 4, "logic_id": 3, "node_info": "x",
             "node_name": "Default/MatMul-op2", "stream_id": 7}])");
  Recording recording = read();  // the diagnosis points into it
  Diagnosis d = diagnose(recording.ranks[0].failures.at(0));
  ASSERT_TRUE(d.position);
  EXPECT_EQ(*d.position, 4u);
  EXPECT_EQ(d.located_by, "assign_stream's index for its name");
  ASSERT_NE(d.stream, nullptr);
  EXPECT_EQ(d.stream->stream_id, 7u);
  EXPECT_EQ(d.stream->logic_id, 3u);
}

TEST_F(InspectTest, AMalformedFileIsReportedAndLeftOut) {
  exec_order("rank_0", kOps);
  write(std::string("rank_0/rdr/KERNEL.mem_address_list.") + kTime + ".txt",
        "Default/Conv2D-op0\nkernel_inputs 1\n&0x1000 16\n");
  Recording recording = read();
  Diagnosis d = diagnose(recording.ranks[0].failures.at(0));
  EXPECT_EQ(d.last_kernel, "");
  EXPECT_FALSE(d.position);
  EXPECT_NE(errors_.str().find("KERNEL.mem_address_list." + std::string(kTime) +
                               ".txt': line 3: memory addresses, skipped:"),
            std::string::npos)
      << errors_.str();
  EXPECT_NE(d.next.find("is malformed"), std::string::npos) << d.next;
}

TEST_F(InspectTest, TheRankThatStoppedEarlierIsMarked) {
  for (const char* rank : {"rank_0", "rank_1", "rank_2"}) exec_order(rank, kOps);
  memory("rank_0", kOps, 4);
  memory("rank_1", kOps, 2);
  memory("rank_2", kOps, 4);
  std::vector<Recording> recordings;
  recordings.push_back(read());
  ViewOptions options;
  options.json = true;
  auto text = render(recordings, options);
  ASSERT_TRUE(text);
  auto doc = nlohmann::json::parse(*text);
  const auto& compared = doc.at("ranks_compared");
  ASSERT_EQ(compared.size(), 3u);
  for (size_t r = 0; r < 3; ++r) {
    EXPECT_EQ(compared[r].at("rank"), r);
    EXPECT_EQ(compared[r].at("position"), r == 1 ? 1 : 3);
    EXPECT_EQ(compared[r].at("stopped_earliest"), r == 1);
  }
}

TEST_F(InspectTest, RanksAtTheSamePlaceAreNotMarked) {
  for (const char* rank : {"rank_0", "rank_1"}) {
    exec_order(rank, kOps);
    memory(rank, kOps, 3);
  }
  std::vector<Recording> recordings;
  recordings.push_back(read());
  ViewOptions options;
  options.json = true;
  auto doc = nlohmann::json::parse(*render(recordings, options));
  for (const auto& stop : doc.at("ranks_compared")) EXPECT_EQ(stop.at("stopped_earliest"), false);
}

}  // namespace
