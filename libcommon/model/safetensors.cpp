#include "model/safetensors.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>
#include <unordered_map>
#include <unordered_set>
#include <variant>

#include "io/text.h"

namespace msdt::model {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

constexpr size_t npos = std::string_view::npos;

// Every dtype name of the safetensors format (the library's `Dtype`, in its order) with its width.
struct DtypeInfo {
  std::string_view name;
  unsigned bits;
  std::optional<DType> dtype;
  bool written;  // write_safetensors writes this name for its DType
};

constexpr std::array<DtypeInfo, 22> kDtypes{{
    {"BOOL", 8, DType::Bool, true},
    {"F4", 4, DType::Float4E2M1, false},
    {"F6_E2M3", 6, DType::Float6E2M3, false},
    {"F6_E3M2", 6, DType::Float6E3M2, false},
    {"U8", 8, DType::UInt8, true},
    {"I8", 8, DType::Int8, true},
    {"F8_E5M2", 8, DType::Float8E5M2, true},
    {"F8_E4M3", 8, DType::Float8E4M3FN, true},
    {"F8_E8M0", 8, DType::Float8E8M0, true},
    {"F8_E4M3FNUZ", 8, std::nullopt, false},
    {"F8_E5M2FNUZ", 8, std::nullopt, false},
    {"I16", 16, DType::Int16, true},
    {"U16", 16, DType::UInt16, true},
    {"F16", 16, DType::Float16, true},
    {"BF16", 16, DType::BFloat16, true},
    {"I32", 32, DType::Int32, true},
    {"U32", 32, DType::UInt32, true},
    {"F32", 32, DType::Float32, true},
    {"C64", 64, DType::Complex64, true},
    {"F64", 64, DType::Float64, true},
    {"I64", 64, DType::Int64, true},
    {"U64", 64, DType::UInt64, true},
}};

const DtypeInfo* find_dtype(std::string_view name) {
  for (const DtypeInfo& d : kDtypes)
    if (d.name == name) return &d;
  return nullptr;
}

// serde_json's recursion limit: the library refuses a header nested deeper.
constexpr size_t kMaxDepth = 128;
constexpr std::string_view kMetadataKey = "__metadata__";

// The index of the first byte of `text` that is not part of valid UTF-8.
std::optional<size_t> first_invalid_utf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    const size_t n = utf8_sequence_length(text, i);
    if (n == 0) return i;
    i += n;
  }
  return std::nullopt;
}

// The JSON text scanned by hand, only to find where things are: nlohmann gives a position for a
// syntax error but none for a value it accepted, and a tensor's problems are reported where its
// key is. These run on any bytes without reading past `t`.
bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

size_t skip_blanks(std::string_view t, size_t i) {
  while (i < t.size() && is_blank(t[i])) ++i;
  return i;
}

// Past the string literal that starts at t[i] == '"' (t.size() when it is not closed).
size_t skip_string(std::string_view t, size_t i) {
  for (++i; i < t.size(); ++i) {
    if (t[i] == '\\')
      ++i;
    else if (t[i] == '"')
      return i + 1;
  }
  return t.size();
}

// Where objects and arrays first nest deeper than `limit` (npos when they never do).
size_t too_deep_at(std::string_view t, size_t limit) {
  size_t depth = 0;
  for (size_t i = 0; i < t.size();) {
    const char c = t[i];
    if (c == '"') {
      i = skip_string(t, i);
      continue;
    }
    if (c == '{' || c == '[') {
      if (++depth > limit) return i;
    } else if ((c == '}' || c == ']') && depth > 0) {
      --depth;
    }
    ++i;
  }
  return npos;
}

// Past the value that starts at t[i].
size_t skip_value(std::string_view t, size_t i) {
  if (i >= t.size()) return i;
  if (t[i] == '"') return skip_string(t, i);
  if (t[i] == '{' || t[i] == '[') {
    size_t depth = 0;
    while (i < t.size()) {
      const char c = t[i];
      if (c == '"') {
        i = skip_string(t, i);
        continue;
      }
      if (c == '{' || c == '[') {
        ++depth;
      } else if (c == '}' || c == ']') {
        if (--depth == 0) return i + 1;
      }
      ++i;
    }
    return i;
  }
  while (i < t.size() && !is_blank(t[i]) && t[i] != ',' && t[i] != '}' && t[i] != ']') ++i;
  return i;
}

