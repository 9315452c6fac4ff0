// The floor under `summary-cat --tags` (bench/summary_bench.sh): CRC-32C of every byte of one file,
// mapped, in 1 MiB blocks spread over every core, with no record framing, no decoding and no
// output. Whatever reads a summary file and checks its CRCs does at least this much work, so this
// time bounds how close to `cat FILE > /dev/null` any checking reader can come on this machine.
//
//   crc_floor FILE [JOBS]      prints the combined block CRCs (so the work is not optimised away)
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "io/mapped_file.h"
#include "io/parallel.h"
#include "summary/crc32c.h"

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: crc_floor FILE [JOBS]\n");
    return 2;
  }
  auto file = msdt::MappedFile::open(argv[1], msdt::Reading::Parts);
  if (!file) {
    std::fprintf(stderr, "crc_floor: %s\n", file.error().describe().c_str());
    return 1;
  }
  std::optional<long long> requested;
  if (argc == 3) requested = std::atoll(argv[2]);
  const msdt::Bytes bytes = file->bytes();
  constexpr size_t kBlock = size_t{1} << 20;
  const size_t blocks = (bytes.size() + kBlock - 1) / kBlock;
  std::atomic<uint32_t> combined{0};
  msdt::parallel_for(blocks, msdt::resolve_jobs(requested), [&](size_t i) {
    const size_t start = i * kBlock;
    const uint32_t crc =
        msdt::summary::crc32c(bytes.subspan(start, std::min(kBlock, bytes.size() - start)));
    combined.fetch_xor(crc, std::memory_order_relaxed);
  });
  std::printf("%08x\n", combined.load());
  return 0;
}
