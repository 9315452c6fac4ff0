// Throughput of the tensor core on a 64 MiB tensor. Targets of compute_stats (issue 5 §2), per
// core: float32 at least 6 GB/s with AVX2, float16 and bfloat16 at least 3 GB/s. Also the passes
// watch-check adds (count_in_ranges, change_stats).
#include <benchmark/benchmark.h>

#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "tensor/element_convert.h"
#include "tensor/element_values.h"
#include "tensor/npy.h"
#include "tensor/stats.h"
#include "tensor/value_printer.h"

namespace {

constexpr size_t kBytes = 64u << 20;

template <class T>
std::vector<std::byte> random_bytes(size_t count, T scale) {
  std::mt19937 rng(1);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<std::byte> bytes(count * sizeof(T));
  for (size_t i = 0; i < count; ++i) {
    T value = static_cast<T>(normal(rng) * scale);
    std::memcpy(bytes.data() + i * sizeof(T), &value, sizeof(T));
  }
  return bytes;
}

// One pass of compute_stats over the tensor on one thread, through one dispatch path.
void stats_bench(benchmark::State& state, msdt::DType dtype, msdt::StatsPath path,
                 const std::vector<std::byte>* bytes) {
  uint64_t count = bytes->size() * 8 / msdt::dtype_bits(dtype);
  msdt::TensorView view{dtype, {count}, msdt::Bytes(bytes->data(), bytes->size())};
  for (auto _ : state) benchmark::DoNotOptimize(msdt::compute_stats(view, 1, path));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(bytes->size()));
}

// Realistic 16-bit float patterns: the float16 or bfloat16 of normal(0, 100) values, truncated;
// random 16-bit integers would be mostly subnormals or NaN, which no real tensor is.
std::vector<std::byte> sixteen_bit(bool bfloat) {
  size_t count = kBytes / 2;
  auto floats = random_bytes<float>(count, 100.0f);
  std::vector<std::byte> bytes(count * 2);
  for (size_t i = 0; i < count; ++i) {
    uint32_t f;
    std::memcpy(&f, floats.data() + 4 * i, 4);
    uint16_t h = static_cast<uint16_t>(f >> 16);
    if (!bfloat) {
      uint32_t exponent = (f >> 23) & 0xFF;
      h = static_cast<uint16_t>((f >> 16) & 0x8000);
      if (exponent > 112 && exponent < 143)
        h = static_cast<uint16_t>(h | ((exponent - 112) << 10) | ((f >> 13) & 0x3FF));
    }
    std::memcpy(bytes.data() + 2 * i, &h, 2);
  }
  return bytes;
}

// BM_Stats/<dtype>/<path> for every path this CPU supports (scalar is the reference, not a
// contender, but its figure shows what the vector paths buy).
void register_stats_benchmarks() {
  static const auto f32 = random_bytes<float>(kBytes / 4, 100.0f);
  static const auto f64 = random_bytes<double>(kBytes / 8, 100.0);
  static const auto f16 = sixteen_bit(false);
  static const auto bf16 = sixteen_bit(true);
  static const auto i32 = random_bytes<int32_t>(kBytes / 4, 100000);
  static const auto i64 = random_bytes<int64_t>(kBytes / 8, int64_t{1} << 40);
  const std::pair<msdt::DType, const std::vector<std::byte>*> inputs[] = {
      {msdt::DType::Float32, &f32}, {msdt::DType::Float16, &f16}, {msdt::DType::BFloat16, &bf16},
      {msdt::DType::Float64, &f64}, {msdt::DType::Int32, &i32},   {msdt::DType::Int64, &i64}};
  for (auto [dtype, bytes] : inputs)
    for (msdt::StatsPath path : msdt::supported_stats_paths()) {
      std::string name = "BM_Stats/" + std::string(msdt::dtype_name(dtype)) + "/" +
                         std::string(msdt::stats_path_name(path));
      benchmark::RegisterBenchmark(name.c_str(), stats_bench, dtype, path, bytes)
          ->Unit(benchmark::kMillisecond);
    }
}

