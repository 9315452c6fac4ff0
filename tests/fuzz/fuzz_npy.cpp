// Parses an .npy file, views its elements and computes their statistics (dump spec §9).
#include <cstddef>
#include <cstdint>
#include <span>

#include "tensor/npy.h"
#include "tensor/stats.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Use the fuzzer's buffer as is: copying into a larger one would hide over-reads from ASan.
  msdt::Bytes in{reinterpret_cast<const std::byte*>(data), size};
  // The hint lets the fuzzer reach the 'V2' bfloat16 path as well.
  auto header = msdt::parse_npy(in, msdt::DType::BFloat16);
  if (!header) return 0;
  auto tensor = msdt::npy_tensor(in, *header);
  if (!tensor) return 0;
  (void)msdt::compute_stats(*tensor);
  return 0;
}
