#include "dump/ascend_dump.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <nlohmann/json.hpp>
#include <string_view>

#include "io/text.h"
#include "proto/wire_reader.h"
#include "tensor/layout.h"
#include "tensor/npy.h"

namespace msdt::dump {
namespace {

using proto::Field;
using proto::WireReader;
using proto::WireType;

constexpr uint64_t kLengthFieldSize = 8;

// OpInput and OpOutput share fields 1–3 and then number differently (dump spec §5.4); 0 marks a
// field the message does not have.
struct TensorSchema {
  uint32_t original_op;
  uint32_t data;
  uint32_t size;
  uint32_t original_shape;
  uint32_t sub_format;
  uint32_t address;
  uint32_t dim_range;
  uint32_t offset;
  uint32_t arg_index;
  uint32_t input_type;
};
constexpr TensorSchema kOutputSchema{4, 5, 6, 7, 8, 9, 10, 11, 12, 0};
constexpr TensorSchema kInputSchema{0, 4, 5, 6, 7, 8, 0, 9, 10, 11};

// A tensor as decoded from its message, before payloads are assigned.
struct ParsedTensor {
  AscendTensor tensor;
  Bytes data;  // the `data` field: the payload in the old whole-protobuf layout
  uint64_t data_offset = 0;
};

struct ParsedDump {
  AscendDump dump;
  std::vector<ParsedTensor> inputs, outputs, buffers, workspaces;
  uint64_t tensor_count = 0;
};

Expected<std::string> read_string(const Field& field) {
  MSDT_CHECK(proto::expect_type(field, WireType::Len));
  return std::string(proto::field_text(field));
}

Expected<uint64_t> read_uint(const Field& field) {
  MSDT_CHECK(proto::expect_type(field, WireType::Varint));
  return field.value;
}

// enum and uint32 fields are varints; proto3 keeps only the low 32 bits of a wider value.
Expected<uint32_t> read_uint32(const Field& field) {
  MSDT_TRY(uint64_t value, read_uint(field));
  return static_cast<uint32_t>(value);
}

// Reads one scalar field of a message into `out`; the parsers' switch statements assign with it.
template <class T, class Reader>
Status read_into(const Field& field, T& out, Reader read) {
  auto value = read(field);
  if (!value) return std::move(value).error();
  out = static_cast<T>(std::move(*value));
  return std::nullopt;
}

Expected<WireReader> open_message(const Field& field, std::string_view name) {
  if (auto status = proto::expect_type(field, WireType::Len))
    return std::move(*status).with_context(name);
  return WireReader(field.bytes, field.payload_offset);
}

Expected<std::vector<uint64_t>> parse_shape(const Field& outer) {
  MSDT_TRY(WireReader in, open_message(outer, "Shape"));
  std::vector<uint64_t> dims;
  while (true) {
    auto next = in.next();
    if (!next) return std::move(next).error().with_context("Shape");
    if (!*next) break;
    const Field& field = **next;
    if (field.number != 1) continue;
    // proto3 packs repeated scalars, but older writers do not (dump spec §5.4).
    if (auto status = proto::append_varints(field, dims))
      return std::move(*status).with_context("Shape");
  }
  return dims;
}

Expected<AscendOriginalOp> parse_original_op(const Field& outer) {
  MSDT_TRY(WireReader in, open_message(outer, "OriginalOp"));
  AscendOriginalOp op;
  while (true) {
    auto next = in.next();
    if (!next) return std::move(next).error().with_context("OriginalOp");
    if (!*next) break;
    const Field& field = **next;
    Status status;
    switch (field.number) {
      case 1:
        status = read_into(field, op.name, read_string);
        break;
      case 2:
        status = read_into(field, op.output_index, read_uint32);
        break;
      case 3:
        status = read_into(field, op.data_type, read_uint);
        break;
      case 4:
        status = read_into(field, op.format, read_uint);
        break;
      default:
        break;
    }
    if (status) return std::move(*status).with_context("OriginalOp");
  }
  return op;
}

Expected<AscendDimRange> parse_dim_range(const Field& outer) {
  MSDT_TRY(WireReader in, open_message(outer, "DimRange"));
  AscendDimRange range;
  while (true) {
    auto next = in.next();
    if (!next) return std::move(next).error().with_context("DimRange");
    if (!*next) break;
    const Field& field = **next;
    if (field.number != 1 && field.number != 2) continue;
    auto v = read_uint(field);
    if (!v) return std::move(v).error().with_context("DimRange");
    (field.number == 1 ? range.dim_start : range.dim_end) = *v;
  }
  return range;
}

// One field of OpInput or OpOutput.
Status parse_tensor_field(const Field& field, const TensorSchema& schema, ParsedTensor& out) {
  AscendTensor& t = out.tensor;
  const uint32_t n = field.number;
  if (n == 1) {
    MSDT_TRY(t.data_type, read_uint(field));
  } else if (n == 2) {
    MSDT_TRY(t.format, read_uint(field));
  } else if (n == 3) {
    MSDT_TRY(t.shape, parse_shape(field));
  } else if (n == schema.original_op) {
    MSDT_TRY(t.original_op, parse_original_op(field));
  } else if (n == schema.data) {
    MSDT_CHECK(proto::expect_type(field, WireType::Len));
    out.data = field.bytes;
    out.data_offset = field.payload_offset;
  } else if (n == schema.size) {
    MSDT_TRY(t.size, read_uint(field));
  } else if (n == schema.original_shape) {
    auto shape = parse_shape(field);
    if (!shape) return std::move(shape).error().with_context("original_shape");
    t.original_shape = std::move(*shape);
    t.has_original_shape = true;
  } else if (n == schema.sub_format) {
    MSDT_TRY(uint32_t sub_format, read_uint32(field));
    t.sub_format = static_cast<int32_t>(sub_format);
  } else if (n == schema.address) {
    MSDT_TRY(t.address, read_uint(field));
  } else if (n == schema.dim_range) {
    if (t.dim_range.size() >= kMaxAscendTensors)
      return Error::at_offset(field.payload_offset,
                              fmt::format("more than {} dim_range entries", kMaxAscendTensors));
    MSDT_TRY(AscendDimRange range, parse_dim_range(field));
    t.dim_range.push_back(range);
  } else if (n == schema.offset) {
    MSDT_TRY(t.offset, read_uint(field));
  } else if (n == schema.arg_index) {
    MSDT_TRY(t.arg_index, read_uint32(field));
  } else if (n == schema.input_type) {
    MSDT_TRY(t.input_type, read_uint32(field));
  }
  return std::nullopt;
}

// OpBuffer and Workspace: type = 1, data = 2, size = 3, and arg_index = 4 on Workspace.
Status parse_blob_field(const Field& field, bool is_workspace, ParsedTensor& out) {
  AscendTensor& t = out.tensor;
  switch (field.number) {
    case 1: {
      MSDT_TRY(t.buffer_type, read_uint32(field));
      break;
    }
    case 2:
      MSDT_CHECK(proto::expect_type(field, WireType::Len));
      out.data = field.bytes;
      out.data_offset = field.payload_offset;
      break;
    case 3: {
      MSDT_TRY(t.size, read_uint(field));
      break;
    }
    case 4:
      if (is_workspace) {
        MSDT_TRY(t.arg_index, read_uint32(field));
      }
      break;
    default:
      break;
  }
  return std::nullopt;
}

Expected<ParsedTensor> parse_tensor(const Field& outer, AscendTensorKind kind, uint32_t index) {
  ParsedTensor parsed;
  parsed.tensor.kind = kind;
  parsed.tensor.index = index;
  MSDT_CHECK(proto::expect_type(outer, WireType::Len));
  WireReader in(outer.bytes, outer.payload_offset);
  while (true) {
    MSDT_TRY(std::optional<Field> next, in.next());
    if (!next) break;
    switch (kind) {
      case AscendTensorKind::Input:
        MSDT_CHECK(parse_tensor_field(*next, kInputSchema, parsed));
        break;
      case AscendTensorKind::Output:
        MSDT_CHECK(parse_tensor_field(*next, kOutputSchema, parsed));
        break;
      case AscendTensorKind::Buffer:
      case AscendTensorKind::Workspace:
        MSDT_CHECK(parse_blob_field(*next, kind == AscendTensorKind::Workspace, parsed));
        break;
    }
  }
  return parsed;
}

Expected<std::pair<std::string, std::string>> parse_attr(const Field& outer) {
  MSDT_TRY(WireReader in, open_message(outer, "OpAttr"));
  std::pair<std::string, std::string> attr;
  while (true) {
    MSDT_TRY(std::optional<Field> next, in.next());
    if (!next) break;
    if (next->number == 1) {
      MSDT_TRY(attr.first, read_string(*next));
    } else if (next->number == 2) {
      MSDT_TRY(attr.second, read_string(*next));
    }
  }
  return attr;
}

Status parse_dump_data_field(const Field& field, ParsedDump& out) {
  AscendDump& d = out.dump;
  const auto add_tensor = [&](std::vector<ParsedTensor>& list, AscendTensorKind kind) -> Status {
    if (++out.tensor_count > kMaxAscendTensors)
      return Error::at_offset(
          field.payload_offset,
          fmt::format("DumpData declares more than {} tensors; refusing the container (a real "
                      "operator has at most a few hundred)",
                      kMaxAscendTensors));
    const auto index = static_cast<uint32_t>(list.size());
    auto tensor = parse_tensor(field, kind, index);
    if (!tensor)
      return std::move(tensor).error().with_context(
          fmt::format("DumpData field {} ({} {})", field.number, kind_name(kind), index));
    list.push_back(std::move(*tensor));
    return std::nullopt;
  };
  Status status;
  switch (field.number) {
    case 1:
      status = read_into(field, d.version, read_string);
      break;
    case 2:
      status = read_into(field, d.dump_time, read_uint);
      break;
    case 3:
      return add_tensor(out.outputs, AscendTensorKind::Output);
    case 4:
      return add_tensor(out.inputs, AscendTensorKind::Input);
    case 5:
      return add_tensor(out.buffers, AscendTensorKind::Buffer);
    case 6:
      status = read_into(field, d.op_name, read_string);
      break;
    case 7:
      if (d.attrs.size() >= kMaxAscendTensors)
        return Error::at_offset(field.payload_offset,
                                fmt::format("DumpData declares more than {} attrs; refusing the "
                                            "container",
                                            kMaxAscendTensors));
      if (auto v = parse_attr(field)) {
        d.attrs.push_back(std::move(*v));
      } else {
        return std::move(v).error().with_context(
            fmt::format("DumpData field 7 (attr {})", d.attrs.size()));
      }
      break;
    case 8:
      return add_tensor(out.workspaces, AscendTensorKind::Workspace);
    case 9:
      status = read_into(field, d.dfx_message, read_string);
      break;
    default:  // newer writers add fields (dump spec §5.4)
      break;
  }
  if (status) return std::move(*status).with_context("DumpData");
  return std::nullopt;
}

Expected<ParsedDump> parse_dump_data(Bytes message, uint64_t base_offset) {
  ParsedDump parsed;
  WireReader in(message, base_offset);
  while (true) {
    auto next = in.next();
    if (!next) return std::move(next).error().with_context("DumpData");
    if (!*next) break;
    MSDT_CHECK(parse_dump_data_field(**next, parsed));
  }
  return parsed;
}

// The 2.0 layout (dump spec §5.3): length prefix, DumpData, payloads back to back.
Expected<AscendDump> parse_framed(Bytes file) {
  if (file.size() < kLengthFieldSize)
    return Error::at_offset(0, fmt::format("file of {} bytes is too short for the 8-byte header "
                                           "length",
                                           file.size()));
  const uint64_t header_length = load_u64le(file.data());
  const uint64_t after_length = file.size() - kLengthFieldSize;
  if (header_length > after_length)
    return Error::at_offset(0, fmt::format("header length {} exceeds the {} bytes after the length "
                                           "field",
                                           header_length, after_length));
  MSDT_TRY(ParsedDump parsed,
           parse_dump_data(file.subspan(kLengthFieldSize, header_length), kLengthFieldSize));

  const uint64_t payload_start = kLengthFieldSize + header_length;
  uint64_t position = payload_start;
  AscendDump& dump = parsed.dump;
  dump.header_length = header_length;
  // Payload order is inputs, outputs, buffers, workspaces whatever the message order (§5.3).
  const std::array<std::pair<std::vector<ParsedTensor>*, std::vector<AscendTensor>*>, 4> groups{{
      {&parsed.inputs, &dump.inputs},
      {&parsed.outputs, &dump.outputs},
      {&parsed.buffers, &dump.buffers},
      {&parsed.workspaces, &dump.workspaces},
  }};
  for (auto [from, to] : groups) {
    for (ParsedTensor& p : *from) {
      p.tensor.payload_offset = position;
      auto end = checked_add(position, p.tensor.size);
      if (!end)
        return Error::at_offset(
            payload_start, fmt::format("{} {}: size {} makes the payload sizes overflow 64 "
                                       "bits",
                                       kind_name(p.tensor.kind), p.tensor.index, p.tensor.size));
      position = *end;
      to->push_back(std::move(p.tensor));
    }
  }
  if (position > file.size())
    return Error::at_offset(
        payload_start,
        fmt::format("payload sizes do not match the file: 8 + header {} + payloads {} = {} bytes "
                    "expected, file has {} bytes",
                    header_length, position - payload_start, position, file.size()));
  if (position < file.size()) {
    dump.trailing_bytes = file.size() - position;
    dump.warnings.push_back(Error::at_offset(
        position,
        fmt::format("{} trailing bytes after the last payload, ignored", dump.trailing_bytes)));
  }
  for (auto [from, to] : groups)
    for (AscendTensor& t : *to) t.payload = file.subspan(t.payload_offset, t.size);
  return std::move(dump);
}

// The older layout (dump spec §5.3, msaccucmp `-v 1`): the whole file is one DumpData with the
// payloads in the `data` fields.
Expected<AscendDump> parse_whole_protobuf(Bytes file) {
  MSDT_TRY(ParsedDump parsed, parse_dump_data(file, 0));
  AscendDump& dump = parsed.dump;
  if (dump.version == "2.0")
    return Error::at_offset(0, "version 2.0 is the header-length layout, not a whole protobuf");
  if (parsed.inputs.empty() && parsed.outputs.empty() && parsed.buffers.empty() &&
      parsed.workspaces.empty())
    return Error::at_offset(0, "a whole-protobuf dump without tensors");
  dump.whole_protobuf = true;
  const std::array<std::pair<std::vector<ParsedTensor>*, std::vector<AscendTensor>*>, 4> groups{{
      {&parsed.inputs, &dump.inputs},
      {&parsed.outputs, &dump.outputs},
      {&parsed.buffers, &dump.buffers},
      {&parsed.workspaces, &dump.workspaces},
  }};
  for (auto [from, to] : groups) {
    for (ParsedTensor& p : *from) {
      // The bytes are what the tensor holds here; `size` is redundant with them.
      p.tensor.payload = p.data;
      p.tensor.payload_offset = p.data_offset;
      p.tensor.size = p.data.size();
      to->push_back(std::move(p.tensor));
    }
  }
  return std::move(dump);
}

nlohmann::json shape_json(const std::vector<uint64_t>& shape) {
  nlohmann::json dims = nlohmann::json::array();
  for (uint64_t d : shape) dims.push_back(d);
  return dims;
}

nlohmann::json name_or_null(std::string_view name) {
  if (name.empty()) return nullptr;
  return std::string(name);
}

nlohmann::json tensor_json(const AscendTensor& t) {
  nlohmann::json j;
  j["kind"] = std::string(kind_name(t.kind));
  j["index"] = t.index;
  if (t.kind == AscendTensorKind::Buffer || t.kind == AscendTensorKind::Workspace) {
    j["buffer_type"] = t.buffer_type;
    if (t.kind == AscendTensorKind::Workspace) j["arg_index"] = t.arg_index;
  } else {
    j["data_type"] = t.data_type;
    j["data_type_name"] = name_or_null(ascend_dtype_name(t.data_type));
    j["format"] = t.format;
    j["format_name"] = name_or_null(ascend_format_name(t.format));
    j["shape"] = shape_json(t.shape);
    j["original_shape"] = t.has_original_shape ? shape_json(t.original_shape) : nullptr;
    j["sub_format"] = t.sub_format;
    j["address"] = t.address;
    j["offset"] = t.offset;
    j["arg_index"] = t.arg_index;
    if (t.kind == AscendTensorKind::Input) j["input_type"] = t.input_type;
    if (t.kind == AscendTensorKind::Output) {
      if (t.original_op) {
        j["original_op"] = {{"name", escape_invalid_utf8(t.original_op->name)},
                            {"output_index", t.original_op->output_index},
                            {"data_type", t.original_op->data_type},
                            {"format", t.original_op->format}};
      } else {
        j["original_op"] = nullptr;
      }
      nlohmann::json ranges = nlohmann::json::array();
      for (const auto& r : t.dim_range)
        ranges.push_back({{"dim_start", r.dim_start}, {"dim_end", r.dim_end}});
      j["dim_range"] = std::move(ranges);
    }
  }
  j["size"] = t.size;
  j["payload_offset"] = t.payload_offset;
  return j;
}

}  // namespace

std::string_view kind_name(AscendTensorKind kind) {
  switch (kind) {
    case AscendTensorKind::Input:
      return "input";
    case AscendTensorKind::Output:
      return "output";
    case AscendTensorKind::Buffer:
      return "buffer";
    case AscendTensorKind::Workspace:
      return "workspace";
  }
  return "tensor";
}

bool looks_like_ascend_dump(Bytes file) {
  if (looks_like_npy(file)) return false;
  // Only the message is decoded; payloads are not touched, so this stays cheap on big files.
  auto dump = parse_ascend_dump(file);
  if (!dump) return false;
  // Trailing bytes are accepted in a file named as a container; recognising one by content alone
  // takes the exact size of §3.9 or the "2.0" version, or any header-sized bytes would pass.
  if (dump->trailing_bytes != 0 && dump->version != "2.0") return false;
  // Eight zero bytes parse as an empty container; a real dump always names a version or a tensor.
  return !dump->version.empty() || !dump->inputs.empty() || !dump->outputs.empty() ||
         !dump->buffers.empty() || !dump->workspaces.empty();
}

namespace {

// A tag byte of DumpData fields 1–9 with their wire types (§5.4): strings and messages are
// length-delimited, dump_time is a varint.
bool is_dump_data_tag(std::byte tag) {
  const auto value = static_cast<uint8_t>(tag);
  const uint8_t field = value >> 3, wire_type = value & 7;
  if (field < 1 || field > 9) return false;
  return wire_type == (field == 2 ? 0 : 2);
}

}  // namespace

bool could_start_ascend_dump(Bytes start) {
  if (start.size() < kLengthFieldSize) return !start.empty();  // too short to rule anything out
  const uint64_t header_length = load_u64le(start.data());
  // Whole-protobuf layout: a tag first, and the 8 bytes are no length a header could have.
  if (is_dump_data_tag(start[0]) && header_length > (uint64_t{1} << 40)) return true;
  if (header_length == 0) return false;
  return start.size() == kLengthFieldSize || is_dump_data_tag(start[kLengthFieldSize]);
}

Expected<AscendDump> parse_ascend_dump(Bytes file) {
  auto framed = parse_framed(file);
  if (framed && framed->trailing_bytes == 0) return framed;
  // msaccucmp tries the old layout too (§5.3); when neither fits, the 2.0 error is the useful one.
  if (auto whole = parse_whole_protobuf(file)) return whole;
  return framed;
}

std::string ascend_format_string(uint64_t output_format) {
  std::string_view name = ascend_format_name(output_format);
  return name.empty() ? fmt::format("{}", output_format & 0xFF) : std::string(name);
}

AscendLayout ascend_layout(const AscendTensor& tensor, const TensorView& device) {
  AscendLayout layout;
  layout.format = ascend_format_string(tensor.format);
  if ((layout.format == "HWCN" || layout.format == "NCHW" || layout.format == "NHWC") &&
      device.shape.size() != 4)
    layout.format = "ND";
  if (tensor.has_original_shape) layout.original_shape = tensor.original_shape;
  if (tensor.original_op) layout.original_format = ascend_format_string(tensor.original_op->format);
  if (tensor.sub_format > 0) layout.groups = static_cast<uint32_t>(tensor.sub_format);
  return layout;
}

Expected<TensorView> ascend_tensor_view(const AscendTensor& tensor) {
  const auto context = [&] { return fmt::format("{} {}", kind_name(tensor.kind), tensor.index); };
  TensorView view{DType::Int8, tensor.shape, {}};
  if (tensor.data_type == 0) {
    // DT_UNDEFINED: msaccucmp shows the raw bytes (dump spec §5.3).
    view.shape = {tensor.payload.size()};
  } else {
    auto dtype = dtype_from_ascend(tensor.data_type);
    if (!dtype) {
      std::string_view name = ascend_dtype_name(tensor.data_type);
      return Error::at_offset(tensor.payload_offset,
                              fmt::format("{}: data type {} ({}) has no element layout", context(),
                                          tensor.data_type, name.empty() ? "unknown" : name));
    }
    view.dtype = *dtype;
    // An empty shape with a payload is 1-D: msaccucmp takes [size] and reads as many elements as
    // the bytes hold (dump spec §5.3).
    if (view.shape.empty() && tensor.size > 0 && dtype_bits(view.dtype) != 0)
      view.shape = {tensor.payload.size() * 8 / dtype_bits(view.dtype)};
  }
  auto count = element_count(view.shape);
  if (!count) {
    Error error = std::move(count).error();
    if (!error.offset) error.offset = tensor.payload_offset;
    return std::move(error).with_context(context());
  }
  auto needed = dtype_bytes(view.dtype, *count);
  if (!needed)
    return Error::at_offset(tensor.payload_offset,
                            fmt::format("{}: {} elements of {} overflow 64 bits", context(), *count,
                                        dtype_name(view.dtype)));
  if (*needed > tensor.payload.size())
    return Error::at_offset(
        tensor.payload_offset,
        fmt::format("{}: payload has {} bytes, shape ({}) of {} needs {}", context(),
                    tensor.payload.size(), fmt::join(view.shape, ","), dtype_name(view.dtype),
                    *needed));
  view.data = tensor.payload.first(*needed);
  return view;
}

nlohmann::json ascend_dump_to_json(const AscendDump& dump) {
  nlohmann::json j;
  j["whole_protobuf"] = dump.whole_protobuf;
  j["header_length"] = dump.header_length;
  j["version"] = escape_invalid_utf8(dump.version);
  j["dump_time"] = dump.dump_time;
  j["op_name"] = escape_invalid_utf8(dump.op_name);
  nlohmann::json attrs = nlohmann::json::array();
  for (const auto& [name, value] : dump.attrs)
    attrs.push_back({{"name", escape_invalid_utf8(name)}, {"value", escape_invalid_utf8(value)}});
  j["attrs"] = std::move(attrs);
  j["dfx_message"] = escape_invalid_utf8(dump.dfx_message);
  const auto list = [](const std::vector<AscendTensor>& tensors) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& t : tensors) out.push_back(tensor_json(t));
    return out;
  };
  j["inputs"] = list(dump.inputs);
  j["outputs"] = list(dump.outputs);
  j["buffers"] = list(dump.buffers);
  j["workspaces"] = list(dump.workspaces);
  return j;
}

}  // namespace msdt::dump
