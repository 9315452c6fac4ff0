// Throughput of the tensor core on a 64 MiB tensor: the --stats target is at least 1 GB/s per
// core on float32.
#include <benchmark/benchmark.h>

#include <cstring>
#include <random>
#include <vector>

#include "tensor/element_convert.h"
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

template <class T>
void stats_bench(benchmark::State& state, msdt::DType dtype) {
  size_t count = kBytes / sizeof(T);
  auto bytes = random_bytes<T>(count, T(100));
  msdt::TensorView view{dtype, {count}, msdt::Bytes(bytes.data(), bytes.size())};
  for (auto _ : state) benchmark::DoNotOptimize(msdt::compute_stats(view));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * kBytes);
}

void BM_StatsFloat32(benchmark::State& state) { stats_bench<float>(state, msdt::DType::Float32); }
void BM_StatsFloat64(benchmark::State& state) { stats_bench<double>(state, msdt::DType::Float64); }
void BM_StatsInt32(benchmark::State& state) { stats_bench<int32_t>(state, msdt::DType::Int32); }
// Realistic float16 patterns (the float16 of normal(0, 100) values, truncated); random 16-bit
// integers would be mostly subnormals, which no real tensor is.
void BM_StatsFloat16(benchmark::State& state) {
  size_t count = kBytes / 2;
  auto floats = random_bytes<float>(count, 100.0f);
  std::vector<std::byte> bytes(count * 2);
  for (size_t i = 0; i < count; ++i) {
    uint32_t f;
    std::memcpy(&f, floats.data() + 4 * i, 4);
    uint32_t exponent = (f >> 23) & 0xFF;
    uint16_t h = static_cast<uint16_t>((f >> 16) & 0x8000);
    if (exponent > 112 && exponent < 143)
      h = static_cast<uint16_t>(h | ((exponent - 112) << 10) | ((f >> 13) & 0x3FF));
    std::memcpy(bytes.data() + 2 * i, &h, 2);
  }
  msdt::TensorView view{msdt::DType::Float16, {count}, msdt::Bytes(bytes.data(), bytes.size())};
  for (auto _ : state) benchmark::DoNotOptimize(msdt::compute_stats(view));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * kBytes);
}

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

}  // namespace

BENCHMARK(BM_StatsFloat32)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_StatsFloat64)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_StatsInt32)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_StatsFloat16)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ConvertBfloat16)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ParseNpyHeader);
