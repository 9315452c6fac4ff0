#include "dump/file_name.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "io/text.h"
#include "tensor/layout.h"

namespace msdt::dump {

std::string_view file_kind_name(FileKind kind) {
  switch (kind) {
    case FileKind::Unknown:
      return "unknown";
    case FileKind::LegacyBin:
      return "legacy-bin";
    case FileKind::Npy:
      return "npy";
    case FileKind::AscendBinary:
      return "ascend";
    case FileKind::Overflow:
      return "overflow";
    case FileKind::OverflowJson:
      return "overflow-json";
    case FileKind::MsprobeRaw:
      return "msprobe-raw";
    case FileKind::ConvertedNpy:
      return "converted-npy";
    case FileKind::StatisticCsv:
      return "statistic-csv";
    case FileKind::MappingCsv:
      return "mapping-csv";
    case FileKind::ExecutionOrder:
      return "execution-order";
    case FileKind::GlobalExecutionOrder:
      return "global-execution-order";
    case FileKind::KernelArgsJson:
      return "kernel-args";
    case FileKind::Metadata:
      return "metadata";
    case FileKind::Graph:
      return "graph";
    case FileKind::ConvertFailedList:
      return "convert-failed-list";
  }
  return "unknown";
}

std::string_view io_name(Io io) { return io == Io::Input ? "input" : "output"; }

namespace {

using Fields = std::vector<std::string_view>;

Fields split(std::string_view s, char separator) {
  Fields fields;
  size_t start = 0;
  while (true) {
    size_t at = s.find(separator, start);
    if (at == std::string_view::npos) {
      fields.push_back(s.substr(start));
      return fields;
    }
    fields.push_back(s.substr(start, at - start));
    start = at + 1;
  }
}

std::string join(const Fields& fields, size_t begin, size_t end, char separator) {
  std::string out;
  for (size_t i = begin; i < end; ++i) {
    if (i != begin) out.push_back(separator);
    out.append(fields[i]);
  }
  return out;
}

std::optional<Io> parse_io(std::string_view s) {
  if (s == "input") return Io::Input;
  if (s == "output") return Io::Output;
  return std::nullopt;
}

bool is_known_format(std::string_view name) {
  auto known = known_format_names();
  if (std::find(known.begin(), known.end(), name) != known.end()) return true;
  std::string canonical = canonical_format(name);
  return std::find(known.begin(), known.end(), std::string_view(canonical)) != known.end();
}

void set_format(DumpFileName& out, std::string_view format) {
  out.device_format = std::string(format);
  out.device_format_known = is_known_format(format);
}

DumpFileName unknown(std::string problem) {
  DumpFileName out;
  out.problem = std::move(problem);
  return out;
}

// One number field of a name; the problem says which field and what it held.
std::optional<std::string> parse_u64_field(std::string_view field, std::string_view role,
                                           std::optional<uint64_t>& into) {
  if (!is_digits(field))
    return fmt::format("field {} where the {} belongs is not a number", quote_for_message(field),
                       role);
  into = parse_unsigned<uint64_t>(field);
  if (!into) return fmt::format("{} {} does not fit in 64 bits", role, quote_for_message(field));
  return std::nullopt;
}

// Fills op_type, op_name, task, stream (when `with_stream`) and timestamp from the binary container
// name fields [0, end) (dump spec §3.4). Returns the problem, if any.
std::optional<std::string> parse_container_fields(const Fields& f, size_t end, bool with_stream,
                                                  DumpFileName& out) {
  const size_t numbers = with_stream ? 3 : 2;
  if (end < numbers + 2)
    return fmt::format(
        "{} dot-separated fields, at least {} needed ({{op_type}}.{{op_name}}.{{task}}{}"
        ".{{timestamp}})",
        end, numbers + 2, with_stream ? ".{stream}" : "");
  size_t at = end - numbers;
  if (auto problem = parse_u64_field(f[at++], "task id", out.task_id)) return problem;
  if (with_stream)
    if (auto problem = parse_u64_field(f[at++], "stream id", out.stream_id)) return problem;
  if (auto problem = parse_u64_field(f[at], "timestamp", out.timestamp)) return problem;
  out.op_type = std::string(f[0]);
  // Op names keep their dots; only the fixed fields are taken from the right (dump spec §3.3).
  out.op_name = join(f, 1, end - numbers, '.');
  return std::nullopt;
}

// {op_type}.{op_name}.{task}.{stream}.{ts}.{io}.{slot}.{format} over fields [0, end).
std::optional<std::string> parse_tensor_fields(const Fields& f, size_t end, DumpFileName& out) {
  if (end < 8)
    return fmt::format(
        "{} dot-separated fields before the suffix, at least 8 needed "
        "({{op_type}}.{{op_name}}.{{task}}.{{stream}}.{{timestamp}}.{{io}}.{{slot}}.{{format}})",
        end);
  std::string_view format = f[end - 1];
  if (format.empty()) return std::string("the format field is empty");
  std::string_view slot = f[end - 2];
  if (!is_digits(slot))
    return fmt::format("field {} before the format is not a slot number", quote_for_message(slot));
  out.slot = parse_unsigned<uint32_t>(slot);
  if (!out.slot) return fmt::format("slot {} does not fit in 32 bits", quote_for_message(slot));
  std::string_view io = f[end - 3];
  out.io = parse_io(io);
  if (!out.io)
    return fmt::format("field {} before the slot is not input or output", quote_for_message(io));
  if (auto problem = parse_container_fields(f, end - 3, true, out)) return problem;
  set_format(out, format);
  return std::nullopt;
}

// A dtype word as the npy (§3.2, §3.7) and msprobe raw (§3.7) names write it.
void set_dtype(DumpFileName& out, std::string_view label) {
  out.dtype_label = std::string(label);
  out.dtype = parse_dtype_label(label);
}

bool is_upper_word(std::string_view s) {
  bool letter = false;
  for (char c : s) {
    if (c >= 'A' && c <= 'Z')
      letter = true;
    else if (!((c >= '0' && c <= '9') || c == '_'))
      return false;
  }
  return letter;
}

bool is_lower_word(std::string_view s) {
  bool letter = false;
  for (char c : s) {
    if (c >= 'a' && c <= 'z')
      letter = true;
    else if (!((c >= '0' && c <= '9') || c == '_'))
      return false;
  }
  return letter;
}

// "30x1024x17x17" (msaccucmp -f output, dump spec §10.1).
std::optional<std::vector<uint64_t>> parse_x_shape(std::string_view s) {
  std::vector<uint64_t> shape;
  for (std::string_view dim : split(s, 'x')) {
    auto value = parse_unsigned<uint64_t>(dim);
    if (!value) return std::nullopt;
    shape.push_back(*value);
  }
  return shape;
}

// msaccucmp output: {src}.{io}.{idx}[.{AxBxC}].npy, src a binary container name (dump spec §10.1).
DumpFileName parse_converted_npy(const Fields& f) {
  // f.back() is "npy".
  const size_t n = f.size() - 1;
  DumpFileName out;
  size_t src_end;
  if (n >= 3 && parse_io(f[n - 2]) && is_digits(f[n - 1])) {
    src_end = n - 2;
  } else if (n >= 4 && parse_io(f[n - 3]) && is_digits(f[n - 2])) {
    auto shape = parse_x_shape(f[n - 1]);
    if (!shape)
      return unknown(fmt::format("name ends in .npy but shape field {} is not of the form AxBxC",
                                 quote_for_message(f[n - 1])));
    out.shape = std::move(*shape);
    out.has_shape = true;
    src_end = n - 3;
  } else {
    return unknown(fmt::format(
        "name ends in .npy with a number before it, but it is not a msaccucmp output "
        "{{src}}.{{input|output}}.{{index}}[.{{AxBxC}}].npy: field {} is not input or output",
        quote_for_message(n >= 3 ? f[n - 2] : f[0])));
  }
  out.io = parse_io(f[src_end]);
  out.slot = parse_unsigned<uint32_t>(f[src_end + 1]);
  if (!out.slot)
    return unknown(fmt::format("name ends in .npy but index {} does not fit in 32 bits",
                               quote_for_message(f[src_end + 1])));
  // The source is a 5-field name (1.3+), or 4 fields when it came from 1.1/1.2 (dump spec §3.4).
  bool with_stream = src_end >= 5 && is_digits(f[src_end - 3]);
  if (auto problem = parse_container_fields(f, src_end, with_stream, out))
    return unknown("name looks like a msaccucmp output but its source name is not a dump name: " +
                   *problem);
  out.kind = FileKind::ConvertedNpy;
  return out;
}

DumpFileName parse_npy(std::string_view name) {
  Fields f = split(name, '.');
  const size_t n = f.size() - 1;  // without "npy"
  std::string_view stem = name.substr(0, name.size() - 4);
  // MindSpore writes names over 255 bytes as a random number listed in mapping.csv (§3.8).
  if (is_digits(stem))
    return unknown("numeric .npy name: its real name is in the mapping.csv of the same directory");
  if (n >= 1 && (is_digits(f[n - 1]) || parse_x_shape(f[n - 1]))) return parse_converted_npy(f);

  // The field before "npy" is a dtype only when it is a dtype word (dump spec §3.3); try that
  // reading first, since "….output.0.DefaultFormat.float32" also fits format=float32 otherwise.
  if (n >= 1 && parse_dtype_label(f[n - 1])) {
    DumpFileName out;
    if (!parse_tensor_fields(f, n - 1, out)) {
      set_dtype(out, f[n - 1]);
      out.kind = FileKind::Npy;
      return out;
    }
  }
  DumpFileName out;
  auto problem = parse_tensor_fields(f, n, out);
  if (!problem) {
    out.kind = FileKind::Npy;
    return out;
  }
  // A dtype word newer than our table still leaves the rest of the name readable.
  if (n >= 1 && (is_lower_word(f[n - 1]) || is_upper_word(f[n - 1]))) {
    DumpFileName with_dtype;
    if (!parse_tensor_fields(f, n - 1, with_dtype)) {
      set_dtype(with_dtype, f[n - 1]);
      with_dtype.kind = FileKind::Npy;
      return with_dtype;
    }
  }
  return unknown("name ends in .npy but " + *problem);
}

// Format A: {kernel}_{input|output}_{index}_shape_{dims}_{dtype}_{format}.bin (dump spec §3.1).
DumpFileName parse_legacy_bin(std::string_view name) {
  std::string_view stem = name.substr(0, name.size() - 4);
  DumpFileName out;
  // Formats may contain '_' (NC1HWC0_C04, FRACTAL_Z_3D), so the longest known one that ends the
  // name wins; otherwise the last '_' field is taken as an unknown format.
  std::string_view format;
  for (std::string_view candidate : known_format_names()) {
    if (candidate.size() > format.size() && stem.size() > candidate.size() &&
        stem.ends_with(candidate) && stem[stem.size() - candidate.size() - 1] == '_')
      format = candidate;
  }
  if (format.empty()) {
    size_t at = stem.rfind('_');
    if (at == std::string_view::npos) return unknown("name ends in .bin but has no '_' fields");
    format = stem.substr(at + 1);
    if (format.empty()) return unknown("name ends in .bin but its format field is empty");
  }
  set_format(out, format);
  std::string_view rest = stem.substr(0, stem.size() - format.size() - 1);

  size_t at = rest.rfind('_');
  if (at == std::string_view::npos)
    return unknown("name ends in .bin but has no dtype field before the format");
  std::string_view dtype = rest.substr(at + 1);
  // GPU 1.2 with trans_flag writes kNumberTypeFloat32, elsewhere Float32 (dump spec §3.1).
  out.dtype_label = std::string(dtype);
  out.dtype = parse_dtype_label(dtype);
  if (!out.dtype && dtype.starts_with("kNumberType"))
    out.dtype = parse_dtype_label(dtype.substr(11));
  rest = rest.substr(0, at);

  constexpr std::string_view kShape = "_shape_";
  size_t shape_at = rest.rfind(kShape);
  if (shape_at == std::string_view::npos)
    return unknown("name ends in .bin but does not end in _shape_{dims}_{dtype}_{format}");
  std::string_view dims = rest.substr(shape_at + kShape.size());
  for (std::string_view dim : split(dims, '_')) {
    auto value = parse_unsigned<uint64_t>(dim);
    if (!value)
      return unknown(fmt::format("name ends in .bin but shape dimension {} is not a 64-bit number",
                                 quote_for_message(dim)));
    out.shape.push_back(*value);
  }
  // "shape_0" is how 1.x writes a 0-d tensor (dump spec §3.1).
  if (out.shape.size() == 1 && out.shape[0] == 0) out.shape.clear();
  out.has_shape = true;

  std::string_view head = rest.substr(0, shape_at);
  at = head.rfind('_');
  if (at == std::string_view::npos)
    return unknown("name ends in .bin but has no '_{input|output}_{index}' before '_shape_'");
  std::string_view index = head.substr(at + 1);
  out.slot = parse_unsigned<uint32_t>(index);
  if (!out.slot)
    return unknown(
        fmt::format("name ends in .bin but field {} before '_shape_' is not a 32-bit tensor index",
                    quote_for_message(index)));
  head = head.substr(0, at);
  at = head.rfind('_');
  std::string_view io = at == std::string_view::npos ? head : head.substr(at + 1);
  out.io = parse_io(io);
  if (!out.io || at == std::string_view::npos || at == 0)
    return unknown(fmt::format(
        "name ends in .bin but field {} before the tensor index is not input or output, or no "
        "kernel name precedes it",
        quote_for_message(io)));
  out.op_name = std::string(head.substr(0, at));
  out.kind = FileKind::LegacyBin;
  return out;
}

// Opdebug.Node_OpDebug.{task}.{stream}.{ts}[.output.{i}.json] (dump spec §3.4, §5.8).
DumpFileName parse_overflow(std::string_view name) {
  Fields f = split(name, '.');
  DumpFileName out;
  FileKind kind = FileKind::Overflow;
  size_t end = f.size();
  if (name.ends_with(".json")) {
    kind = FileKind::OverflowJson;
    if (f.size() != 8 || f[5] != "output" || !is_digits(f[6]))
      return unknown(
          "overflow json name is not Opdebug.Node_OpDebug.{task}.{stream}.{timestamp}.output."
          "{index}.json");
    out.io = Io::Output;
    out.slot = parse_unsigned<uint32_t>(f[6]);
    if (!out.slot) return unknown("overflow json output index does not fit in 32 bits");
    end = 5;
  } else if (f.size() != 5) {
    return unknown(
        fmt::format("overflow name has {} dot-separated fields, expected 5 "
                    "(Opdebug.Node_OpDebug.{{task}}.{{stream}}.{{timestamp}})",
                    f.size()));
  }
  if (auto problem = parse_container_fields(f, end, true, out))
    return unknown("overflow name: " + *problem);
  out.kind = kind;
  return out;
}

// msprobe raw bytes: {5-field name}.{io}.{slot}.{FORMAT}.{DTYPE}, no .npy (dump spec §3.7).
DumpFileName parse_msprobe_raw(const Fields& f) {
  DumpFileName out;
  if (auto problem = parse_tensor_fields(f, f.size() - 1, out))
    return unknown(fmt::format("name ends in the dtype word {} like a msprobe raw file, but {}",
                               quote_for_message(f.back()), *problem));
  set_dtype(out, f.back());
  out.kind = FileKind::MsprobeRaw;
  return out;
}

// {op_type}.{op_name}.{task}[.{stream}].{ts} (dump spec §3.4, §3.9).
DumpFileName parse_container(const Fields& f) {
  DumpFileName out;
  // 1.3+ writes three trailing numbers; 1.1/1.2 only task and timestamp. A 4-field name is always
  // the old form, since op_name is never absent from a container name.
  bool with_stream = f.size() >= 5 && is_digits(f[f.size() - 3]);
  if (auto problem = parse_container_fields(f, f.size(), with_stream, out))
    return unknown("name has no extension and ends in a number like a binary dump, but " +
                   *problem);
  // O2 aclnn files swap op_type and op_name (§3.4); the name alone cannot tell, so the first field
  // stays op_type.
  out.kind = FileKind::AscendBinary;
  return out;
}

// {prefix}{digits}{suffix} → digits as a graph id.
std::optional<DumpFileName> parse_graph_file(std::string_view name, std::string_view prefix,
                                             std::string_view suffix, FileKind kind) {
  if (!name.starts_with(prefix) || !name.ends_with(suffix) ||
      name.size() < prefix.size() + suffix.size())
    return std::nullopt;
  std::string_view id = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  DumpFileName out;
  out.graph_id = parse_unsigned<uint32_t>(id);
  if (!out.graph_id)
    return unknown(
        fmt::format("name starts like {}{{graph_id}}{} but graph id {} is not a 32-bit "
                    "number",
                    prefix, suffix, quote_for_message(id)));
  out.kind = kind;
  return out;
}

}  // namespace

DumpFileName parse_dump_file_name(std::string_view basename) {
  std::string_view name = basename;
  if (name.empty()) return unknown("empty file name");

  DumpFileName side;
  if (name == "statistic.csv") side.kind = FileKind::StatisticCsv;
  if (name == "mapping.csv") side.kind = FileKind::MappingCsv;
  if (name == "convert_failed_file_list.txt") side.kind = FileKind::ConvertFailedList;
  if (name == "data_dump.json" || name == "hccl.json" || name == "config.json")
    side.kind = FileKind::Metadata;
  if (name.starts_with("acl_dump_") && name.ends_with(".json") &&
      is_digits(name.substr(9, name.size() - 9 - 5)))
    side.kind = FileKind::Metadata;
  if (side.kind != FileKind::Unknown) return side;

  // "ms_global_…" does not start with "ms_execution_…", so the order of these tests is free.
  if (auto g =
          parse_graph_file(name, "ms_execution_order_graph_", ".csv", FileKind::ExecutionOrder))
    return *g;
  if (auto g = parse_graph_file(name, "ms_global_execution_order_graph_", ".csv",
                                FileKind::GlobalExecutionOrder))
    return *g;
  if (auto g = parse_graph_file(name, "ms_output_trace_code_graph_", ".pb", FileKind::Graph))
    return *g;
  if (auto g = parse_graph_file(name, "ms_output_trace_code_graph_", ".ir", FileKind::Graph))
    return *g;

  if (name.starts_with("Opdebug.Node_OpDebug.")) return parse_overflow(name);

  if (name.ends_with(".npy")) return parse_npy(name);
  if (name.ends_with(".bin")) {
    if (name.find("_shape_") == std::string_view::npos)
      return unknown("name ends in .bin but has no '_shape_' field of a 1.1/1.2 dump name");
    return parse_legacy_bin(name);
  }
  if (name.ends_with(".json")) {
    Fields f = split(name.substr(0, name.size() - 5), '.');
    if (f.size() < 2 || f[0].empty())
      return unknown(
          "name ends in .json but is not {op_type}.{op_name}.json or a known metadata "
          "file");
    DumpFileName out;
    out.kind = FileKind::KernelArgsJson;
    out.op_type = std::string(f[0]);
    out.op_name = join(f, 1, f.size(), '.');
    return out;
  }

  Fields f = split(name, '.');
  if (f.size() >= 2 && is_upper_word(f.back()) && parse_dtype_label(f.back()))
    return parse_msprobe_raw(f);
  if (f.size() >= 2 && is_digits(f.back())) return parse_container(f);
  if (f.size() >= 6 && is_upper_word(f.back()) && parse_io(f[f.size() - 4]))
    return parse_msprobe_raw(f);  // a CANN dtype word newer than our table
  return unknown(
      "name matches no dump file grammar: not .npy, .bin or a known side file, and it does not end "
      "in a number (binary dump) or a dtype word (msprobe raw)");
}

}  // namespace msdt::dump
