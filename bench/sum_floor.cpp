// The floor under `dump-parse --stats` on float32 (bench/stats_bench.sh): every file mapped the way
// dump-parse maps a large tensor (MappedFile, Reading::Whole) and its float32 elements summed on
// one thread in the plainest vector loop (float lanes, four accumulators), with no statistics,
// no file names, no output but the sum. What is left is mapping the pages and reading the bytes
// from memory, so this time bounds what any one-core statistics pass can reach on this machine.
//
//   sum_floor FILE...      prints the sum (so the loop is not optimised away) and the bytes read
#include <cstdio>
#include <cstring>

#include "io/mapped_file.h"

namespace {

using F4 [[gnu::vector_size(16)]] = float;

float sum_floats(const std::byte* p, size_t n) {
  F4 a{}, b{}, c{}, d{};
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    F4 x, y, z, w;
    std::memcpy(&x, p + 4 * i, 16);
    std::memcpy(&y, p + 4 * i + 16, 16);
    std::memcpy(&z, p + 4 * i + 32, 16);
    std::memcpy(&w, p + 4 * i + 48, 16);
    a += x;
    b += y;
    c += z;
    d += w;
  }
  F4 s = (a + b) + (c + d);
  float total = s[0] + s[1] + s[2] + s[3];
  for (; i < n; ++i) {
    float x;
    std::memcpy(&x, p + 4 * i, 4);
    total += x;
  }
  return total;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: sum_floor FILE...\n");
    return 2;
  }
  double total = 0;
  unsigned long long bytes = 0;
  for (int i = 1; i < argc; ++i) {
    auto file = msdt::MappedFile::open(argv[i], msdt::Reading::Whole);
    if (!file) {
      std::fprintf(stderr, "sum_floor: %s\n", file.error().describe().c_str());
      return 1;
    }
    const msdt::Bytes data = file->bytes();
    total += sum_floats(data.data(), data.size() / 4);
    bytes += data.size();
  }
  std::printf("%g %llu\n", total, bytes);
  return 0;
}
