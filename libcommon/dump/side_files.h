// The text side files of a dump tree (dump spec §6): statistic.csv, mapping.csv and the
// execution-order files.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dump/file_name.h"
#include "io/error.h"

namespace msdt::dump {

struct StatisticRow {
  uint64_t line = 0;
  std::string op_type, op_name;
  std::optional<uint64_t> task_id, stream_id, timestamp;
  std::optional<Io> io;
  std::optional<uint32_t> slot;
  std::optional<uint64_t> data_size;
  std::string data_type;           // as written ("float32", "bfloat16")
  std::optional<DType> dtype;      // parsed
  std::vector<uint64_t> shape;     // "(2,3)" -> {2,3}; "()" -> {}
  // Columns present in this file's header; absent or `null` cells stay empty.
  std::optional<double> max, min, avg, l2norm;
  std::optional<uint64_t> count, negative_zero_count, positive_zero_count, nan_count,
      negative_inf_count, positive_inf_count, zero_count;
  std::string md5, sha1;
};

struct StatisticCsv {
  std::vector<std::string> header;  // titles as written
  std::vector<StatisticRow> rows;
};

// Maps columns by title (both "NaN Count" and "Nan Count"), tolerates the trailing comma of every
// data row, and names the line and column of anything malformed.
Expected<StatisticCsv> parse_statistic_csv(std::string_view text);

// mapping.csv: "{short},{original}" lines, no header.
Expected<std::vector<std::pair<std::string, std::string>>> parse_mapping_csv(std::string_view text);

// ms_execution_order_graph_{g}.csv: header line, then one full name per line.
Expected<std::vector<std::string>> parse_execution_order(std::string_view text);
// ms_global_execution_order_graph_{g}.csv: no header, the leading integer of each line.
Expected<std::vector<uint64_t>> parse_global_execution_order(std::string_view text);

}  // namespace msdt::dump