// One member of the header's object, as text: the key's literal (quotes included) and the value.
struct Member {
  std::string_view key;
  size_t key_at = 0;
  std::string_view value;
};

// The members of the top-level object of a header nlohmann has accepted, in text order.
std::vector<Member> top_level_members(std::string_view t) {
  std::vector<Member> out;
  size_t i = skip_blanks(t, 0);
  if (i >= t.size() || t[i] != '{') return out;
  ++i;
  while (true) {
    i = skip_blanks(t, i);
    if (i >= t.size() || t[i] == '}') break;
    if (t[i] != '"') {  // the comma between members
      ++i;
      continue;
    }
    Member m;
    m.key_at = i;
    const size_t key_end = skip_string(t, i);
    m.key = t.substr(i, key_end - i);
    i = skip_blanks(t, key_end);
    if (i < t.size() && t[i] == ':') ++i;
    i = skip_blanks(t, i);
    const size_t value_end = skip_value(t, i);
    m.value = t.substr(i, value_end - i);
    i = value_end;
    out.push_back(m);
  }
  return out;
}

// Accepts or rejects the whole header without building it (the members are parsed one at a time
// afterwards), keeping where and why it was rejected.
class Validator : public nlohmann::json_sax<json> {
 public:
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& e) override {
    position_ = position;
    message_ = e.what();
    return false;
  }

  size_t position_ = 0;  // characters read, the failing one included
  std::string message_;
};

// nlohmann's message without its "[json.exception.parse_error.101] parse error at line 1, column
// 9: " (the offset says where), and short enough for one line ("last read" can quote a long
// token).
std::string parse_message(std::string what) {
  if (size_t column = what.find("column "); column != npos)
    if (size_t colon = what.find(": ", column); colon != npos) what.erase(0, colon + 2);
  constexpr size_t kShown = 160;
  if (what.size() > kShown) what = what.substr(0, utf8_boundary(what, kShown)) + "...";
  return what;
}

std::string_view value_kind(char first) {
  switch (first) {
    case '[':
      return "an array";
    case '"':
      return "a string";
    case 't':
    case 'f':
      return "a boolean";
    case 'n':
      return "null";
    default:
      return "a number";
  }
}

// "a string", "an array", "-1": what a value is, for "… is X, not …".
template <class Json>
std::string describe(const Json& v) {
  if (v.is_number()) return v.dump();
  if (v.is_null()) return "null";
  const std::string_view kind = v.type_name();
  return fmt::format("{} {}", kind == "array" || kind == "object" ? "an" : "a", kind);
}

std::optional<uint64_t> as_unsigned(const json& v) {
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (v.is_number_integer() && v.get<int64_t>() >= 0)
    return static_cast<uint64_t>(v.get<int64_t>());
  return std::nullopt;
}

// A tensor's entry as the header gives it.
struct Entry {
  std::string dtype;
  std::vector<uint64_t> shape;
  uint64_t begin = 0, end = 0;
};

// The entry, or why it cannot be listed (the library requires all three keys; others are
// ignored, as serde ignores them).
std::variant<Entry, std::string> read_entry(const json& v) {
  if (!v.is_object()) return fmt::format("the entry is {}, not an object", describe(v));
  Entry e;
  auto dtype = v.find("dtype");
  if (dtype == v.end()) return std::string("no \"dtype\"");
  if (!dtype->is_string()) return fmt::format("\"dtype\" is {}, not a string", describe(*dtype));
  e.dtype = dtype->get<std::string>();
  auto shape = v.find("shape");
  if (shape == v.end()) return std::string("no \"shape\"");
  if (!shape->is_array()) return fmt::format("\"shape\" is {}, not an array", describe(*shape));
  for (size_t i = 0; i < shape->size(); ++i) {
    auto d = as_unsigned((*shape)[i]);
    if (!d)
      return fmt::format("shape[{}] is {}, not a non-negative integer", i, describe((*shape)[i]));
    e.shape.push_back(*d);
  }
  auto offsets = v.find("data_offsets");
  if (offsets == v.end()) return std::string("no \"data_offsets\"");
  if (!offsets->is_array() || offsets->size() != 2)
    return fmt::format(
        "\"data_offsets\" is {}, not an array [begin, end]",
        offsets->is_array() ? fmt::format("an array of {}", offsets->size()) : describe(*offsets));
  for (size_t i = 0; i < 2; ++i) {
    auto o = as_unsigned((*offsets)[i]);
    if (!o)
      return fmt::format("data_offsets[{}] is {}, not a non-negative integer", i,
                         describe((*offsets)[i]));
    (i == 0 ? e.begin : e.end) = *o;
  }
  return e;
}

