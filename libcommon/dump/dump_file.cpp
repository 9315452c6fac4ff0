#include "dump/dump_file.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "dump/file_roles.h"
#include "io/crlf.h"
#include "io/text.h"
#include "tensor/layout.h"

namespace msdt::dump {
namespace {

std::string_view as_text(Bytes contents) {
  return {reinterpret_cast<const char*>(contents.data()), contents.size()};
}

// Fields every tensor of the file shares, taken from its name.
DumpTensor tensor_from_name(const DumpFileName& name, std::string format) {
  DumpTensor tensor;
  tensor.format = std::move(format);
  tensor.op_type = name.op_type;
  tensor.op_name = name.op_name;
  tensor.task_id = name.task_id;
  tensor.stream_id = name.stream_id;
  tensor.timestamp = name.timestamp;
  if (name.io) tensor.io = std::string(io_name(*name.io));
  tensor.slot = name.slot;
  tensor.device_format = name.device_format;
  return tensor;
}

Status read_npy(const DumpFile& file, Bytes contents,
                const std::function<void(const DumpTensor&)>& visit) {
  MSDT_TRY(NpyHeader header, parse_npy(contents, file.name.dtype));
  // Bytes after the data are ignored, as NumPy does, unless the file is damaged by a line-ending
  // conversion: its header's LF then got a CR before it, and every element after an LF moved on
  // by a byte, so the header still reads and the elements do not (io/crlf.h).
  if (const uint64_t end = header.data_offset + header.data_size;
      contents.size() > end && crlf_damaged_lf_count(contents) > 0) {
    Error error =
        Error::at_offset(end, fmt::format("{} bytes after the npy data", contents.size() - end));
    if (explain_line_endings(file, contents, error)) return error;
  }
  DumpTensor tensor = tensor_from_name(file.name, "npy");
  tensor.dtype = header.dtype;
  tensor.shape = header.shape;
  tensor.shape_known = true;
  tensor.bytes = header.data_size;
  tensor.npy = &header;
  // Fortran-order and big-endian arrays are listed; only their values need a conversion first.
  if (!header.fortran_order && !header.big_endian) {
    MSDT_TRY(TensorView view, npy_tensor(contents, header));
    tensor.view = std::move(view);
  }
  visit(tensor);
  return std::nullopt;
}

// Format A (dump spec §5.1): no header; the name carries shape and dtype.
Status read_legacy_bin(const DumpFile& file, Bytes contents,
                       const std::function<void(const DumpTensor&)>& visit) {
  const DumpFileName& name = file.name;
  if (!name.dtype)
    return Error(
        fmt::format("unknown dtype {} in the file name", quote_for_message(name.dtype_label)));
  MSDT_TRY(uint64_t count, element_count(name.shape));
  auto expected = dtype_bytes(*name.dtype, count);
  if (!expected) return Error("shape in the file name overflows the byte count");
  if (*expected != contents.size())
    return Error(fmt::format("file holds {} bytes but shape ({}) of {} needs {}", contents.size(),
                             fmt::join(name.shape, ","), dtype_name(*name.dtype), *expected));
  DumpTensor tensor = tensor_from_name(name, "bin");
  tensor.dtype = name.dtype;
  tensor.shape = name.shape;
  tensor.shape_known = true;
  tensor.bytes = contents.size();
  tensor.view = TensorView{*name.dtype, name.shape, contents};
  visit(tensor);
  return std::nullopt;
}

// msprobe writes raw bytes when npy cannot hold the dtype (§3.7); the shape is not recorded, so
// the elements are shown as one dimension.
Status read_msprobe_raw(const DumpFile& file, Bytes contents,
                        const std::function<void(const DumpTensor&)>& visit) {
  const DumpFileName& name = file.name;
  if (!name.dtype)
    return Error(
        fmt::format("unknown dtype {} in the file name", quote_for_message(name.dtype_label)));
  unsigned bits = dtype_bits(*name.dtype);
  uint64_t count = bits ? contents.size() * 8 / bits : 0;
  DumpTensor tensor = tensor_from_name(name, "msprobe-raw");
  tensor.dtype = name.dtype;
  tensor.shape = {count};
  tensor.bytes = contents.size();
  auto needed = dtype_bytes(*name.dtype, count);
  if (needed) tensor.view = TensorView{*name.dtype, {count}, contents.first(*needed)};
  visit(tensor);
  return std::nullopt;
}

Status read_container(const DumpFile& file, Bytes contents, std::string format,
                      const std::function<void(const DumpTensor&)>& visit,
                      const std::function<void(const Error&)>& warn) {
  MSDT_TRY(AscendDump container, parse_ascend_dump(contents));
  if (warn)
    for (const Error& warning : container.warnings) warn(warning);
  DumpTensor shared = tensor_from_name(file.name, std::move(format));
  if (shared.op_name.empty() && shared.op_type.empty()) shared.op_name = container.op_name;
  shared.container = &container;
  for (const auto* group : {&container.inputs, &container.outputs}) {
    for (const AscendTensor& item : *group) {
      DumpTensor tensor = shared;
      tensor.io = std::string(kind_name(item.kind));
      tensor.slot = item.index;
      std::string_view format_name = ascend_format_name(item.format);
      tensor.device_format =
          format_name.empty() ? fmt::format("{}", item.format) : std::string(format_name);
      tensor.dtype = dtype_from_ascend(item.data_type);
      tensor.shape = item.shape;
      tensor.shape_known = true;
      tensor.bytes = item.size;
      tensor.ascend = &item;
      if (tensor.dtype || item.data_type == 0) {
        // A payload too small for its shape is damage, not a tensor we cannot decode.
        auto view = ascend_tensor_view(item);
        if (!view) return std::move(view).error();
        tensor.dtype = view->dtype;
        tensor.shape = view->shape;
        tensor.view = std::move(*view);
      }
      visit(tensor);
    }
  }
  return std::nullopt;
}

// npy-mode overflow record (dump spec §5.8): one entry, its JSON decoded for --show.
Status read_overflow_json(const DumpFile& file, Bytes contents,
                          const std::function<void(const DumpTensor&)>& visit) {
  MSDT_TRY(nlohmann::json record, parse_overflow_json(as_text(contents)));
  DumpTensor tensor = tensor_from_name(file.name, "overflow-json");
  tensor.bytes = contents.size();
  tensor.overflow_record = &record;
  visit(tensor);
  return std::nullopt;
}

Status read_statistics(const DumpFile& file, Bytes contents,
                       const std::function<void(const DumpTensor&)>& visit) {
  (void)file;
  MSDT_TRY(StatisticCsv csv, parse_statistic_csv(as_text(contents)));
  for (const StatisticRow& row : csv.rows) {
    DumpTensor tensor;
    tensor.format = "statistic";
    tensor.op_type = row.op_type;
    tensor.op_name = row.op_name;
    tensor.task_id = row.task_id;
    tensor.stream_id = row.stream_id;
    tensor.timestamp = row.timestamp;
    if (row.io) tensor.io = std::string(io_name(*row.io));
    tensor.slot = row.slot;
    tensor.dtype = row.dtype;
    tensor.shape = row.shape;
    tensor.shape_known = true;
    tensor.bytes = row.data_size.value_or(0);
    tensor.statistics = &row;
    visit(tensor);
  }
  return std::nullopt;
}

Status read_contents(const DumpFile& file, Bytes contents,
                     const std::function<void(const Error&)>& warn,
                     const std::function<void(const DumpTensor&)>& visit) {
  // Content decides over the name: a renamed or mapped file is still what its bytes say.
  if (looks_like_npy(contents)) {
    if (file.name.kind == FileKind::Unknown && warn)
      warn(Error(fmt::format("name outside the dump file grammars, listed without name fields: {}",
                             file.name.problem.empty() ? "unknown name" : file.name.problem)));
    return read_npy(file, contents, visit);
  }
  if (kind_is_side_file(file.name.kind)) return std::nullopt;
  switch (file.name.kind) {
    case FileKind::Npy:
    case FileKind::ConvertedNpy:
      return read_npy(file, contents, visit);  // reports the bad magic with its offset
    case FileKind::LegacyBin:
      return read_legacy_bin(file, contents, visit);
    case FileKind::MsprobeRaw:
      return read_msprobe_raw(file, contents, visit);
    case FileKind::AscendBinary:
      return read_container(file, contents, "ascend", visit, warn);
    case FileKind::Overflow:
      return read_container(file, contents, "overflow", visit, warn);
    case FileKind::OverflowJson:
      return read_overflow_json(file, contents, visit);
    case FileKind::StatisticCsv:
      return read_statistics(file, contents, visit);
    case FileKind::Unknown:
      if (looks_like_ascend_dump(contents))
        return read_container(file, contents, "ascend", visit, warn);
      if (file.name.problem.empty()) return Error("unknown file");
      return Error(fmt::format("unknown file: {}", file.name.problem));
    default:  // side files (kind_is_side_file): nothing to visit
      return std::nullopt;
  }
}

// What the binary format of a dump file is called in the line-ending diagnosis; empty for the
// text formats (statistic.csv, JSON overflow records), which CR LF does not damage.
std::string binary_format(const DumpFile& file, Bytes contents) {
  if (looks_like_npy(contents)) return "NumPy .npy file";
  switch (file.name.kind) {
    case FileKind::Npy:
    case FileKind::ConvertedNpy:
      return "NumPy .npy file";
    case FileKind::LegacyBin:
      return "raw tensor file (.bin)";
    case FileKind::AscendBinary:
    case FileKind::Overflow:
      return "Ascend dump file (DumpData)";
    case FileKind::Unknown:
      return looks_like_ascend_dump(contents) ? "Ascend dump file (DumpData)" : "";
    default:
      return "";
  }
}

}  // namespace

bool explain_line_endings(const DumpFile& file, Bytes contents, Error& error) {
  auto parse = [&](Bytes repaired) -> std::optional<std::string> {
    std::string format = binary_format(file, repaired);
    if (format.empty() || read_contents(file, repaired, {}, [](const DumpTensor&) {}))
      return std::nullopt;
    return format;
  };
  return explain_line_ending_damage(error, contents, file.display, parse);
}

Status read_dump_file(const DumpFile& file, Bytes contents,
                      const std::function<void(const DumpTensor&)>& visit) {
  return read_dump_file(file, contents, {}, visit);
}

Status read_dump_file(const DumpFile& file, Bytes contents,
                      const std::function<void(const Error&)>& warn,
                      const std::function<void(const DumpTensor&)>& visit) {
  Status status = read_contents(file, contents, warn, visit);
  if (status) explain_line_endings(file, contents, *status);
  return status;
}

}  // namespace msdt::dump
