// What the CPU this process runs on supports, detected once: the one place the vector kernels
// (tensor statistics, dump-compare's metrics, summary CRC-32C) ask before taking a path compiled
// for more than the build's baseline. Callers that test a narrower path on purpose pass it
// themselves (compute_stats' StatsPath); nothing here is overridden.
#pragma once

namespace msdt {

struct CpuFeatures {
  // x86-64 (all false elsewhere). SSE2 is the x86-64 baseline and needs no flag.
  bool sse42 = false;  // with the crc32 instruction
  bool avx2 = false, fma = false, bmi2 = false;
  bool avx512f = false, avx512dq = false, avx512bw = false, avx512vl = false;
  // aarch64 (Advanced SIMD is part of the baseline there).
  bool neon = false;

  // AVX2 with FMA and BMI2 (every CPU with AVX2 also has F16C, which the compilers' feature test
  // does not always name): what the AVX2 statistics kernels are compiled for.
  bool avx2_set() const { return avx2 && fma && bmi2; }
  // AVX-512 F, DQ, BW and VL over the AVX2 set: the AVX-512 statistics kernels.
  bool avx512_set() const { return avx2_set() && avx512f && avx512dq && avx512bw && avx512vl; }
};

// Detected on the first call (thread-safe), the same object afterwards.
const CpuFeatures& cpu_features();

}  // namespace msdt