// Bytes of `count` elements of `bits` each, rounded up; nullopt past 2^64. `whole` tells whether
// they fill the last byte (the library refuses a tensor that does not: MisalignedSlice).
std::optional<uint64_t> bytes_for(uint64_t count, unsigned bits, bool& whole) {
  whole = (count % 8) * bits % 8 == 0;
  if (bits % 8 == 0) return checked_mul(count, bits / 8);
  auto most = checked_mul(count / 8, bits);  // count = 8q + r, so that q × bits is whole bytes
  if (!most) return std::nullopt;
  return checked_add(*most, ((count % 8) * bits + 7) / 8);
}

struct Listed {
  SafetensorsTensor tensor;
  uint64_t begin = 0, end = 0;  // data_offsets
};

class Reader {
 public:
  Reader(Bytes file, const SafetensorsOptions& options) : file_(file), options_(options) {}

  Safetensors read() {
    out_.file_size = file_.size();
    if (read_header()) {
      std::stable_sort(listed_.begin(), listed_.end(), [](const Listed& a, const Listed& b) {
        return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
      });
      check_tiling();
      for (Listed& l : listed_) out_.tensors.push_back(std::move(l.tensor));
      apply_metadata();
    }
    return std::move(out_);
  }

 private:
  void problem(uint64_t at, std::string message) {
    out_.problems.push_back(Error::at_offset(at, std::move(message)));
  }

  // False when the header cannot be read at all.
  bool read_header() {
    if (file_.size() < 8) {
      problem(
          0, fmt::format("file of {} bytes is too short for the 8-byte header size", file_.size()));
      return false;
    }
    const uint64_t n = load_u64le(file_.data());
    out_.header_size = n;
    if (n > options_.max_header) {
      problem(0,
              fmt::format("header size {} is above the cap of {} bytes", n, options_.max_header));
      return false;
    }
    if (n > file_.size() - 8) {
      problem(0, fmt::format("header size {} goes past the end of the file ({} bytes)", n,
                             file_.size()));
      return false;
    }
    const std::string_view text(reinterpret_cast<const char*>(file_.data() + 8), n);
    if (auto bad = first_invalid_utf8(text)) {
      problem(8 + *bad, fmt::format("header is not UTF-8: byte {:#04x} does not start a valid "
                                    "sequence",
                                    static_cast<unsigned char>(text[*bad])));
      return false;
    }
    // nlohmann takes a NUL for the end of the input, so "{}\0junk" would pass; JSON has no
    // place for one (serde_json: "trailing characters"), and NUL padding is a known mistake.
    if (size_t at = text.find('\0'); at != npos) {
      problem(8 + at, "header is not JSON: a NUL byte");
      return false;
    }
    if (size_t at = too_deep_at(text, kMaxDepth); at != npos) {
      problem(8 + at, fmt::format("header nests deeper than {} levels", kMaxDepth));
      return false;
    }
    Validator validator;
    if (!json::sax_parse(text.data(), text.data() + text.size(), &validator)) {
      const uint64_t at = std::min<uint64_t>(validator.position_ ? validator.position_ - 1 : 0, n);
      problem(8 + at, "header is not JSON: " + parse_message(validator.message_));
      return false;
    }
    const size_t first = skip_blanks(text, 0);  // the validator saw a value: first < n
    if (text[first] != '{') {
      problem(8 + first, fmt::format("header is {}, not a JSON object", value_kind(text[first])));
      return false;
    }
    read_members(text);
    return true;
  }

