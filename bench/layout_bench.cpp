// Throughput of the device-to-host gathers (dump spec §8) on tensors of a few MB.
#include <benchmark/benchmark.h>

#include <vector>

#include "tensor/layout.h"

namespace {

void BM_Nc1hwc0ToNchw(benchmark::State& state) {
  // A float16 activation of 32x60x28x28 (C padded to 64): about 3 MB on the device.
  const std::vector<uint64_t> device_shape = {32, 4, 28, 28, 16};
  const std::vector<uint64_t> host_shape = {32, 60, 28, 28};
  const size_t width = static_cast<size_t>(state.range(0));
  const msdt::DType dtype = width == 2 ? msdt::DType::Float16 : msdt::DType::Float32;
  uint64_t count = 1;
  for (uint64_t d : device_shape) count *= d;
  std::vector<std::byte> device(count * width, std::byte{1});
  const msdt::TensorView view{dtype, device_shape, msdt::Bytes(device)};
  for (auto _ : state) {
    auto result = msdt::transform_layout(view, "NC1HWC0", "NCHW", host_shape);
    if (!result) {
      state.SkipWithError(result.error().message.c_str());
      break;
    }
    benchmark::DoNotOptimize(result->data.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * device.size()));
}
BENCHMARK(BM_Nc1hwc0ToNchw)->Arg(2)->Arg(4);

void BM_FractalNzToNd(benchmark::State& state) {
  // A 1000x1000 float16 matrix: 63x63 blocks of 16x16, about 2 MB.
  const std::vector<uint64_t> device_shape = {63, 63, 16, 16};
  const std::vector<uint64_t> host_shape = {1000, 1000};
  std::vector<std::byte> device(63 * 63 * 16 * 16 * 2, std::byte{1});
  const msdt::TensorView view{msdt::DType::Float16, device_shape, msdt::Bytes(device)};
  for (auto _ : state) {
    auto result = msdt::transform_layout(view, "FRACTAL_NZ", "ND", host_shape);
    if (!result) {
      state.SkipWithError(result.error().message.c_str());
      break;
    }
    benchmark::DoNotOptimize(result->data.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * device.size()));
}
BENCHMARK(BM_FractalNzToNd);

}  // namespace
