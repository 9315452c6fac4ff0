#include "ir/type_spec.h"

#include <fmt/format.h>

#include "io/text.h"
#include "ir/text_parser.h"

namespace msdt::ir {
namespace {

// 1.x refs print their element type with DumpText: Tensor(F32).
std::string short_dtype(std::string_view s) {
  static constexpr std::pair<std::string_view, std::string_view> kNames[] = {
      {"F16", "Float16"}, {"F32", "Float32"}, {"F64", "Float64"}, {"BF16", "BFloat16"},
      {"I8", "Int8"},     {"I16", "Int16"},   {"I32", "Int32"},   {"I64", "Int64"},
      {"U8", "UInt8"},    {"U16", "UInt16"},  {"U32", "UInt32"},  {"U64", "UInt64"},
      {"Bool", "Bool"}};
  for (auto [k, v] : kNames)
    if (s == k) return std::string(v);
  return std::string(s);
}

// "(2, 3)", "[2, 3]", "{2, 3}", "()" or the 2.2+ long form "{[0]:{32}, [1]:{12}}".
std::optional<std::vector<int64_t>> parse_dims(std::string_view s) {
  s = trim_blanks(s);
  if (s.size() < 2) return std::nullopt;
  char open = s.front(), close = s.back();
  if (!((open == '(' && close == ')') || (open == '[' && close == ']') ||
        (open == '{' && close == '}')))
    return std::nullopt;
  std::vector<int64_t> dims;
  for (std::string_view item : split_top_level(s.substr(1, s.size() - 2))) {
    std::string_view v = item;
    if (auto colon = v.find(":{"); colon != std::string_view::npos)
      v = v.substr(colon + 2, v.size() - colon - 3);  // "[i]:{v}"
    v = trim_blanks(v);
    bool negative = v.starts_with('-');
    if (negative) v.remove_prefix(1);
    auto n = parse_unsigned<uint64_t>(v);
    if (!n || *n > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
    dims.push_back(negative ? -static_cast<int64_t>(*n) : static_cast<int64_t>(*n));
  }
  return dims;
}

bool is_word(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
      return false;
  return true;
}

// The shape part after "Tensor[Float32]": "x[const vector][2, 3]", "x(2, 3)", ", (2, 3)",
// "x{shape:(-1, 3)|min shape:…}", possibly followed by ", value=…" and the like.
void tensor_shape(std::string_view rest, TypeSpec& t) {
  rest = trim_blanks(rest);
  if (rest.starts_with("x[const vector]")) {
    t.shape = parse_dims(rest.substr(15, matching_bracket(rest, 15) - 15));
  } else if (rest.starts_with("x{shape:")) {
    size_t open = 8, close = matching_bracket(rest, open);
    if (close != std::string_view::npos) t.shape = parse_dims(rest.substr(open, close - open));
  } else if (rest.starts_with("x(") || rest.starts_with(", (") || rest.starts_with(",(")) {
    size_t open = rest.find('(');
    size_t close = matching_bracket(rest, open);
    if (close != std::string_view::npos) t.shape = parse_dims(rest.substr(open, close - open));
  }
}

}  // namespace

TypeSpec parse_type_spec(std::string_view text) {
  TypeSpec t;
  t.text = std::string(text);
  std::string_view s = trim_blanks(text);
  if (s.starts_with('<') && s.ends_with('>')) s = s.substr(1, s.size() - 2);
  if (s.starts_with("Ref[")) {
    t.ref = true;
    size_t close = matching_bracket(s, 3);
    if (close == std::string_view::npos) return t;
    std::string_view inner = s.substr(4, close - 5);
    std::string_view rest = s.substr(close);
    if (inner.starts_with("Tensor(") && inner.ends_with(")")) {
      t.kind = TypeSpec::Kind::Tensor;
      t.dtype = short_dtype(inner.substr(7, inner.size() - 8));
    } else if (inner.starts_with("Tensor[") && inner.ends_with("]")) {
      t.kind = TypeSpec::Kind::Tensor;
      t.dtype = std::string(inner.substr(7, inner.size() - 8));
    }
    tensor_shape(rest, t);
    return t;
  }
  if (s.starts_with("Tensor[")) {
    size_t close = matching_bracket(s, 6);
    if (close == std::string_view::npos) return t;
    t.kind = TypeSpec::Kind::Tensor;
    t.dtype = std::string(s.substr(7, close - 8));
    tensor_shape(s.substr(close), t);
    return t;
  }
  if (s.starts_with("Tuple") || s.starts_with("Dynamic Tuple")) {
    t.kind = TypeSpec::Kind::Tuple;
    return t;
  }
  if (s.starts_with("List")) {
    t.kind = TypeSpec::Kind::List;
    return t;
  }
  if (s == "UMonad" || s == "IOMonad") {
    t.kind = TypeSpec::Kind::Monad;
    t.dtype = std::string(s);
    return t;
  }
  if (s == "Func" || s.starts_with("Func,")) {
    t.kind = TypeSpec::Kind::Function;
    return t;
  }
  if (s == "null" || s == "None" || s.starts_with("None,")) {
    t.kind = TypeSpec::Kind::None;
    return t;
  }
  // Device form: Float32xNC1HWC0[const vector]{…} or Float32xDefaultFormat[const vector][…].
  if (auto vec = s.find("[const vector]"); vec != std::string_view::npos) {
    std::string_view head = s.substr(0, vec);
    auto x = head.find('x');
    if (x != std::string_view::npos && is_word(head.substr(0, x))) {
      t.kind = TypeSpec::Kind::Tensor;
      t.dtype = std::string(head.substr(0, x));
      t.format = std::string(head.substr(x + 1));
      std::string_view dims = s.substr(vec + 14);
      size_t close = matching_bracket(dims, 0);
      if (close != std::string_view::npos) t.shape = parse_dims(dims.substr(0, close));
      return t;
    }
  }
  // Scalars: "Int64, NoShape", "Bool", "Float32".
  std::string_view word = s.substr(0, s.find(','));
  if (is_word(word)) {
    t.kind = TypeSpec::Kind::Scalar;
    t.dtype = std::string(word);
  }
  return t;
}

std::string TypeSpec::label() const {
  std::string dims;
  if (shape) {
    for (size_t i = 0; i < shape->size(); ++i)
      dims += (i ? "," : "") + ((*shape)[i] == -1   ? std::string("?")
                                : (*shape)[i] == -2 ? std::string("*")
                                                    : std::to_string((*shape)[i]));
  }
  switch (kind) {
    case Kind::Tensor:
      return fmt::format("{}{}{}", ref ? "Ref " : "", dtype,
                         shape ? fmt::format("[{}]", dims) : std::string());
    case Kind::Scalar:
    case Kind::Monad:
      return dtype;
    case Kind::Tuple:
      return "Tuple";
    case Kind::List:
      return "List";
    case Kind::Function:
      return "Func";
    case Kind::None:
      return "None";
    case Kind::Other:
      break;
  }
  std::string_view s = trim_blanks(text);
  if (s.starts_with('<') && s.ends_with('>')) s = s.substr(1, s.size() - 2);
  return std::string(s);
}

}  // namespace msdt::ir