  void read_members(std::string_view text) {
    const std::vector<Member> members = top_level_members(text);
    std::vector<std::string> names(members.size());
    std::unordered_map<std::string_view, size_t> last;  // a repeated key: the last one is read
    for (size_t i = 0; i < members.size(); ++i) {
      try {
        names[i] = json::parse(members[i].key).get<std::string>();
      } catch (const json::exception&) {
        names[i] = std::string(members[i].key);  // not reached: the validator accepted the key
      }
    }
    for (size_t i = 0; i < members.size(); ++i) last[names[i]] = i;
    for (size_t i = 0; i < members.size(); ++i) {
      const uint64_t at = 8 + members[i].key_at;
      const std::string& name = names[i];
      if (size_t read = last[name]; read != i) {
        problem(at, fmt::format("key {} appears again at offset {:#x}, which is the one read",
                                quote_for_message(name), 8 + members[read].key_at));
        continue;
      }
      if (name == kMetadataKey) {
        read_metadata(members[i].value, at);
        continue;
      }
      json value;
      try {
        value = json::parse(members[i].value);
      } catch (const json::exception& e) {  // not reached: the validator accepted the value
        problem(at, fmt::format("tensor {}: {}", quote_for_message(name), parse_message(e.what())));
        continue;
      }
      auto entry = read_entry(value);
      if (auto* why = std::get_if<std::string>(&entry)) {
        problem(at, fmt::format("tensor {}: {}", quote_for_message(name), *why));
        continue;
      }
      add_tensor(name, at, std::get<Entry>(std::move(entry)));
    }
  }

  void read_metadata(std::string_view text, uint64_t at) {
    metadata_at_ = at;
    ordered_json m;
    try {
      m = ordered_json::parse(text);
    } catch (const json::exception& e) {  // not reached: the validator accepted the value
      problem(at, "__metadata__: " + parse_message(e.what()));
      return;
    }
    if (m.is_null()) return;  // the library reads null as no metadata
    if (!m.is_object()) {
      problem(at, fmt::format("__metadata__ is {}, not an object", describe(m)));
      return;
    }
    for (const auto& [key, value] : m.items()) {
      if (value.is_string()) {
        out_.metadata.emplace_back(key, value.get<std::string>());
        continue;
      }
      out_.metadata.emplace_back(key, value.dump());
      problem(at, fmt::format("__metadata__ {}: the value is {}, not a string",
                              quote_for_message(key), describe(value)));
    }
  }

  void add_tensor(const std::string& name, uint64_t at, Entry e) {
    const std::string quoted = quote_for_message(name);
    auto start = checked_add(out_.data_offset(), e.begin);
    if (!start) {
      problem(at, fmt::format("tensor {}: data_offsets [{}, {}] lie past 2^64", quoted, e.begin,
                              e.end));
      return;
    }
    Listed l;
    l.begin = e.begin;
    l.end = e.end;
    SafetensorsTensor& t = l.tensor;
    t.name = name;
    t.header_offset = at;
    Content& c = t.content;
    c.spelling = e.dtype;
    c.dims = e.shape;
    c.shape = std::move(e.shape);
    c.segments.push_back({*start, e.end >= e.begin ? e.end - e.begin : 0});
    const DtypeInfo* info = find_dtype(e.dtype);
    if (!info) {
      problem(at, fmt::format("tensor {}: unknown dtype {}", quoted, quote_for_message(e.dtype)));
    } else {
      c.dtype = info->dtype;
      auto count = element_count(c.shape);
      bool whole = true;
      if (!count) {
        problem(at, fmt::format("tensor {}: {}", quoted, count.error().message));
      } else if (c.expected_bytes = bytes_for(*count, info->bits, whole); !c.expected_bytes) {
        problem(at, fmt::format("tensor {}: {} {} needs more than 2^64 bytes", quoted, e.dtype,
                                dims_text(c.shape)));
      } else if (!whole) {
        problem(at, fmt::format("tensor {}: {} {} is not a whole number of bytes ({} elements of "
                                "{} bits)",
                                quoted, e.dtype, dims_text(c.shape), *count, info->bits));
      }
    }
    listed_.push_back(std::move(l));
  }

  // The library's Metadata::validate and MetadataIncompleteBuffer: in offset order, each range
  // starts where the previous one ended (the first at 0), and the last ends at the end of the file.
  void check_tiling() {
    const uint64_t data_size = file_.size() - out_.data_offset();
    uint64_t covered = 0;
    const Listed* previous = nullptr;
    for (const Listed& l : listed_) {
      const SafetensorsTensor& t = l.tensor;
      const std::string what = fmt::format("tensor {}: data_offsets [{}, {}]",
                                           quote_for_message(t.name), l.begin, l.end);
      if (l.end < l.begin) {
        problem(t.header_offset, what + " end before they begin");
        continue;
      }
      if (l.begin > covered) {
        if (previous)
          problem(t.header_offset, fmt::format("{} leave a hole of {} bytes after tensor {} (which "
                                               "ends at {})",
                                               what, l.begin - covered,
                                               quote_for_message(previous->tensor.name), covered));
        else
          problem(
              t.header_offset,
              fmt::format("{} leave a hole of {} bytes at the start of the data", what, l.begin));
      } else if (l.begin < covered) {
        problem(t.header_offset, fmt::format("{} overlap tensor {} (which ends at {})", what,
                                             quote_for_message(previous->tensor.name), covered));
      }
      if (l.end > data_size)
        problem(t.header_offset,
                fmt::format("{} go past the end of the data ({} bytes)", what, data_size));
      const Content& c = t.content;
      if (c.expected_bytes && *c.expected_bytes != l.end - l.begin)
        problem(t.header_offset,
                fmt::format("{} hold {} bytes, {} {} needs {}", what, l.end - l.begin, c.spelling,
                            dims_text(c.shape), *c.expected_bytes));
      if (l.end >= covered) {
        covered = l.end;
        previous = &l;
      }
    }
    if (covered < data_size)
      problem(out_.data_offset() + covered,
              fmt::format("{} bytes after the last tensor's data belong to no tensor",
                          data_size - covered));
  }

