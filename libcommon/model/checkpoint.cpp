#include "model/checkpoint.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <isa-l/crc.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <utility>

#include "io/text.h"
#include "model/sniff.h"
#include "proto/wire_reader.h"

namespace msdt::model {
namespace {

using proto::Field;
using proto::WireType;

// One TensorProto's header: nothing of tensor_content but where it lies.
struct TensorHeader {
  std::vector<uint64_t> dims;
  std::string_view spelling;
  bool has_spelling = false;
  Segment content;
};

// One Checkpoint.Value's header.
struct ValueHeader {
  uint64_t offset = 0;  // the top-level tag
  std::string_view tag;
  bool has_tag = false;
  std::optional<TensorHeader> tensor;  // absent, or present with no field (ByteSize() == 0)
  std::vector<TensorHeader> map;
  bool has_map = false;
};

std::string value_context(uint64_t index, const ValueHeader& value) {
  if (!value.has_tag) return fmt::format("Value {}", index);
  return fmt::format("Value {} {}", index, quote_for_message(value.tag));
}

Expected<TensorHeader> parse_tensor(const Field& field, std::string_view what) {
  MSDT_CHECK(proto::expect_field(field, WireType::Len, what));
  TensorHeader out;
  out.content.offset = field.payload_offset + field.bytes.size();  // an absent content is empty
  Status status =
      proto::each_field(field.bytes, field.payload_offset, [&](const Field& f) -> Status {
        switch (f.number) {
          case 1: {  // dims: unpacked as written, packed as a reader must also accept (spec §3.1)
            const size_t first = out.dims.size();
            MSDT_CHECK(proto::append_varints(f, out.dims));
            for (size_t i = first; i < out.dims.size(); ++i)
              if (static_cast<int64_t>(out.dims[i]) < 0)
                return Error::at_offset(f.offset, fmt::format("dims[{}] is negative ({})", i,
                                                              static_cast<int64_t>(out.dims[i])));
            return std::nullopt;
          }
          case 2:
            MSDT_CHECK(proto::expect_field(f, WireType::Len, "tensor_type"));
            out.spelling = proto::field_text(f);
            out.has_spelling = true;
            return std::nullopt;
          case 3:  // stepped over by its length: never read here
            MSDT_CHECK(proto::expect_field(f, WireType::Len, "tensor_content"));
            out.content = {f.payload_offset, f.bytes.size()};
            return std::nullopt;
          default:
            return std::nullopt;
        }
      });
  if (status) return std::move(*status).with_context(what);
  return out;
}

Expected<ValueHeader> parse_value(const Field& field, uint64_t index) {
  ValueHeader out;
  out.offset = field.offset;
  Status status =
      proto::each_field(field.bytes, field.payload_offset, [&](const Field& f) -> Status {
        switch (f.number) {
          case 1:
            MSDT_CHECK(proto::expect_field(f, WireType::Len, "tag"));
            out.tag = proto::field_text(f);
            out.has_tag = true;
            return std::nullopt;
          case 2: {
            MSDT_TRY(TensorHeader tensor, parse_tensor(f, "tensor"));
            // The loader takes a tensor with no field for an absent one (ByteSize() == 0, §4.5).
            if (f.bytes.empty())
              out.tensor.reset();
            else
              out.tensor = std::move(tensor);
            return std::nullopt;
          }
          case 3: {
            MSDT_CHECK(proto::expect_field(f, WireType::Len, "maptensor"));
            out.has_map = true;
            out.map.clear();
            return proto::each_field(f.bytes, f.payload_offset, [&](const Field& g) -> Status {
              if (g.number != 1) return std::nullopt;
              MSDT_TRY(TensorHeader t,
                       parse_tensor(g, fmt::format("maptensor tensor {}", out.map.size())));
              out.map.push_back(std::move(t));
              return std::nullopt;
            });
          }
          default:
            return std::nullopt;
        }
      });
  if (status) return std::move(*status).with_context(value_context(index, out));
  const uint64_t at = field.offset;
  if (!out.has_tag) return Error::at_offset(at, fmt::format("Value {}: no tag", index));
  if (!out.tensor && !out.has_map)
    return Error::at_offset(
        at, fmt::format("{}: neither a tensor nor a maptensor", value_context(index, out)));
  if (!out.tensor && out.map.size() != 3)
    return Error::at_offset(at, fmt::format("{}: maptensor holds {} tensors, expected 3 (keys, "
                                            "values, status)",
                                            value_context(index, out), out.map.size()));
  const auto missing_type = [&](const TensorHeader& t) { return !t.has_spelling; };
  if ((out.tensor && missing_type(*out.tensor)) ||
      (!out.tensor && std::any_of(out.map.begin(), out.map.end(), missing_type)))
    return Error::at_offset(at, fmt::format("{}: no tensor_type", value_context(index, out)));
  return out;
}

std::optional<DType> numpy_dtype(std::string_view spelling) {
  for (unsigned d = 0; d <= static_cast<unsigned>(DType::String); ++d)
    if (dtype_name(static_cast<DType>(d)) == spelling && static_cast<DType>(d) != DType::String)
      return static_cast<DType>(d);
  return std::nullopt;
}

Content make_content(const TensorHeader& t, ParameterKind kind) {
  Content c;
  c.spelling = std::string(t.spelling);
  c.dtype =
      kind == ParameterKind::MapTensor ? numpy_dtype(t.spelling) : checkpoint_dtype(t.spelling);
  // Map components written with a MindSpore spelling are read as well.
  if (!c.dtype && kind == ParameterKind::MapTensor) c.dtype = checkpoint_dtype(t.spelling);
  c.dims = t.dims;
  // dims [0] is a scalar (spec §4.3); map components keep theirs (keys of an empty table).
  if (kind != ParameterKind::MapTensor && c.dims.size() == 1 && c.dims[0] == 0)
    c.shape.clear();
  else
    c.shape = c.dims;
  c.segments.push_back(t.content);
  return c;
}

ParameterKind kind_of(const ValueHeader& v) {
  if (!v.tensor) return ParameterKind::MapTensor;
  if (v.tensor->spelling == "str") return ParameterKind::String;
  if (v.tensor->spelling == "random_op") return ParameterKind::RandomOp;
  return ParameterKind::Tensor;
}

std::string segment_list(const Content& c) {
  std::string out;
  for (const Segment& s : c.segments)
    out += fmt::format("{}{:#x}", out.empty() ? "" : ", ", s.offset);
  return out;
}

// Sets expected_bytes; reports a length that does not match (spec §11 item 4).
void check_content(Content& c, const Parameter& p, uint64_t first_index, std::string_view what,
                   std::vector<Error>& problems) {
  const std::string context =
      fmt::format("Value {} {}{}", first_index, quote_for_message(p.name), what);
  if (p.kind == ParameterKind::String) {
    if (c.bytes() % 4 != 0)
      problems.push_back(Error::at_offset(
          p.offset(), fmt::format("{}: str content of {} bytes is not whole UTF-32 characters",
                                  context, c.bytes())));
    return;
  }
  if (!c.dtype || p.kind == ParameterKind::RandomOp) return;
  if (Status overflow = set_expected_bytes(c)) {
    problems.push_back(
        Error::at_offset(p.offset(), fmt::format("{}: {}", context, overflow->message)));
    return;
  }
  if (c.consistent()) return;
  const size_t n = c.segments.size();
  problems.push_back(Error::at_offset(
      p.offset(), fmt::format("{}: content holds {} bytes{} (at {}), dims {} {} need {}", context,
                              c.bytes(), n == 1 ? "" : fmt::format(" in {} slices", n),
                              segment_list(c), dims_text(c.dims), c.spelling, *c.expected_bytes)));
}

// Adds slice `v` to the map parameter `p`: each component's segments, its first axis summed.
void merge_map(Parameter& p, const ValueHeader& v, uint64_t index, std::vector<Error>& problems) {
  static constexpr std::array<std::string_view, 3> kRole{"keys", "values", "status"};
  for (size_t i = 0; i < 3; ++i) {
    Content& c = p.map[i];
    const TensorHeader& t = v.map[i];
    const bool same_rest = t.dims.size() == c.shape.size() && !t.dims.empty() &&
                           std::equal(t.dims.begin() + 1, t.dims.end(), c.shape.begin() + 1);
    if (t.spelling != c.spelling || !same_rest) {
      problems.push_back(Error::at_offset(
          v.offset, fmt::format("{}: map {} slice dims {} {} do not continue dims {} {} of Value "
                                "at {:#x}",
                                value_context(index, v), kRole[i], dims_text(t.dims), t.spelling,
                                dims_text(c.shape), c.spelling, p.offset())));
    } else {
      auto sum = checked_add(c.shape[0], t.dims[0]);
      c.shape[0] = sum.value_or(std::numeric_limits<uint64_t>::max());
    }
    c.segments.push_back(t.content);
  }
}

void merge_tensor(Parameter& p, const ValueHeader& v, uint64_t index,
                  std::vector<Error>& problems) {
  const TensorHeader& t = *v.tensor;
  if (t.spelling != p.content.spelling || t.dims != p.content.dims)
    problems.push_back(Error::at_offset(
        v.offset,
        fmt::format("{}: slice dims {} {} differ from dims {} {} of the first slice at {:#x}",
                    value_context(index, v), dims_text(t.dims), t.spelling,
                    dims_text(p.content.dims), p.content.spelling, p.offset())));
  p.content.segments.push_back(t.content);
}

// Reads the big-endian CRC of the trailer and, when asked, checks it (spec §6).
void check_trailer(Bytes file, const ReadOptions& options, Checkpoint& out) {
  if (!has_crc_trailer(file)) return;
  out.body_size = file.size() - kCrcTrailerSize;
  const Bytes value = file.subspan(out.body_size + 7, 10);
  uint64_t stored = 0;
  bool wide = false;
  for (size_t i = 0; i < value.size(); ++i) {
    if (i < 2 && value[i] != std::byte{0}) wide = true;
    stored = (stored << 8) | static_cast<uint8_t>(value[i]);
  }
  out.crc.stored = stored;
  out.crc.status = CrcStatus::NotChecked;
  if (wide)
    out.problems.push_back(Error::at_offset(
        out.body_size, "crc_num trailer: the value does not fit in 64 bits (first 2 bytes set)"));
  if (!options.verify_crc) return;
  out.crc.computed = crc32(file.first(out.body_size));
  out.crc.status = !wide && stored == out.crc.computed ? CrcStatus::Ok : CrcStatus::Mismatch;
  if (out.crc.status == CrcStatus::Mismatch)
    out.problems.push_back(Error::at_offset(
        out.body_size,
        fmt::format("crc_num trailer: CRC mismatch (stored {:#010x}, computed {:#010x})", stored,
                    out.crc.computed)));
}

// A top-level Value whose declared length goes past the end: its tag, when the bytes that are
// there hold it, so the message can name it.
std::string truncated_value_context(Bytes rest, uint64_t index) {
  ByteReader in(rest);
  if (!in.u8() || rest[0] != std::byte{0x0A}) return fmt::format("Value {}", index);
  auto length = proto::read_varint(in);
  if (!length || in.remaining() < 1 || in.rest()[0] != std::byte{0x0A})
    return fmt::format("Value {}", index);
  in.advance(1);
  auto tag_length = proto::read_varint(in);
  if (!tag_length || *tag_length > in.remaining()) return fmt::format("Value {}", index);
  ValueHeader v;
  v.has_tag = true;
  v.tag = {reinterpret_cast<const char*>(in.rest().data()), static_cast<size_t>(*tag_length)};
  return value_context(index, v);
}

// The framing broke at `at`, where `rest` starts. A Value (0x0A) cut by the end of the file is
// named, with its declared length; anything else keeps the wire reader's message.
Error top_level_error(Bytes rest, uint64_t at, uint64_t index, Error error, bool has_trailer) {
  ByteReader head(rest, at);
  if (rest[0] != std::byte{0x0A}) return std::move(error).with_context("Checkpoint");
  (void)head.u8();
  auto length = proto::read_varint(head);
  if (!length)
    return std::move(length).error().with_context(fmt::format("Value {}: length", index));
  if (*length <= head.remaining()) return std::move(error).with_context("Checkpoint");
  return Error::at_offset(
      at, fmt::format("{}: length {} goes past the end of the {} ({} bytes left)",
                      truncated_value_context(rest, index), *length,
                      has_trailer ? "body before the CRC trailer" : "file", head.remaining()));
}

}  // namespace

std::optional<DType> checkpoint_dtype(std::string_view spelling) {
  static constexpr std::array<std::pair<std::string_view, DType>, 19> kSpellings{{
      {"Float32", DType::Float32}, {"Float16", DType::Float16},   {"Int32", DType::Int32},
      {"Int64", DType::Int64},     {"BFloat16", DType::BFloat16}, {"Float64", DType::Float64},
      {"Int8", DType::Int8},       {"Int16", DType::Int16},       {"Bool", DType::Bool},
      {"UInt8", DType::UInt8},     {"UInt16", DType::UInt16},     {"UInt32", DType::UInt32},
      {"UInt64", DType::UInt64},   {"Uint8", DType::UInt8},       {"Uint16", DType::UInt16},
      {"Uint32", DType::UInt32},   {"Uint64", DType::UInt64},     {"Int4", DType::Int4},
      {"str", DType::String},
  }};
  for (const auto& [name, dtype] : kSpellings)
    if (name == spelling) return dtype;
  return std::nullopt;
}

std::string_view parameter_kind_name(ParameterKind kind) {
  switch (kind) {
    case ParameterKind::Tensor:
      return "tensor";
    case ParameterKind::String:
      return "str";
    case ParameterKind::RandomOp:
      return "random_op";
    case ParameterKind::MapTensor:
      break;
  }
  return "map";
}

std::string_view crc_status_name(CrcStatus status) {
  switch (status) {
    case CrcStatus::Absent:
      return "absent";
    case CrcStatus::NotChecked:
      return "not checked";
    case CrcStatus::Ok:
      return "ok";
    case CrcStatus::Mismatch:
      break;
  }
  return "mismatch";
}

std::string CrcCheck::describe() const {
  if (status == CrcStatus::Mismatch)
    return fmt::format("CRC mismatch (stored {:#010x}, computed {:#010x})", stored, computed);
  return fmt::format("CRC {}", crc_status_name(status));
}

uint32_t crc32(Bytes data, uint32_t crc) {
  return crc32_gzip_refl(crc, reinterpret_cast<const unsigned char*>(data.data()), data.size());
}

Checkpoint read_checkpoint(Bytes file, const ReadOptions& options) {
  Checkpoint out;
  out.file_size = file.size();
  out.body_size = file.size();
  check_trailer(file, options, out);
  const Bytes body = file.first(out.body_size);

  ByteReader in(body);
  uint64_t index = 0;                // of the next Value
  std::optional<Parameter> current;  // the parameter whose slices are being read
  uint64_t first_index = 0;          // of its first Value
  uint64_t last_index = 0;           // of its last Value so far
  // Sizes are checked once a parameter's slices are merged; their problems follow the walk's (at
  // equal offsets), as the stable sort below keeps them.
  std::vector<Error> size_problems;
  const auto finish = [&] {
    if (!current) return;
    Parameter& p = *current;
    if (p.kind == ParameterKind::MapTensor) {
      static constexpr std::array<std::string_view, 3> kRole{": keys", ": values", ": status"};
      for (size_t k = 0; k < p.map.size(); ++k)
        check_content(p.map[k], p, first_index, kRole[k], size_problems);
    } else {
      check_content(p.content, p, first_index, "", size_problems);
    }
    ++out.parameter_count;
    if (options.parameter)
      options.parameter(std::move(p));
    else
      out.parameters.push_back(std::move(p));
    current.reset();
  };

  while (!in.at_end()) {
    const uint64_t at = in.offset();
    proto::WireReader one(in.rest(), at);
    auto next = one.next();
    if (!next) {
      out.problems.push_back(top_level_error(in.rest(), at, index, std::move(next).error(),
                                             out.body_size != file.size()));
      break;
    }
    if (!*next) break;
    const Field& field = **next;
    in.advance(one.offset() - at);
    if (options.walked) options.walked(in.offset());
    // Any other field (v0.5's model_type, 0x12) is skipped as unknown (spec §3.2).
    if (field.number != 1) continue;
    if (auto wrong = proto::expect_field(field, WireType::Len, "Checkpoint.value")) {
      out.problems.push_back(std::move(*wrong));
      continue;
    }

    auto value = parse_value(field, index);
    const uint64_t this_index = index++;
    ++out.values;
    if (!value) {
      out.problems.push_back(std::move(value).error());
      continue;
    }
    const ParameterKind kind = kind_of(*value);
    // Runs of consecutive equal tags are one parameter (spec §4.2).
    if (current && last_index + 1 == this_index && current->name == value->tag &&
        current->kind == kind) {
      Parameter& p = *current;
      if (kind == ParameterKind::MapTensor)
        merge_map(p, *value, this_index, out.problems);
      else
        merge_tensor(p, *value, this_index, out.problems);
      p.value_offsets.push_back(value->offset);
      last_index = this_index;
      continue;
    }
    finish();
    Parameter& p = current.emplace();
    p.name = std::string(value->tag);
    p.kind = kind;
    if (kind == ParameterKind::MapTensor)
      for (const TensorHeader& t : value->map) p.map.push_back(make_content(t, kind));
    else
      p.content = make_content(*value->tensor, kind);
    p.value_offsets.push_back(value->offset);
    first_index = this_index;
    last_index = this_index;
  }
  finish();
  out.problems.insert(out.problems.end(), std::make_move_iterator(size_problems.begin()),
                      std::make_move_iterator(size_problems.end()));
  std::stable_sort(out.problems.begin(), out.problems.end(), [](const Error& a, const Error& b) {
    return a.offset.value_or(0) < b.offset.value_or(0);
  });
  return out;
}

// --- bytes ---------------------------------------------------------------------------------------

Expected<std::string> string_value(Bytes file, const Content& content) {
  MSDT_TRY(TensorData data, raw_data(file, content));
  const Bytes bytes = data.view().data;
  // The file offset of bytes[pos], for errors: slices are joined.
  const auto file_offset = [&](uint64_t pos) {
    for (const Segment& s : content.segments) {
      if (pos < s.length) return s.offset + pos;
      pos -= s.length;
    }
    return content.segments.empty() ? 0 : content.segments.back().offset;
  };
  if (bytes.size() % 4 != 0)
    return Error::at_offset(
        file_offset(0),
        fmt::format("str content of {} bytes is not whole UTF-32 characters", bytes.size()));
  size_t end = bytes.size();
  while (end >= 4 && load_u32le(bytes.data() + end - 4) == 0) end -= 4;  // NumPy's NUL padding
  std::string out;
  out.reserve(end / 4);
  for (size_t pos = 0; pos < end; pos += 4) {
    const uint32_t c = load_u32le(bytes.data() + pos);
    if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
      return Error::at_offset(file_offset(pos),
                              fmt::format("str content: invalid code point {:#x}", c));
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (c < 0x800) {
      out += static_cast<char>(0xC0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      out += static_cast<char>(0xE0 | (c >> 12));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (c >> 18));
      out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }
  return out;
}

}  // namespace msdt::model
