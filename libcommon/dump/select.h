// Selecting tensors: the options --rank, --iteration, --graph, --op, --dtype and --io, parsed and
// checked once, then applied to each directory and tensor a walk visits. Shared by every tool that
// walks dump trees (dump-parse, watch-check, dump-compare); dump/select_options.h registers the
// options on a CLI11 app the same way for each of them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dump/dump_file.h"
#include "dump/tree.h"
#include "io/error.h"
#include "io/regex.h"
#include "tensor/dtype.h"

namespace msdt::dump {

// A set of non-negative integers written "0,3,5-8" (inclusive ranges; blanks around items and
// around the dash are allowed).
class IdList {
 public:
  bool contains(uint64_t id) const;
  const std::vector<std::pair<uint64_t, uint64_t>>& ranges() const { return ranges_; }

 private:
  friend Expected<IdList> parse_id_list(std::string_view text);
  std::vector<std::pair<uint64_t, uint64_t>> ranges_;
};
// Errors name the offending item: "'5-3': range end 3 is before its start 5".
Expected<IdList> parse_id_list(std::string_view text);

// "float32,FLOAT,bf16,<f4" -> dtypes; any spelling parse_dtype_spelling accepts.
Expected<std::vector<DType>> parse_dtype_list(std::string_view text);

// The selector options as the user wrote them; empty = no selection on that field.
struct Selection {
  std::string op;          // RE2 regex searched in op_name
  std::string iterations;  // IdList
  std::string ranks;       // IdList
  std::string graphs;      // IdList
  std::string io;          // "input" or "output"
  std::string dtypes;      // parse_dtype_list; matches the stored dtype or the name's
};

// A Selection compiled once (the regex, the lists). A tensor whose field is absent does not match
// a selection on that field.
class Selector {
 public:
  // Errors describe the bad option value ("--iteration: '5-3': …").
  static Expected<Selector> create(const Selection& selection);
  // Location selections alone, to skip whole directories without reading them.
  bool accepts_location(const DumpLocation& where) const;
  // Every selection; `file` gives the name's fields (its dtype label).
  bool accepts(const DumpLocation& where, const DumpFile& file, const DumpTensor& tensor) const;

 private:
  std::optional<Regex> op_;
  std::optional<IdList> iterations_, ranks_, graphs_;
  std::string io_;
  std::vector<DType> dtypes_;
};

}  // namespace msdt::dump