  // MindSpore's per-parameter dtypes and crc_num (spec §8.2).
  void apply_metadata() {
    std::unordered_map<std::string_view, SafetensorsTensor*> by_name;
    for (SafetensorsTensor& t : out_.tensors) by_name[t.name] = &t;
    for (const auto& [key, value] : out_.metadata) {
      auto it = by_name.find(key);
      if (it == by_name.end()) continue;
      it->second->mindspore_dtype = value;
      // safetensors_to_mstype in MindSpore's serialization.py holds this one entry.
      if (value != "Int4")
        problem(metadata_at_, fmt::format("__metadata__ gives tensor {} the dtype {}, which "
                                          "MindSpore's loader does not know (only 'Int4')",
                                          quote_for_message(key), quote_for_message(value)));
    }
    const std::string* crc = out_.metadata_value("crc_num");
    if (!crc) return;
    out_.crc.status = CrcStatus::NotChecked;
    auto stored = parse_unsigned<uint64_t>(*crc);
    if (!stored) {
      problem(metadata_at_, fmt::format("__metadata__ crc_num {} is not a decimal number",
                                        quote_for_message(*crc)));
      return;
    }
    out_.crc.stored = *stored;
    if (options_.verify_crc) verify_crc();
  }

  // crc32(name) then crc32(bytes) per tensor in name order, chained (the loader iterates
  // sorted(f.keys()): code point order, which is the byte order of UTF-8 and of std::string).
  void verify_crc() {
    std::vector<const SafetensorsTensor*> sorted;
    for (const SafetensorsTensor& t : out_.tensors) sorted.push_back(&t);
    std::sort(sorted.begin(), sorted.end(),
              [](const auto* a, const auto* b) { return a->name < b->name; });
    uint32_t crc = 0;
    for (const SafetensorsTensor* t : sorted) {
      const Segment& s = t->content.segments.front();
      auto end = checked_add(s.offset, s.length);
      if (!end || *end > file_.size()) {
        problem(t->header_offset, fmt::format("CRC not checked: tensor {} lies outside the file",
                                              quote_for_message(t->name)));
        return;
      }
      crc = crc32(Bytes(reinterpret_cast<const std::byte*>(t->name.data()), t->name.size()), crc);
      crc = crc32(file_.subspan(s.offset, s.length), crc);
    }
    out_.crc.computed = crc;
    out_.crc.status = out_.crc.stored == crc ? CrcStatus::Ok : CrcStatus::Mismatch;
    if (out_.crc.status == CrcStatus::Mismatch)
      problem(metadata_at_, "__metadata__ crc_num: " + out_.crc.describe());
  }

  Bytes file_;
  const SafetensorsOptions& options_;
  Safetensors out_;
  std::vector<Listed> listed_;
  uint64_t metadata_at_ = 8;  // the __metadata__ key, where its problems are reported
};

// A name or metadata text as the header's JSON string: escaped as serde_json escapes (quote,
// backslash, control characters; nothing else), which is what nlohmann's dump does too.
std::string json_text(std::string_view text) { return json(std::string(text)).dump(); }

}  // namespace

const std::string* Safetensors::metadata_value(std::string_view key) const {
  for (const auto& [k, v] : metadata)
    if (k == key) return &v;
  return nullptr;
}

Safetensors read_safetensors(Bytes file, const SafetensorsOptions& options) {
  return Reader(file, options).read();
}

std::optional<DType> safetensors_dtype(std::string_view name) {
  const DtypeInfo* info = find_dtype(name);
  return info ? info->dtype : std::nullopt;
}

