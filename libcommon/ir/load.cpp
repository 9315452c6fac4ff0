#include "ir/load.h"

#include <fmt/format.h>

#include "io/crlf.h"
#include "ir/dat_parser.h"
#include "ir/graph_proto.h"
#include "ir/mindir_graph.h"
#include "ir/text_parser.h"
#include "model/sniff.h"

namespace msdt::ir {
namespace {

// A protobuf message starts with a field key: GraphProto's fields 1-5 and ModelProto's 1-5 are
// length-delimited (wire type 2) except ModelProto.ir_version (1, varint).
bool may_be_protobuf(Bytes data) {
  if (data.empty()) return false;
  auto key = static_cast<uint8_t>(data[0]);
  uint8_t field = key >> 3, wire = key & 7;
  return field >= 1 && field <= 5 && (wire == 2 || (field == 1 && wire == 0));
}

bool is_text(Bytes data) {
  size_t n = std::min<size_t>(data.size(), 4096);
  for (size_t i = 0; i < n; ++i)
    if (data[i] == std::byte{0}) return false;
  return true;
}

std::string what_it_looks_like(std::string_view text, Bytes data) {
  if (data.size() >= 6 && std::string_view(text.data(), 6) == "\x93NUMPY") return "a NumPy array";
  if (text.starts_with("digraph") || text.starts_with("strict digraph"))
    return "Graphviz DOT (perhaps MindSpore's own .dot)";
  if (text.empty()) return "an empty file";
  return "";
}

// `binary_kind`, when given, says which binary format loaded ("MindIR model", "MindSpore graph
// protobuf"); it stays empty for text.
Loaded load(Bytes data, std::string* binary_kind) {
  Loaded out;
  std::string_view text(reinterpret_cast<const char*>(data.data()), data.size());
  auto refuse = [&](std::string why) {
    out.not_a_graph = std::move(why);
    out.module = Error("not a graph file: " + out.not_a_graph);
    return std::move(out);
  };
  if (std::string looks = what_it_looks_like(text, data); !looks.empty())
    return refuse("looks like " + looks);
  // A MindIR model (mindir spec §2), recognised by its header before any other reading.
  if (auto kind = model::sniff(data).kind;
      kind == model::FileKind::MindIR || kind == model::FileKind::MindIRLegacy) {
    out.module = parse_mindir(data);
    if (binary_kind) *binary_kind = "MindIR model";
    return out;
  }
  std::string why;
  if (is_text(data)) {
    if (looks_like_dat_text(text)) {
      out.module = parse_dat_text(text);
      return out;
    }
    if (looks_like_graph_text(text, why)) {
      out.module = parse_ir_text(text);
      return out;
    }
  }
  // A protobuf message may hold no zero byte in its first 4 KiB: text that is no graph text is
  // tried as one too.
  if (may_be_protobuf(data)) {
    auto module = parse_model_proto(data);
    if (module && !module->graphs.empty() && !module->graphs.front().nodes.empty()) {
      out.module = std::move(module);
      if (binary_kind) *binary_kind = "MindSpore graph protobuf";
      return out;
    }
    if (!module && !is_text(data)) {
      // A protobuf-looking file the decoder could not read: a damaged graph or something else.
      return refuse(fmt::format("binary data that is not a MindSpore graph protobuf ({})",
                                module.error().describe()));
    }
  }
  if (!why.empty()) return refuse(why);
  return refuse("binary data, neither graph text nor a graph protobuf");
}

}  // namespace

Loaded load_graph(Bytes data) { return load(data, nullptr); }

void explain_line_endings(Loaded& loaded, Bytes data, std::string_view path) {
  if (loaded.module) return;
  // Only a binary graph is damaged by CR LF: text with CR LF line ends is just text.
  auto parse = [](Bytes repaired) -> std::optional<std::string> {
    std::string kind;
    Loaded again = load(repaired, &kind);
    if (!again.module || kind.empty()) return std::nullopt;
    return kind;
  };
  if (explain_line_ending_damage(loaded.module.error(), data, path, parse))
    loaded.not_a_graph.clear();
}

}  // namespace msdt::ir
