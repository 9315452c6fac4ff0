// Compares two arbitrary tensors the way dump-compare compares a pair (compare spec §5-§9): the
// first 4 bytes choose the dtypes, the NaN policy, the cast and the algorithms; the rest is split
// in two element buffers. The metrics, the verdict under every preset and the peers' CSV rows are
// all computed. What must never happen is a crash, an over-read, a hang, or a NaN metric value
// (metrics.h: NaN becomes the reason "non-finite").
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "compare/metrics.h"
#include "compare/peer_format.h"
#include "compare/verdict.h"

namespace {

constexpr msdt::DType kTypes[] = {
    msdt::DType::Float32, msdt::DType::Float16,  msdt::DType::BFloat16, msdt::DType::Float64,
    msdt::DType::Int8,    msdt::DType::Int32,    msdt::DType::UInt8,    msdt::DType::Bool,
    msdt::DType::Int64,   msdt::DType::Complex64};

void check(const msdt::compare::Metric& m) {
  if (m.value && std::isnan(*m.value)) std::abort();
  if (m.value.has_value() == m.reason.has_value()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace msdt::compare;
  if (size < 4) return 0;
  const msdt::DType a = kTypes[data[0] % std::size(kTypes)];
  const msdt::DType b = kTypes[data[1] % std::size(kTypes)];
  MetricOptions options;
  options.nan = static_cast<NanPolicy>(data[2] % 3);
  options.cast_float32 = data[2] & 0x10;
  options.require_same_shape = data[2] & 0x20;
  options.max_elements = (data[2] & 0x40) ? data[3] % 7 : 0;
  if (data[3] & 0x80) {
    auto algs = Algorithms::parse(data[3] & 1 ? "0,4,8" : "KullbackLeiblerDivergence 5");
    if (algs) options.algorithms = *algs;
  }
  const uint8_t* rest = data + 4;
  const size_t n = size - 4, half = n / 2;
  // Element counts from the halves (the shapes claim exactly what the bytes hold).
  const uint64_t wa = msdt::dtype_bits(a) / 8, wb = msdt::dtype_bits(b) / 8;
  const uint64_t ca = wa ? half / wa : 0, cb = wb ? (n - half) / wb : 0;
  msdt::TensorView x{a, {ca}, msdt::Bytes(reinterpret_cast<const std::byte*>(rest), ca * wa)};
  msdt::TensorView y{
      b, {cb}, msdt::Bytes(reinterpret_cast<const std::byte*>(rest + half), cb * wb)};
  auto metrics = compare_tensors(x, y, options);
  if (!metrics) return 0;
  for (size_t i = 0; i < kAlgorithmCount; ++i) check(metrics->get(static_cast<Algorithm>(i)));
  for (size_t i = 0; i < kMsprobeMetricCount; ++i)
    check(metrics->get(static_cast<MsprobeMetric>(i)));
  for (Preset p : {Preset::Default, Preset::Msprobe, Preset::Dtype})
    (void)judge(*metrics, preset_thresholds(p, b));
  MsaccucmpRowInfo info;
  info.my_name = "a";
  info.golden_name = "b";
  info.shape = std::vector<uint64_t>{ca};
  MsaccucmpColumns columns;
  columns.algorithms = options.algorithms;
  (void)msaccucmp_row(info, &*metrics, columns);
  MsprobeRowInfo probe;
  probe.npu_name = "a";
  probe.bench_name = "b";
  (void)msprobe_graph_row(probe, &*metrics, accuracy_name(accuracy_reached(*metrics)),
                          MsprobeMode::Npy);
  return 0;
}
