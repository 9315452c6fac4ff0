// What a fuzz target does with the bytes a reader hands back: reads every one of them, so that
// AddressSanitizer sees a view that reaches outside the input, and stores the sum where the
// optimiser cannot drop the reads. Shared by the model-file targets (fuzz_checkpoint,
// fuzz_safetensors, fuzz_mindir, fuzz_ms_lite).
#pragma once

#include <cstddef>

#include "io/byte_reader.h"

namespace msdt::fuzz {

inline volatile unsigned sink;  // the sums end here

// The sum of the bytes of `bytes` (every byte read).
inline unsigned touch(Bytes bytes) {
  unsigned sum = 0;
  for (std::byte b : bytes) sum += static_cast<unsigned>(b);
  return sum;
}

}  // namespace msdt::fuzz
