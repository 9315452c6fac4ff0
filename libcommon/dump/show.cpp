#include "dump/show.h"

#include <fmt/format.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "dump/dump_file.h"
#include "dump/file_roles.h"
#include "dump/statistics.h"
#include "table/format.h"
#include "tensor/npy.h"
#include "tensor/value_printer.h"

namespace msdt::dump {
namespace {

using Json = nlohmann::ordered_json;

template <class T>
Json optional_json(const std::optional<T>& value) {
  return value ? Json(*value) : Json(nullptr);
}

Json string_json(const std::string& value) { return value.empty() ? Json(nullptr) : Json(value); }

// Non-finite values stay doubles: table::to_json_text spells them as the listing does.
Json double_json(const std::optional<double>& value) {
  if (!value) return nullptr;
  return *value;
}

Json exact_json(const ExactInteger& value) {
  return std::visit([](auto v) { return Json(v); }, value);
}

Json shape_json(std::span<const uint64_t> shape) {
  Json array = Json::array();
  for (uint64_t dim : shape) array.push_back(dim);
  return array;
}

Json location_json(const DumpLocation& where) {
  Json j = Json::object();
  j["layout"] = string_json(where.layout);
  j["rank"] = optional_json(where.rank);
  j["net"] = string_json(where.net);
  j["graph"] = optional_json(where.graph);
  j["iteration"] = optional_json(where.iteration);
  j["constants"] = where.constants;
  return j;
}

Json name_json(const DumpFile& file) {
  const DumpFileName& name = file.name;
  Json j = Json::object();
  j["stored_name"] = file.stored_name;
  j["kind"] = std::string(file_kind_name(name.kind));
  if (name.kind == FileKind::Unknown) {
    j["problem"] = string_json(name.problem);
    return j;
  }
  j["op_type"] = string_json(name.op_type);
  j["op_name"] = string_json(name.op_name);
  j["task_id"] = optional_json(name.task_id);
  j["stream_id"] = optional_json(name.stream_id);
  j["timestamp"] = optional_json(name.timestamp);
  j["io"] = name.io ? Json(std::string(io_name(*name.io))) : Json(nullptr);
  j["slot"] = optional_json(name.slot);
  j["device_format"] = string_json(name.device_format);
  j["dtype_label"] = string_json(name.dtype_label);
  j["dtype"] = name.dtype ? Json(std::string(dtype_name(*name.dtype))) : Json(nullptr);
  if (name.has_shape) j["shape"] = shape_json(name.shape);
  if (name.graph_id) j["graph_id"] = *name.graph_id;
  return j;
}

Json npy_json(const NpyHeader& header) {
  Json j = Json::object();
  j["version"] = fmt::format("{}.{}", header.major_version, header.minor_version);
  j["descr"] = header.descr;
  j["dtype"] = std::string(dtype_name(header.dtype));
  j["big_endian"] = header.big_endian;
  j["fortran_order"] = header.fortran_order;
  j["shape"] = shape_json(header.shape);
  j["data_offset"] = header.data_offset;
  j["data_size"] = header.data_size;
  return j;
}

Json stats_json(const RowStats& s) {
  Json j = Json::object();
  j["source"] = s.source;
  j["count"] = optional_json(s.count);
  j["min"] = s.exact_min ? exact_json(*s.exact_min) : double_json(s.min);
  j["max"] = s.exact_max ? exact_json(*s.exact_max) : double_json(s.max);
  j["mean"] = double_json(s.mean);
  j["std"] = double_json(s.std);
  j["abs_mean"] = double_json(s.abs_mean);
  j["l2norm"] = double_json(s.l2norm);
  j["nan"] = optional_json(s.nan);
  j["pos_inf"] = optional_json(s.pos_inf);
  j["neg_inf"] = optional_json(s.neg_inf);
  j["zero"] = optional_json(s.zero);
  j["negative"] = optional_json(s.negative);
  j["positive"] = optional_json(s.positive);
  return j;
}

std::string values_text(const TensorView& view, uint64_t max_elements) {
  std::ostringstream text;
  print_values(text, view, max_elements);
  std::string out = text.str();
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

Json tensor_json(const DumpTensor& tensor, const ShowOptions& options) {
  Json j = Json::object();
  j["format"] = tensor.format;
  j["op_type"] = string_json(tensor.op_type);
  j["op_name"] = string_json(tensor.op_name);
  j["task_id"] = optional_json(tensor.task_id);
  j["stream_id"] = optional_json(tensor.stream_id);
  j["timestamp"] = optional_json(tensor.timestamp);
  j["io"] = string_json(tensor.io);
  j["slot"] = optional_json(tensor.slot);
  j["device_format"] = string_json(tensor.device_format);
  j["dtype"] = tensor.dtype ? Json(std::string(dtype_name(*tensor.dtype))) : Json(nullptr);
  j["shape"] = tensor.shape_known ? shape_json(tensor.shape) : Json(nullptr);
  if (tensor.statistics)
    j["bytes"] = optional_json(tensor.statistics->data_size);
  else
    j["bytes"] = tensor.bytes;
  if (tensor.statistics) {
    j["stats"] = stats_json(stats_from_statistic_row(*tensor.statistics));
    j["values"] = nullptr;
  } else if (tensor.view) {
    j["stats"] = stats_json(stats_from_tensor(compute_stats(*tensor.view)));
    j["values"] = values_text(*tensor.view, options.max_elements);
  } else {
    j["stats"] = nullptr;
    j["values"] = nullptr;
  }
  return j;
}

bool looks_like_container(const DumpFile& file, Bytes contents) {
  return file.name.kind == FileKind::AscendBinary || file.name.kind == FileKind::Overflow ||
         (file.name.kind == FileKind::Unknown && looks_like_ascend_dump(contents));
}

bool starts_with_npy_magic(Bytes contents) {
  static constexpr char kMagic[] = "\x93NUMPY";
  if (contents.size() < 6) return false;
  for (size_t i = 0; i < 6; ++i)
    if (static_cast<char>(contents[i]) != kMagic[i]) return false;
  return true;
}

// Builds the whole description first, so text and JSON print the same facts.
Json describe(const DumpDirectory& directory, const DumpFile& file, Bytes contents,
              const ShowOptions& options, Diagnostics& diagnostics) {
  Json doc = Json::object();
  doc["file"] = file.display;
  doc["size"] = static_cast<uint64_t>(contents.size());
  doc["location"] = location_json(directory.where);
  doc["name"] = name_json(file);

  bool npy_content = starts_with_npy_magic(contents);
  if (npy_content) {
    // Errors surface below through read_dump_file, with their offsets.
    auto header = parse_npy(contents, file.name.dtype);
    if (header) doc["npy"] = npy_json(*header);
  } else if (looks_like_container(file, contents)) {
    auto container = parse_ascend_dump(contents);
    if (container) doc["dump"] = Json(ascend_dump_to_json(*container));
  }

  Json tensors = Json::array();
  Json overflow = Json::array();
  auto warn = [&](const Error& warning) { diagnostics.warning(file.display, warning); };
  auto status = read_dump_file(file, contents, warn, [&](const DumpTensor& tensor) {
    tensors.push_back(tensor_json(tensor, options));
    if (tensor.overflow_record) overflow.push_back(Json(*tensor.overflow_record));
    // The overflow record is the payload of output 0 (dump spec §5.8).
    if (tensor.format == "overflow" && tensor.ascend &&
        tensor.ascend->kind == AscendTensorKind::Output && tensor.ascend->index == 0) {
      auto decoded = decode_overflow(tensor.ascend->payload, tensor.ascend->payload_offset);
      if (decoded)
        overflow.push_back(Json(*decoded));
      else
        diagnostics.error(file.display, decoded.error());
    }
  });
  if (!overflow.empty()) doc["overflow"] = overflow.size() == 1 ? overflow[0] : overflow;
  doc["tensors"] = std::move(tensors);
  if (status) report_read_failure(file, contents, *status, diagnostics);
  return doc;
}

void print_text(const Json& doc, std::ostream& out) {
  std::string text;
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    if (it.key() == "tensors") continue;
    if (it.value().is_structured()) {
      text += it.key() + ":\n" + table::to_indented_text(it.value(), 2);
    } else {
      Json one = Json::object();
      one[it.key()] = it.value();
      text += table::to_indented_text(one, 0);
    }
  }
  const Json& tensors = doc.at("tensors");
  text += fmt::format("tensors: {}\n", tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    Json fields = tensors[i];
    Json values = fields["values"];
    fields.erase("values");
    text += fmt::format("tensor {}:\n", i);
    text += table::to_indented_text(fields, 2);
    if (values.is_string()) {
      text += "  values:\n";
      std::istringstream lines(values.get<std::string>());
      for (std::string line; std::getline(lines, line);)
        text += line.empty() ? "\n" : "    " + line + "\n";
    }
  }
  out << text;
}

}  // namespace

void show_file(const std::string& path, const ShowOptions& options, std::ostream& out,
               Diagnostics& diagnostics) {
  auto show = [&](const DumpDirectory& directory, const DumpFile& file, Bytes contents) {
    Json doc = describe(directory, file, contents, options, diagnostics);
    if (options.json)
      out << table::to_json_text(doc, 2) << '\n';
    else
      print_text(doc, out);
    out.flush();
  };

  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    diagnostics.error(path, Error("is a directory; --show takes one file"));
    return;
  }
  WalkCallbacks callbacks;
  callbacks.directory = [&](const DumpDirectory& directory) {
    for (const DumpFile& file : directory.files) {
      auto mapped = open_dump_file(file);
      if (!mapped) {
        diagnostics.error(file.display, mapped.error());
        continue;
      }
      show(directory, file, (*mapped)->bytes());
    }
  };
  callbacks.error = [&](const std::string& display, const Error& error) {
    diagnostics.error(display, error);
  };
  callbacks.warning = [&](const std::string& display, const Error& w) {
    diagnostics.warning(display, w);
  };
  walk_dump_tree(std::span<const std::string>(&path, 1), callbacks);
}

}  // namespace msdt::dump
