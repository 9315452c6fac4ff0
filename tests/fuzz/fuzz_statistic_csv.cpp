// Feeds the input to every text side-file reader (dump spec §6): statistic.csv, mapping.csv, both
// execution-order files and the bare CSV reader. Rejections are normal outcomes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "dump/side_files.h"
#include "io/csv.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)msdt::dump::parse_statistic_csv(text);
  (void)msdt::dump::parse_mapping_csv(text);
  (void)msdt::dump::parse_execution_order(text);
  (void)msdt::dump::parse_global_execution_order(text);
  msdt::CsvReader reader(text);
  // Every row consumes at least one byte, so the input size bounds the loop.
  for (size_t rows = 0; rows <= size; ++rows) {
    auto row = reader.next_row();
    if (!row || !*row) break;
  }
  return 0;
}