std::optional<std::string_view> safetensors_dtype_name(DType dtype) {
  for (const DtypeInfo& d : kDtypes)
    if (d.written && d.dtype == dtype) return d.name;
  return std::nullopt;
}

Expected<std::string> safetensors_header(
    const std::vector<SafetensorsEntry>& entries,
    const std::vector<std::pair<std::string, std::string>>& metadata) {
  const auto not_utf8 = [](std::string_view what, std::string_view text) {
    return Error(fmt::format("{} {} is not UTF-8, which safetensors requires", what,
                             quote_for_message(text)));
  };
  std::string header = "{";
  if (!metadata.empty()) {
    std::unordered_set<std::string_view> keys;
    header += "\"__metadata__\":{";
    for (const auto& [key, value] : metadata) {
      if (first_invalid_utf8(key)) return not_utf8("metadata key", key);
      if (first_invalid_utf8(value)) return not_utf8("metadata value", value);
      if (!keys.insert(key).second)
        return Error(fmt::format("metadata key {} is given twice", quote_for_message(key)));
      if (keys.size() > 1) header += ',';
      header += json_text(key);
      header += ':';
      header += json_text(value);
    }
    header += '}';
  }
  std::unordered_set<std::string_view> names;
  uint64_t offset = 0;
  for (const SafetensorsEntry& e : entries) {
    const std::string quoted = quote_for_message(e.name);
    if (first_invalid_utf8(e.name)) return not_utf8("tensor name", e.name);
    if (e.name == kMetadataKey)
      return Error(fmt::format("tensor name {} is the format's metadata key", quoted));
    if (!names.insert(e.name).second)
      return Error(fmt::format("tensor name {} is given twice", quoted));
    auto name = safetensors_dtype_name(e.dtype);
    if (!name)
      return Error(
          fmt::format("tensor {}: dtype {} has no safetensors name", quoted, dtype_name(e.dtype)));
    MSDT_TRY(uint64_t count, element_count(e.shape));
    auto need = dtype_bytes(e.dtype, count);
    if (!need || *need != e.bytes)
      return Error(fmt::format("tensor {}: {} bytes, {} {} needs {}", quoted, e.bytes, *name,
                               dims_text(e.shape),
                               need ? fmt::to_string(*need) : std::string("more than 2^64")));
    auto end = checked_add(offset, e.bytes);
    if (!end) return Error("the tensors hold more than 2^64 bytes");
    if (header.size() > 1) header += ',';
    header += fmt::format("{}:{{\"dtype\":\"{}\",\"shape\":[{}],\"data_offsets\":[{},{}]}}",
                          json_text(e.name), *name, fmt::join(e.shape, ","), offset, *end);
    offset = *end;
  }
  header += '}';
  // The library pads with spaces so that the data starts 8-byte aligned.
  header.append((8 - header.size() % 8) % 8, ' ');
  if (header.size() > kSafetensorsMaxHeader)
    return Error(
        fmt::format("the header would take {} bytes, above the {} safetensors readers "
                    "accept",
                    header.size(), kSafetensorsMaxHeader));
  return header;
}

Status write_safetensors(AtomicFile& out, const std::vector<SafetensorsEntry>& entries,
                         const std::vector<std::pair<std::string, std::string>>& metadata,
                         const std::function<Expected<TensorData>(size_t)>& fetch) {
  MSDT_TRY(std::string header, safetensors_header(entries, metadata));
  std::array<std::byte, 8> size{};
  for (size_t i = 0; i < 8; ++i)
    size[i] = static_cast<std::byte>(static_cast<uint64_t>(header.size()) >> (8 * i));
  MSDT_CHECK(out.write(Bytes(size),
                       Bytes(reinterpret_cast<const std::byte*>(header.data()), header.size())));
  for (size_t i = 0; i < entries.size(); ++i) {
    const SafetensorsEntry& e = entries[i];
    auto data = fetch(i);
    if (!data)
      return std::move(data).error().with_context(
          fmt::format("tensor {}", quote_for_message(e.name)));
    const Bytes bytes = data->view().data;
    if (bytes.size() != e.bytes)
      return Error(fmt::format("tensor {}: {} bytes were given for the {} the header says",
                               quote_for_message(e.name), bytes.size(), e.bytes));
    MSDT_CHECK(out.write(bytes));
  }
  return std::nullopt;
}

}  // namespace msdt::model
