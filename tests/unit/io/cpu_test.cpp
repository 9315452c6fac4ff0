// io/cpu.h: the features detected once, checked against the kernel's own list of the CPU's flags
// (/proc/cpuinfo) where there is one.
#include "io/cpu.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace msdt {
namespace {

// The first "flags" (x86) or "Features" (aarch64) line of /proc/cpuinfo, as a set of words.
std::set<std::string> proc_cpuinfo_flags() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("flags", 0) != 0 && line.rfind("Features", 0) != 0) continue;
    std::istringstream words(line.substr(line.find(':') + 1));
    std::set<std::string> flags;
    for (std::string w; words >> w;) flags.insert(w);
    return flags;
  }
  return {};
}

TEST(Cpu, DetectedOnce) { EXPECT_EQ(&cpu_features(), &cpu_features()); }

TEST(Cpu, SetsImplyTheirParts) {
  const CpuFeatures& cpu = cpu_features();
  if (cpu.avx512_set()) {
    EXPECT_TRUE(cpu.avx2_set());
  }
  if (cpu.avx2_set()) {
    EXPECT_TRUE(cpu.avx2 && cpu.fma && cpu.bmi2);
  }
  CpuFeatures none;
  EXPECT_FALSE(none.avx2_set());
  none.avx2 = none.fma = true;  // BMI2 missing
  EXPECT_FALSE(none.avx2_set());
  none.bmi2 = true;
  EXPECT_TRUE(none.avx2_set());
  none.avx512f = none.avx512dq = none.avx512bw = true;  // VL missing
  EXPECT_FALSE(none.avx512_set());
  none.avx512vl = true;
  EXPECT_TRUE(none.avx512_set());
}

TEST(Cpu, AgreesWithProcCpuinfo) {
  std::set<std::string> flags = proc_cpuinfo_flags();
  if (flags.empty()) GTEST_SKIP() << "no /proc/cpuinfo flags";
  const CpuFeatures& cpu = cpu_features();
#if defined(__x86_64__)
  EXPECT_EQ(cpu.sse42, flags.count("sse4_2") == 1);
  EXPECT_EQ(cpu.avx2, flags.count("avx2") == 1);
  EXPECT_EQ(cpu.fma, flags.count("fma") == 1);
  EXPECT_EQ(cpu.bmi2, flags.count("bmi2") == 1);
  EXPECT_EQ(cpu.avx512f, flags.count("avx512f") == 1);
  EXPECT_EQ(cpu.avx512dq, flags.count("avx512dq") == 1);
  EXPECT_EQ(cpu.avx512bw, flags.count("avx512bw") == 1);
  EXPECT_EQ(cpu.avx512vl, flags.count("avx512vl") == 1);
  EXPECT_FALSE(cpu.neon);
#elif defined(__aarch64__)
  EXPECT_TRUE(cpu.neon);
  EXPECT_EQ(flags.count("asimd"), 1u);
#else
  GTEST_SKIP() << "neither x86-64 nor aarch64";
#endif
}

}  // namespace
}  // namespace msdt
