#include "weights/model_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <mutex>
#include <utility>

#include "io/crlf.h"
#include "io/directory.h"
#include "io/mapped_file.h"
#include "io/output_file.h"
#include "io/report.h"
#include "io/text.h"
#include "ir/load.h"
#include "ir/report.h"
#include "ir/type_spec.h"
#include "model/checkpoint.h"
#include "model/mindir.h"
#include "model/ms_lite.h"
#include "model/safetensors.h"

namespace msdt::weights {

struct ModelFile::Format {
  std::filesystem::path folder;         // where external data files are looked up
  std::optional<model::MindIR> mindir;  // a MindIR's weights: how to take their elements
  mutable std::mutex mutex;
  mutable std::map<std::string, std::shared_ptr<Expected<MappedFile>>> external;

  mutable std::optional<Expected<OpenDirectory>> opened;  // `folder`, opened at the first use

  // The external file `relative`, mapped once.
  std::shared_ptr<Expected<MappedFile>> map(const std::string& relative) const {
    std::lock_guard lock(mutex);
    auto& slot = external[relative];
    if (!slot) {
      // The name comes from the model file: it stays inside the model's folder, also once
      // symbolic links are resolved.
      if (!opened) opened = OpenDirectory::open(folder.empty() ? "." : folder);
      slot = std::make_shared<Expected<MappedFile>>(
          *opened ? MappedFile::open(**opened, relative) : Expected<MappedFile>(opened->error()));
    }
    return slot;
  }
};

namespace {

nlohmann::ordered_json crc_json(const model::CrcCheck& crc) {
  nlohmann::ordered_json out;
  out["status"] = std::string(model::crc_status_name(crc.status));
  if (crc.status != model::CrcStatus::Absent) out["stored"] = fmt::format("{:#010x}", crc.stored);
  if (crc.status == model::CrcStatus::Ok || crc.status == model::CrcStatus::Mismatch)
    out["computed"] = fmt::format("{:#010x}", crc.computed);
  return out;
}

void read_checkpoint_file(ModelFile& out, Bytes bytes, const OpenOptions& options) {
  // The walk touches a few bytes per parameter; the pages behind it are given back as it goes, so
  // that listing a checkpoint of any size keeps memory flat.
  PageDropper dropper(out.file(), uint64_t{32} << 20);
  model::ReadOptions read;
  read.verify_crc = options.verify_crc;
  read.walked = [&](uint64_t offset) { dropper.done_before(offset); };
  // Each parameter becomes its item as soon as it is read: the reader keeps none of them.
  read.parameter = [&](model::Parameter&& p) {
    if (p.kind == model::ParameterKind::MapTensor) {
      static const char* const kPart[] = {"keys", "values", "status"};
      for (size_t i = 0; i < p.map.size(); ++i) {
        Item& item = out.items.emplace_back();
        item.name = p.name + "." + kPart[i];
        item.kind = "map";
        item.content = std::move(p.map[i]);
        item.offset = p.offset();
      }
      return;
    }
    Item& item = out.items.emplace_back();
    item.offset = p.offset();
    item.name = std::move(p.name);
    item.kind = model::parameter_kind_name(p.kind);
    item.content = std::move(p.content);
  };
  model::Checkpoint ckpt = model::read_checkpoint(bytes, read);
  out.info["parameters"] = ckpt.parameter_count;
  out.info["values"] = ckpt.values;
  out.info["crc"] = crc_json(ckpt.crc);
  out.problems = std::move(ckpt.problems);
}

void read_safetensors_file(ModelFile& out, Bytes bytes, const OpenOptions& options) {
  model::Safetensors file = model::read_safetensors(bytes, {.verify_crc = options.verify_crc});
  for (model::SafetensorsTensor& t : file.tensors) {
    Item& item = out.items.emplace_back();
    item.name = std::move(t.name);
    item.kind = "tensor";
    item.content = std::move(t.content);
    // MindSpore's own dtype of a tensor stored as its NumPy view (spec §8.2: "Int4").
    if (!t.mindspore_dtype.empty()) item.set_detail().storage = std::move(t.mindspore_dtype);
  }
  out.info["header_size"] = file.header_size;
  nlohmann::ordered_json metadata = nlohmann::ordered_json::object();
  for (const auto& [key, value] : file.metadata) metadata[key] = value;
  out.info["metadata"] = std::move(metadata);
  out.info["crc"] = crc_json(file.crc);
  out.problems = std::move(file.problems);
}

// The problem of an external range that the file it names cannot hold (or the file cannot be
// read): found when the model is opened, so that every mode reports it alike.
std::optional<Error> check_external_file(const model::MsLiteTensor& t, size_t index,
                                         const Item& item, const ModelFile::Format& format) {
  std::shared_ptr<Expected<MappedFile>> mapped = format.map(item.source());
  const model::Segment& range = item.content.segments.front();
  std::string problem;
  if (!*mapped)
    problem = mapped->error().message;
  else if (range.offset > (**mapped).size() || range.length > (**mapped).size() - range.offset)
    problem = fmt::format("bytes {}-{} lie past its end ({} bytes)", range.offset,
                          range.offset + range.length, (**mapped).size());
  else
    return std::nullopt;
  return Error::at_offset(
      t.offset, fmt::format("allTensors[{}] {}: externalData '{}': {}", index,
                            quote_for_message(item.name), printable_path(item.source()), problem));
}

void read_ms_lite_file(ModelFile& out, Bytes bytes, const ModelFile::Format& format) {
  model::MsLite lite = model::read_ms_lite(bytes);
  out.info["identifier"] = lite.identifier;
  if (lite.legacy) out.info["schema"] = std::string(model::lite_legacy_schema_name(*lite.legacy));
  if (!lite.supported) {
    out.unlistable = Error(fmt::format(
        "a MindSpore Lite model with {}: an older schema, identified but not read (as Netron)",
        lite.identifier.empty() ? "no identifier" : "identifier " + lite.identifier));
    out.problems = std::move(lite.problems);
    return;
  }
  out.info["name"] = lite.name;
  if (!lite.legacy || *lite.legacy != model::LiteLegacySchema::V0_7)
    out.info["version"] = lite.version;
  out.info["fmk_type"] = lite.fmk_type;
  out.info["nodes"] = lite.node_count;
  out.info["tensors_declared"] = lite.tensor_count;
  if (!lite.legacy) out.info["subgraphs"] = lite.subgraph_names;
  out.info["inputs"] = lite.inputs;
  out.info["outputs"] = lite.outputs;
  if (!lite.legacy) out.info["obfuscated"] = lite.obfuscated;
  std::vector<Error> external_problems;
  for (size_t i = 0; i < lite.tensors.size(); ++i) {
    model::MsLiteTensor& t = lite.tensors[i];
    Item& item = out.items.emplace_back();
    // 0.7-1.0 tensors have no name: they are called by their place in allTensors.
    item.name = lite.legacy ? fmt::format("allTensors.{}", i) : std::move(t.name);
    // Weights hold data in the file; graph inputs, outputs and activations do not.
    item.has_bytes = !t.content.segments.empty();
    if (t.compressed()) item.set_detail().storage = t.huffman ? "huffman" : t.compress_name;
    item.content = std::move(t.content);
    if (t.external) {
      // externalData (1.6+): the bytes lie in a file beside the model, at offset for length; a
      // damaged entry is a problem of the reader's and leaves the tensor without bytes.
      item.set_detail().storage = "external";
      if (t.external_range) {
        item.set_detail().source = t.external_data[*t.external_range].location;
        if (auto problem = check_external_file(t, i, item, format)) {
          external_problems.push_back(std::move(*problem));
          item.has_bytes = false;
          item.content.segments.clear();
        }
      }
    }
    item.kind = item.has_bytes ? "weight" : "tensor";
    if (std::any_of(t.dims.begin(), t.dims.end(), [](int32_t d) { return d < 0; }))
      item.set_detail().dynamic_dims.assign(t.dims.begin(), t.dims.end());
  }
  out.problems = std::move(lite.problems);
  for (Error& e : external_problems) out.problems.push_back(std::move(e));
}

// The 1.2-1.5 split model (mindir spec §5.2): `{prefix}_variables/data_N` GraphProto chunks
// beside `{prefix}_graph.mindir`, read in N order while they exist.
void add_graph_chunks(model::MindIR& mindir, const std::string& path,
                      const ModelFile::Format& format) {
  for (const model::MindIRWeight& w : mindir.weights)
    if (w.storage == model::MindIRStorage::External) return;  // 1.6+: raw data files
  const std::string variables =
      model::mindir_variables_dir(std::filesystem::path(path).filename().string());
  if (variables.empty()) return;
  for (int n = 0;; ++n) {
    const std::string relative = variables + "/data_" + std::to_string(n);
    std::error_code ec;
    if (!std::filesystem::is_regular_file(format.folder / relative, ec)) return;
    std::shared_ptr<Expected<MappedFile>> chunk = format.map(relative);
    if (!*chunk) {
      Error error = chunk->error();
      mindir.problems.push_back(std::move(error).with_context("data file '" + relative + "'"));
      return;
    }
    model::add_graph_chunk(mindir, (**chunk).bytes(), relative);
  }
}

void read_mindir_file(ModelFile& out, Bytes bytes, ModelFile::Format& format) {
  model::MindIR mindir = model::read_mindir(bytes);
  add_graph_chunks(mindir, out.path, format);
  nlohmann::ordered_json& info = out.info;
  info["generation"] = std::string(model::mindir_generation_name(mindir.generation));
  auto optional = [&](const char* key, const std::optional<std::string>& value) {
    if (value) info[key] = *value;
  };
  optional("ir_version", mindir.ir_version);
  optional("producer_name", mindir.producer_name);
  optional("producer_version", mindir.producer_version);
  optional("model_version", mindir.model_version);
  optional("domain", mindir.domain);
  if (mindir.little_endian) info["little_endian"] = *mindir.little_endian;
  if (mindir.mind_ir_version) info["mind_ir_version"] = *mindir.mind_ir_version;
  info["preprocessor"] = !mindir.has_preprocessor ? "none"
                         : mindir.preprocessor_is_text
                             ? "JSON text"
                             : fmt::format("{} ops", mindir.preprocessor_ops);
  if (!mindir.user_info.empty()) {
    nlohmann::ordered_json user = nlohmann::ordered_json::object();
    for (const auto& [key, value] : mindir.user_info) user[key] = value;
    info["user_info"] = std::move(user);
  }
  if (mindir.has_parallel) info["parallel_layouts"] = mindir.parallel_layouts;
  nlohmann::ordered_json graphs = nlohmann::ordered_json::array();
  for (const model::MindIRGraph& g : mindir.graphs)
    graphs.push_back({{"name", g.name},
                      {"function", g.is_function},
                      {"nodes", g.nodes.size()},
                      {"parameters", g.weights.size()},
                      {"inputs", g.inputs.size()},
                      {"outputs", g.outputs.size()}});
  info["graphs"] = std::move(graphs);
  info["primitives"] = mindir.primitives.size();
  info["weights"] = mindir.weights.size();
  info["data_files"] = mindir.data_files();
  for (size_t i = 0; i < mindir.weights.size(); ++i) {
    const model::MindIRWeight& w = mindir.weights[i];
    Item& item = out.items.emplace_back();
    item.name = w.name;
    item.kind = "weight";
    item.content = w.content;
    item.set_detail().storage = w.storage_word();
    if (!w.data_file.empty()) item.detail->source = w.data_file;
    item.offset = w.offset;
    item.has_bytes = w.storage != model::MindIRStorage::None;
    item.index = i;
    if (w.storage >= model::MindIRStorage::FloatData) item.element_bytes = w.content.expected_bytes;
  }
  out.problems = mindir.problems;
  format.mindir = std::move(mindir);
}

void read_graph_meta(ModelFile& out, Bytes bytes) {
  ir::Loaded loaded = ir::load_graph(bytes);
  if (!loaded.module) {
    out.problems.push_back(loaded.module.error());
    return;
  }
  const ir::Module& module = *loaded.module;
  for (const ir::Parameter& p : module.params) {
    ir::TypeSpec type = ir::parse_type_spec(p.type);
    Item item;
    item.name = p.name;
    item.kind = "parameter";
    item.has_bytes = false;
    item.content.spelling = type.dtype.empty() ? p.type : type.dtype;
    item.content.dtype = parse_dtype_label(type.dtype);
    if (type.shape)
      for (int64_t d : *type.shape) item.content.shape.push_back(d < 0 ? 0 : uint64_t(d));
    item.content.dims = item.content.shape;
    out.items.push_back(std::move(item));
  }
  ir::Counts counts = ir::count_nodes(module, 0);
  out.info["graphs"] = counts.graphs;
  out.info["parameters"] = counts.parameters;
  out.info["nodes"] = counts.nodes;
  for (const Error& w : module.warnings) out.problems.push_back(w);
}

// What `repaired` (a file with its line-ending damage undone, io/crlf.h) is, when its reader
// finds no problem in it (and its CRC, if any, holds).
std::optional<std::string> reads_cleanly(Bytes repaired) {
  const model::Sniff sniffed = model::sniff(repaired);
  bool clean = false;
  switch (sniffed.kind) {
    case model::FileKind::Checkpoint:
    case model::FileKind::CheckpointWithCrc: {
      model::ReadOptions read;
      read.verify_crc = true;
      model::Checkpoint ckpt = model::read_checkpoint(repaired, read);
      clean = ckpt.problems.empty() && ckpt.crc.status != model::CrcStatus::Mismatch;
      break;
    }
    case model::FileKind::Safetensors: {
      model::Safetensors file = model::read_safetensors(repaired, {.verify_crc = true});
      clean = file.problems.empty() && file.crc.status != model::CrcStatus::Mismatch;
      break;
    }
    case model::FileKind::MsLite:
      clean = model::read_ms_lite(repaired).problems.empty();
      break;
    case model::FileKind::MindIR:
    case model::FileKind::MindIRLegacy:
      clean = model::read_mindir(repaired).problems.empty();
      break;
    case model::FileKind::GraphMeta:
      clean = ir::load_graph(repaired).module.has_value();
      break;
    case model::FileKind::Encrypted:
    case model::FileKind::Unknown:
      break;
  }
  if (!clean) return std::nullopt;
  return sniffed.description.starts_with("a ") ? sniffed.description.substr(2)
                                               : sniffed.description;
}

}  // namespace

namespace {
const ItemDetail kNoDetail;
}  // namespace

const std::string& Item::storage() const { return detail ? detail->storage : kNoDetail.storage; }
const std::string& Item::source() const { return detail ? detail->source : kNoDetail.source; }
const std::vector<int64_t>& Item::dynamic_dims() const {
  return detail ? detail->dynamic_dims : kNoDetail.dynamic_dims;
}
ItemDetail& Item::set_detail() {
  if (!detail) detail = std::make_unique<ItemDetail>();
  return *detail;
}

Expected<ModelFile> open_model(const std::string& path, const OpenOptions& options) {
  ModelFile out;
  out.path = path;
  // Listing reads headers spread through the file (Sparse: no read-ahead; data() prefetches what
  // it reads whole); verifying a CRC reads the whole file front to back (Parts: read-ahead).
  const Reading reading = options.verify_crc ? Reading::Parts : Reading::Sparse;
  MSDT_TRY(MappedFile mapped,
           path == "-" ? MappedFile::read_stdin(std::nullopt, MappedFile::refuse_zero_start)
                       : MappedFile::open(path, reading));
  out.file_ = std::make_shared<MappedFile>(std::move(mapped));
  auto format = std::make_shared<ModelFile::Format>();
  format->folder =
      path == "-" ? std::filesystem::path(".") : std::filesystem::path(path).parent_path();
  out.format_ = format;
  const Bytes bytes = out.file_->bytes();
  out.sniff = model::sniff(bytes);
  out.info["kind"] = std::string(model::file_kind_name(out.sniff.kind));
  out.info["description"] = out.sniff.description;
  out.info["file_size"] = bytes.size();
  switch (out.sniff.kind) {
    case model::FileKind::Checkpoint:
    case model::FileKind::CheckpointWithCrc:
      read_checkpoint_file(out, bytes, options);
      break;
    case model::FileKind::GraphMeta:
      read_graph_meta(out, bytes);
      break;
    case model::FileKind::Encrypted:
      out.info["cipher"] = std::string(model::cipher_mode_name(out.sniff.cipher));
      out.info["layout"] = out.sniff.layout == model::CipherLayout::Current ? "1.7+"
                           : out.sniff.layout == model::CipherLayout::Old   ? "1.3-1.6"
                                                                            : "unverified";
      out.unlistable = Error(
          fmt::format("{}: its parameters cannot be read without the key", out.sniff.description));
      break;
    case model::FileKind::Safetensors:
      read_safetensors_file(out, bytes, options);
      break;
    case model::FileKind::MsLite:
      read_ms_lite_file(out, bytes, *format);
      break;
    case model::FileKind::MindIR:
    case model::FileKind::MindIRLegacy:
      read_mindir_file(out, bytes, *format);
      break;
    case model::FileKind::Unknown: {
      Error error = model::not_a_checkpoint(out.sniff);
      explain_line_ending_damage(error, bytes, path, reads_cleanly);
      return error;
    }
  }
  // A file damaged by a line-ending conversion is one line saying so, not its misread items.
  if (!out.problems.empty())
    if (Error error = out.problems.front();
        explain_line_ending_damage(error, bytes, path, reads_cleanly))
      return error;
  return out;
}

Expected<model::TensorData> ModelFile::data(const Item& item) const {
  if (!item.has_bytes)
    return Error(
        fmt::format("'{}' has no bytes in this file (a {})", printable_path(item.name), item.kind));
  Bytes bytes = file_->bytes();
  prefetch(item);
  if (format_->mindir) {
    // Raw data, external data files, 1.2-1.5 chunks and typed fields alike (model/mindir.h).
    return model::mindir_tensor_data(
        bytes, format_->mindir->weights.at(item.index),
        [this](std::string_view relative) -> Expected<Bytes> {
          std::shared_ptr<Expected<MappedFile>> mapped = format_->map(std::string(relative));
          if (!*mapped)
            return Error(mapped->error())
                .with_context(fmt::format("data file {}", quote_for_message(relative)));
          return (**mapped).bytes();
        });
  }
  std::shared_ptr<Expected<MappedFile>> external;
  if (!item.source().empty()) {
    external = format_->map(item.source());
    if (!*external)
      return Error(fmt::format("external data '{}': {}", printable_path(item.source()),
                               external->error().message));
    bytes = (**external).bytes();
  }
  return item.numeric() ? model::tensor_data(bytes, item.content)
                        : model::raw_data(bytes, item.content);
}

void ModelFile::prefetch(const Item& item) const {
  if (!item.source().empty()) return;
  for (const model::Segment& segment : item.content.segments)
    file_->prefetch(segment.offset, segment.length);
}

void ModelFile::drop(const Item& item) const {
  if (!item.source().empty()) return;
  for (const model::Segment& s : item.content.segments) file_->drop_pages(s.offset, s.length);
}

}  // namespace msdt::weights
