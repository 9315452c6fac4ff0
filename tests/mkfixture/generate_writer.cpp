// {"kind": "generate"}: a large, realistic dump tree for benchmarks (README.md, "Generated trees").
// Sizes and names come from a seeded generator; tensor data is streamed in chunks, so memory does
// not grow with total_bytes.
#include <cmath>
#include <optional>
#include <string>

#include "elements.h"
#include "generated_output.h"
#include "support/ascend_dump_writer.h"
#include "tensor/dtype.h"
#include "tensor/npy.h"
#include "writers.h"

namespace msdt::fixture {
namespace fs = std::filesystem;
namespace {

std::vector<uint64_t> shape_for(uint64_t count) {
  if (count % 16 == 0 && count >= 64) return {count / 16, 16};
  return {count};
}

std::string dims(const std::vector<uint64_t>& shape, char separator) {
  std::string out;
  for (size_t i = 0; i < shape.size(); ++i)
    out += (i ? std::string(1, separator) : "") + std::to_string(shape[i]);
  return out;
}

}  // namespace

void write_generated(const Node& d, const fs::path& out) {
  d.check_keys({"kind", "seed", "ranks", "iterations", "graphs", "net", "tensors", "total_bytes",
                "min_bytes", "mix", "steps", "history", "dtype", "perturb"});
  const uint64_t seed = d.has("seed") ? d.at("seed").u64() : 1;
  const uint64_t ranks = d.has("ranks") ? d.at("ranks").u64() : 1;
  const uint64_t iterations = d.has("iterations") ? d.at("iterations").u64() : 1;
  const uint64_t graphs = d.has("graphs") ? d.at("graphs").u64() : 1;
  const std::string net = d.has("net") ? d.at("net").string() : "Net";
  const uint64_t tensors = d.at("tensors").u64();
  const double total_bytes = static_cast<double>(d.at("total_bytes").u64());
  const double min_bytes = d.has("min_bytes") ? static_cast<double>(d.at("min_bytes").u64()) : 64;
  if (ranks == 0 || iterations == 0 || graphs == 0)
    d.fail("ranks, iterations and graphs must be positive");
  double weight_npy = 1, weight_bin = 0, weight_ascend = 0;
  if (auto mix = d.find("mix")) {
    mix->check_keys({"npy", "bin", "ascend"});
    weight_npy = mix->has("npy") ? mix->at("npy").number() : 0;
    weight_bin = mix->has("bin") ? mix->at("bin").number() : 0;
    weight_ascend = mix->has("ascend") ? mix->at("ascend").number() : 0;
    if (weight_npy < 0 || weight_bin < 0 || weight_ascend < 0 ||
        weight_npy + weight_bin + weight_ascend <= 0)
      mix->fail("expected non-negative weights with a positive sum");
  }
  const double weight_sum = weight_npy + weight_bin + weight_ascend;
  // "steps": every iteration holds the same tensors (op names, kinds, dtypes and sizes), as a
  // training run dumps them step after step; only the values differ. "history": the graph's
  // execution history, rank_R/execution_order/ms_global_execution_order_graph_G.csv.
  const bool steps = d.has("steps") && d.at("steps").boolean();
  const bool history = d.has("history") && d.at("history").boolean();
  // "dtype": every npy tensor has this dtype instead of the float32/float16/int32 mix.
  std::optional<DType> npy_dtype;
  if (d.has("dtype")) {
    auto parsed = parse_dtype_label(d.at("dtype").string());
    if (!parsed) d.at("dtype").fail("unknown dtype");
    npy_dtype = *parsed;
  }
  // "perturb": the same tree (names, sizes, dtypes) with perturbed floating-point values; integer
  // tensors are left as they are.
  std::optional<Perturbation> perturb;
  if (auto p = d.find("perturb")) perturb = parse_perturbation(*p);

  const uint64_t directories = ranks * iterations;
  // The draws that shape a tensor (size, kind, dtype): one per tensor, or with "steps" one per
  // (rank, op), shared by every iteration.
  const uint64_t ops = (tensors + directories - 1) / directories;
  auto shape_key = [&](uint64_t i) {
    const uint64_t directory = i % directories;
    return steps ? (directory / iterations) * ops + i / directories : i;
  };
  const uint64_t keys = steps ? ranks * ops : tensors;

  // Log-uniform relative sizes over three decades, scaled to the requested total.
  SplitMix64 rng{seed};
  struct Draw {
    double relative, pick;
    uint64_t choice;
  };
  std::vector<Draw> draws(keys);
  for (auto& r : draws) r.relative = std::exp(rng.unit() * std::log(1000.0));
  for (auto& r : draws) {
    r.pick = rng.unit();
    r.choice = rng.next();
  }
  double relative_sum = 0;
  for (uint64_t i = 0; i < tensors; ++i) relative_sum += draws[shape_key(i)].relative;
  const double scale = tensors == 0 ? 0 : total_bytes / relative_sum;

  if (history) {
    for (uint64_t rank = 0; rank < ranks; ++rank) {
      const fs::path dir = out / ("rank_" + std::to_string(rank)) / "execution_order";
      fs::create_directories(dir);
      for (uint64_t graph = 0; graph < graphs; ++graph) {
        OutputStream file(dir /
                          ("ms_global_execution_order_graph_" + std::to_string(graph) + ".csv"));
        for (uint64_t iteration = 0; iteration < iterations; ++iteration)
          file.write(std::to_string(iteration) + "\n");
        file.close();
      }
    }
  }

  static const char* const kOpTypes[] = {"Conv2D",     "MatMul",    "Add",  "Mul",
                                         "ReLU",       "BatchNorm", "Cast", "Softmax",
                                         "ReduceMean", "Transpose"};
  ElementBlocks blocks(seed, perturb);
  for (uint64_t i = 0; i < tensors; ++i) {
    const uint64_t directory = i % directories;
    const uint64_t rank = directory / iterations;
    const uint64_t iteration = directory % iterations;
    const uint64_t op = i / directories;
    const uint64_t graph = op % graphs;
    const fs::path dir = out / ("rank_" + std::to_string(rank)) / net / std::to_string(graph) /
                         std::to_string(iteration);
    fs::create_directories(dir);
    const std::string op_type = kOpTypes[op % 10];
    const std::string op_name = "Default_network-Net_" + op_type + "-op" + std::to_string(op);
    const std::string timestamp = std::to_string(1716000000000000ULL + i);

    const Draw& draw = draws[shape_key(i)];
    const double pick = draw.pick * weight_sum;
    const uint64_t choice = draw.choice;
    const double bytes = std::max(min_bytes, draw.relative * scale);

    if (pick < weight_npy) {
      static const DType kTypes[] = {DType::Float32, DType::Float32, DType::Float16, DType::Int32};
      DType dtype = npy_dtype ? *npy_dtype : kTypes[choice % 4];
      uint64_t count =
          std::max<uint64_t>(1, static_cast<uint64_t>(bytes) / (dtype_bits(dtype) / 8));
      auto shape = shape_for(count);
      std::string io = choice % 3 == 0 ? "input" : "output";
      OutputStream file(dir / (op_type + "." + op_name + ".0.0." + timestamp + "." + io +
                               ".0.DefaultFormat." + std::string(dtype_name(dtype)) + ".npy"));
      file.write(make_npy_header(dtype, shape));
      blocks.write(file, dtype, count, i);
      file.close();
    } else if (pick < weight_npy + weight_bin) {
      uint64_t count = std::max<uint64_t>(1, static_cast<uint64_t>(bytes) / 4);
      auto shape = shape_for(count);
      // Format A (dump spec §3.1): the full scope with "/" written as "--".
      OutputStream file(dir /
                        ("Default--network-Net--" + op_type + "-op" + std::to_string(op) +
                         "_output_0_shape_" + dims(shape, '_') + "_Float32_DefaultFormat.bin"));
      blocks.write(file, DType::Float32, count, i);
      file.close();
    } else {
      DType dtype = choice % 2 ? DType::Float16 : DType::Float32;
      uint64_t count =
          std::max<uint64_t>(1, static_cast<uint64_t>(bytes) / (dtype_bits(dtype) / 8));
      testing::AscendDumpSpec spec;
      spec.dump_time = 1716000000000000ULL + i;
      spec.op_name = "Default/network-Net/" + op_type + "-op" + std::to_string(op);
      testing::AscendTensorSpec tensor;
      tensor.data_type = dtype == DType::Float16 ? 2 : 1;
      tensor.format = 2;  // ND
      tensor.shape = shape_for(count);
      tensor.size_override = count * (dtype_bits(dtype) / 8);  // the payload is streamed after
      spec.outputs.push_back(tensor);
      std::vector<std::byte> header = testing::encode_dump_data(spec);
      std::vector<std::byte> prefix(8);
      for (int b = 0; b < 8; ++b)
        prefix[b] = static_cast<std::byte>(uint64_t{header.size()} >> (8 * b));
      // Format D name (dump spec §3.4): op_type.op_name.task.stream.timestamp.
      OutputStream file(
          dir / (op_type + "." + op_name + "." + std::to_string(op % 65535) + ".7." + timestamp));
      file.write(prefix);
      file.write(header);
      blocks.write(file, dtype, count, i);
      file.close();
    }
  }
}

}  // namespace msdt::fixture
