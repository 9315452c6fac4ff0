#include "description.h"

#include <cctype>
#include <charconv>

namespace msdt::fixture {

void Node::fail(std::string_view why) const {
  throw DescriptionError((path_.empty() ? std::string("description") : path_) + ": " +
                         std::string(why));
}

bool Node::has(std::string_view key) const { return value_->is_object() && value_->contains(key); }

Node Node::at(std::string_view key) const {
  if (!value_->is_object()) fail("expected an object, found " + brief(*value_));
  auto it = value_->find(key);
  if (it == value_->end()) fail("missing key \"" + std::string(key) + "\"");
  return Node(*it, path_.empty() ? std::string(key) : path_ + "." + std::string(key));
}

std::optional<Node> Node::find(std::string_view key) const {
  if (!has(key)) return std::nullopt;
  return at(key);
}

std::vector<Node> Node::elements() const {
  if (!value_->is_array()) fail("expected an array, found " + brief(*value_));
  std::vector<Node> out;
  out.reserve(value_->size());
  for (size_t i = 0; i < value_->size(); ++i)
    out.emplace_back((*value_)[i], path_ + "[" + std::to_string(i) + "]");
  return out;
}

void Node::check_keys(std::initializer_list<std::string_view> allowed) const {
  if (!value_->is_object()) fail("expected an object, found " + brief(*value_));
  for (const auto& [key, unused] : value_->items()) {
    bool known = false;
    for (auto a : allowed) known = known || a == key;
    if (!known) {
      std::string list;
      for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      fail("unknown key \"" + key + "\" (known: " + list + ")");
    }
  }
}

std::string Node::string() const {
  if (!value_->is_string()) fail("expected a string, found " + brief(*value_));
  return value_->get<std::string>();
}

bool Node::boolean() const {
  if (!value_->is_boolean()) fail("expected true or false, found " + brief(*value_));
  return value_->get<bool>();
}

double Node::number() const {
  if (!value_->is_number()) fail("expected a number, found " + brief(*value_));
  return value_->get<double>();
}

std::optional<uint64_t> parse_u64_literal(std::string_view text) {
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    text.remove_prefix(2);
    base = 16;
  }
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

uint64_t Node::u64() const {
  if (value_->is_number_unsigned()) return value_->get<uint64_t>();
  if (value_->is_string()) {
    if (auto v = parse_u64_literal(value_->get<std::string>())) return *v;
  }
  fail("expected an unsigned integer, found " + brief(*value_));
}

int64_t Node::i64() const {
  if (value_->is_number_integer()) return value_->get<int64_t>();
  if (value_->is_string()) {
    std::string text = value_->get<std::string>();
    bool negative = !text.empty() && text[0] == '-';
    if (auto v = parse_u64_literal(negative ? std::string_view(text).substr(1) : text)) {
      return negative ? static_cast<int64_t>(0 - *v) : static_cast<int64_t>(*v);
    }
  }
  fail("expected an integer, found " + brief(*value_));
}

std::vector<uint64_t> Node::u64_list() const {
  std::vector<uint64_t> out;
  for (const auto& e : elements()) out.push_back(e.u64());
  return out;
}

std::string brief(const json& value) {
  std::string text = value.dump();
  if (text.size() > 40) {
    text.resize(37);
    text += "...";
  }
  return text;
}

std::vector<std::byte> parse_hex(const Node& node) {
  std::string text = node.string();
  std::string digits;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == ' ' || c == '\n' || c == '\t') continue;
    if (c == '0' && i + 1 < text.size() && (text[i + 1] == 'x' || text[i + 1] == 'X') &&
        digits.size() % 2 == 0) {
      ++i;
      continue;
    }
    if (!std::isxdigit(static_cast<unsigned char>(c)))
      node.fail(std::string("expected hexadecimal digits, found '") + c + "'");
    digits += c;
  }
  if (digits.size() % 2 != 0) node.fail("odd number of hexadecimal digits");
  std::vector<std::byte> out;
  for (size_t i = 0; i < digits.size(); i += 2)
    out.push_back(static_cast<std::byte>(std::stoi(digits.substr(i, 2), nullptr, 16)));
  return out;
}

std::string name_bytes(const Node& node) {
  if (!node.is_object()) return node.string();
  node.check_keys({"hex"});
  std::vector<std::byte> bytes = parse_hex(node.at("hex"));
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

}  // namespace msdt::fixture
