// Reading a fixture description (README.md): JSON values that know where they are in the
// description, so that every mistake is reported as one line naming the place, e.g.
// "files[2].npy.shape[1]: expected an unsigned integer, found -3".
//
// mkfixture is a test tool, not library code: a description error ends the run, so it is thrown
// (like nlohmann's own exceptions) and turned into one line by main.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace msdt::fixture {

// Ordered, so that a "json" entry is written with its keys as the description gives them.
using json = nlohmann::ordered_json;

struct DescriptionError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Node {
 public:
  Node(const json& value, std::string path) : value_(&value), path_(std::move(path)) {}

  const json& value() const { return *value_; }
  const std::string& path() const { return path_; }

  [[noreturn]] void fail(std::string_view why) const;

  bool has(std::string_view key) const;
  Node at(std::string_view key) const;  // required key of an object
  std::optional<Node> find(std::string_view key) const;
  // Elements of an array (an error for anything else).
  std::vector<Node> elements() const;
  // Rejects keys outside `allowed`, so that a misspelt key is an error rather than ignored.
  void check_keys(std::initializer_list<std::string_view> allowed) const;

  bool is_object() const { return value_->is_object(); }
  bool is_array() const { return value_->is_array(); }
  bool is_string() const { return value_->is_string(); }
  bool is_number() const { return value_->is_number(); }

  std::string string() const;
  bool boolean() const;
  double number() const;  // any JSON number
  // Integers: JSON integers or strings "0x…" / decimal strings (for values past 2^53).
  uint64_t u64() const;
  int64_t i64() const;
  std::vector<uint64_t> u64_list() const;

 private:
  const json* value_;
  std::string path_;
};

// A short rendering of a value for error messages.
std::string brief(const json& value);
// "93 4e 55", "934e55" or "0x934e55"; whitespace is ignored.
std::vector<std::byte> parse_hex(const Node& node);
// A name or tag: a JSON string (its UTF-8), or {"hex": "78 ff"} for bytes a JSON string cannot
// hold (names that are not UTF-8).
std::string name_bytes(const Node& node);
// Parses a whole integer literal: decimal, or hexadecimal with 0x; nullopt otherwise.
std::optional<uint64_t> parse_u64_literal(std::string_view text);

}  // namespace msdt::fixture