// The whole of compute_stats with 2 workers on a 256 MiB float32 tensor (chunked).
void BM_StatsFloat32TwoWorkers(benchmark::State& state) {
  static const auto bytes = random_bytes<float>((256u << 20) / 4, 100.0f);
  msdt::TensorView view{
      msdt::DType::Float32, {bytes.size() / 4}, msdt::Bytes(bytes.data(), bytes.size())};
  for (auto _ : state) benchmark::DoNotOptimize(msdt::compute_stats(view, 2));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(bytes.size()));
}

const bool kRegistered = (register_stats_benchmarks(), true);

void BM_ConvertBfloat16(benchmark::State& state) {
  size_t count = kBytes / 2;
  auto bytes = random_bytes<uint16_t>(count, 1000);
  msdt::TensorView view{msdt::DType::BFloat16, {count}, msdt::Bytes(bytes.data(), bytes.size())};
  std::vector<std::byte> out;
  constexpr uint64_t kChunk = 1 << 20;
  for (auto _ : state) {
    for (uint64_t first = 0; first < count; first += kChunk) {
      out.clear();
      (void)msdt::convert_elements(view, first, std::min<uint64_t>(kChunk, count - first),
                                   msdt::Bf16Mode::Float32, out);
    }
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * kBytes);
}

void BM_ParseNpyHeader(benchmark::State& state) {
  std::vector<uint64_t> shape{64, 3, 224, 224};
  std::string file = msdt::make_npy_header(msdt::DType::Float32, shape);
  file.resize(file.size() + 64ull * 3 * 224 * 224 * 4);
  msdt::Bytes bytes(reinterpret_cast<const std::byte*>(file.data()), file.size());
  for (auto _ : state) benchmark::DoNotOptimize(msdt::parse_npy(bytes));
}

// The passes watch-check adds to the statistics (issue 6): elements within a range (RANGE) and a
// tensor against its previous value (the change conditions), on 64 MiB of float32 and float16.
void BM_CountInRange(benchmark::State& state, msdt::DType dtype) {
  static const auto f32 = random_bytes<float>(kBytes / 4, 1.0f);
  static const auto f16 = random_bytes<uint16_t>(kBytes / 2, 1000);
  const auto& bytes = dtype == msdt::DType::Float32 ? f32 : f16;
  msdt::TensorView view{
      dtype, {bytes.size() * 8 / msdt::dtype_bits(dtype)}, msdt::Bytes(bytes.data(), bytes.size())};
  const std::pair<double, double> range{-0.5, 0.5};
  for (auto _ : state) benchmark::DoNotOptimize(msdt::count_in_ranges(view, {&range, 1}));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(bytes.size()));
}
BENCHMARK_CAPTURE(BM_CountInRange, float32, msdt::DType::Float32)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CountInRange, float16, msdt::DType::Float16)->Unit(benchmark::kMillisecond);

void BM_ChangeStats(benchmark::State& state) {
  static const auto current = random_bytes<float>(kBytes / 4, 1.0f);
  static const auto previous = random_bytes<float>(kBytes / 4, 1.1f);
  msdt::TensorView cur{
      msdt::DType::Float32, {current.size() / 4}, msdt::Bytes(current.data(), current.size())};
  msdt::TensorView prev{
      msdt::DType::Float32, {previous.size() / 4}, msdt::Bytes(previous.data(), previous.size())};
  const std::pair<double, double> tolerance{1e-5, 1e-8};
  for (auto _ : state) benchmark::DoNotOptimize(msdt::change_stats(cur, prev, {&tolerance, 1}));
  // Bytes of the current tensor (the previous one is read too).
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(current.size()));
}
BENCHMARK(BM_ChangeStats)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK(BM_StatsFloat32TwoWorkers)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ConvertBfloat16)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ParseNpyHeader);
