// The Running Data Recorder's text files (docs: README.md, "RDR recorder files"; format:
// spec/rdr.md §3.2, §3.4, §3.6), each laid out byte for byte as MindSpore writes it:
//   "rdr_exec_order": graph_exec_order.<gid>.txt (DumpGraphExeOrder, graph_exec_order_recorder.cc)
//   "rdr_memory":     KERNEL.mem_address_list.txt (MemInfo2String, mem_address_recorder.cc)
//   "rdr_tasks":      task_info_graph.<gid>.ir (TaskGenerator::SaveTaskDebugInfoToFile, 1.5)
// Counts and the composed DebugStrings are computed unless the description overrides them.
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "payloads.h"

namespace msdt::fixture {
namespace {

std::vector<std::byte> to_bytes(const std::string& text) {
  std::vector<std::byte> bytes;
  bytes.reserve(text.size());
  for (char c : text) bytes.push_back(static_cast<std::byte>(c));
  return bytes;
}

// "M.m" -> {M, m}; the DebugString spelling changed at 2.0 ('@') and 2.2 (CNode_N).
std::pair<uint64_t, uint64_t> parse_version(const Node& node) {
  const std::string text = node.string();
  const size_t dot = text.find('.');
  auto major = parse_u64_literal(text.substr(0, dot));
  auto minor = dot == std::string::npos ? std::optional<uint64_t>(0)
                                        : parse_u64_literal(text.substr(dot + 1));
  if (!major || !minor || *major > 99 || *minor > 99)
    node.fail("expected a version such as \"1.5\" or \"2.3\", found \"" + text + "\"");
  return {*major, *minor};
}

// An unsigned integer field, or `fallback` when the key is absent.
uint64_t u64_or(const Node& object, std::string_view key, uint64_t fallback) {
  auto n = object.find(key);
  return n ? n->u64() : fallback;
}

// ---- graph_exec_order (§3.2) ----

const std::string kExecBanner = "================== execution order ==================\n";

std::vector<std::byte> exec_order(const Node& spec) {
  spec.check_keys({"blocks", "version"});
  std::pair<uint64_t, uint64_t> version{2, 3};
  if (auto v = spec.find("version")) version = parse_version(*v);
  const bool at_sign = version.first >= 2;                                                  // 2.0+
  const bool new_names = version.first > 2 || (version.first == 2 && version.second >= 2);  // 2.2+

  std::ostringstream out;
  uint64_t k = 0;  // node position across the file, for the default names
  for (const auto& block : spec.at("blocks").elements()) {
    block.check_keys({"graph", "graph_id", "stream_label", "size", "close", "nodes"});
    const uint64_t graph_id = u64_or(block, "graph_id", 0);
    const std::string graph = block.has("graph") ? block.at("graph").string()
                                                 : "kernel_graph_" + std::to_string(graph_id);
    const uint64_t stream_label = u64_or(block, "stream_label", 0);
    const auto nodes = block.has("nodes") ? block.at("nodes").elements() : std::vector<Node>{};

    out << kExecBanner;
    out << "execution_order size: " << u64_or(block, "size", nodes.size()) << "\n";
    for (size_t i = 0; i < nodes.size(); ++i) {
      const Node& n = nodes[i];
      n.check_keys({"name", "op", "inputs", "graph", "graph_id", "stream_label", "debug"});
      ++k;
      std::string debug;
      if (auto d = n.find("debug")) {
        for (auto key : {"name", "op", "inputs", "graph"})
          if (n.has(key))
            n.at(key).fail("has no effect beside \"debug\", which gives the whole DebugString");
        debug = d->string();
      } else {
        const std::string name = n.has("name") ? n.at("name").string()
                                 : new_names   ? "CNode_" + std::to_string(k)
                                               : "[CNode]" + std::to_string(k);
        const std::string node_graph = n.has("graph") ? n.at("graph").string() : graph;
        debug = (at_sign ? "@" : "") + node_graph + ":" + name + "{[0]: ValueNode<Primitive> " +
                n.at("op").string();
        if (auto inputs = n.find("inputs")) {
          const auto list = inputs->elements();
          for (size_t j = 0; j < list.size(); ++j)
            debug += ", [" + std::to_string(j + 1) + "]: " + list[j].string();
        }
        debug += "}";
      }
      out << i << ":\n";
      out << "\t" << debug << "\n";
      out << "\t" << u64_or(n, "stream_label", stream_label) << "\n";
      out << "\t" << u64_or(n, "graph_id", graph_id) << "\n";
    }
    if (!block.has("close") || block.at("close").boolean()) out << kExecBanner;
  }
  return to_bytes(out.str());
}

// ---- KERNEL.mem_address_list (§3.4) ----

// One buffer [address, size]: the address is text as printed ("0x7f…", "0"), the size an integer.
// `expected` names what the list takes ("[address, size] or null" in the memory list).
std::pair<std::string, uint64_t> buffer(const Node& node, std::string_view expected) {
  if (!node.is_array() || node.value().size() != 2)
    node.fail("expected " + std::string(expected) + ", found " + brief(node.value()));
  const auto pair = node.elements();
  return {pair[0].string(), pair[1].u64()};
}

// MemInfo2String: "<label> <n>", then "&<addr> #<size>" for each buffer that is not null.
void mem_list(std::ostringstream& out, const Node& kernel, const std::string& label,
              std::string_view key, std::string_view declared) {
  const auto list = kernel.has(key) ? kernel.at(key).elements() : std::vector<Node>{};
  out << label << " " << u64_or(kernel, declared, list.size()) << "\n";
  for (const auto& b : list) {
    if (b.value().is_null()) continue;
    auto [address, size] = buffer(b, "[address, size] or null");
    out << "&" << address << " #" << size << "\n";
  }
}

std::vector<std::byte> memory(const Node& spec) {
  spec.check_keys({"kernels", "final_blank"});
  std::ostringstream out;
  for (const auto& kernel : spec.at("kernels").elements()) {
    kernel.check_keys({"op", "inputs", "workspaces", "outputs", "declared_inputs",
                       "declared_workspaces", "declared_outputs"});
    out << kernel.at("op").string() << "\n";
    mem_list(out, kernel, "kernel_inputs", "inputs", "declared_inputs");
    mem_list(out, kernel, "kernel_workspaces", "workspaces", "declared_workspaces");
    mem_list(out, kernel, "kernel_outputs", "outputs", "declared_outputs");
    out << "\n";
  }
  std::string text = out.str();
  if (spec.has("final_blank") && !spec.at("final_blank").boolean() && !text.empty())
    text.pop_back();
  return to_bytes(text);
}

// ---- task_info_graph (§3.6) ----

// "input address:<addr>(<size>)\t…" with a tab after every buffer; no line for an empty list.
void task_addresses(std::ostringstream& out, const Node& task, std::string_view key,
                    const std::string& label) {
  if (!task.has(key)) return;
  const auto list = task.at(key).elements();
  if (list.empty()) return;
  out << label << ":";
  for (const auto& b : list) {
    auto [address, size] = buffer(b, "[address, size]");
    out << address << "(" << size << ")\t";
  }
  out << "\n";
}

std::vector<std::byte> tasks(const Node& spec) {
  spec.check_keys({"tasks"});
  std::ostringstream out;
  const auto list = spec.at("tasks").elements();
  for (size_t i = 0; i < list.size(); ++i) {
    const Node& t = list[i];
    t.check_keys({"op_name", "task_index", "task_num", "stream_id", "type", "dump_flag", "inputs",
                  "outputs", "workspaces"});
    const bool dump_flag = t.has("dump_flag") && t.at("dump_flag").boolean();
    out << "op_name:" << t.at("op_name").string() << "\n"
        << "task_index:" << u64_or(t, "task_index", i) << "\t"
        << "task_num:" << u64_or(t, "task_num", 1) << "\t"
        << "task0_stream_id:" << u64_or(t, "stream_id", 0) << "\t"
        << "task0_type:" << u64_or(t, "type", 0) << "\t"
        << "task0_dump_flag:" << (dump_flag ? 1 : 0) << "\n";  // a bool through operator<<
    task_addresses(out, t, "inputs", "input address");
    task_addresses(out, t, "outputs", "output address");
    task_addresses(out, t, "workspaces", "workspace address");
    out << "\n";
  }
  return to_bytes(out.str());
}

}  // namespace

std::vector<std::byte> build_rdr_exec_order(const Node& spec) { return exec_order(spec); }
std::vector<std::byte> build_rdr_memory(const Node& spec) { return memory(spec); }
std::vector<std::byte> build_rdr_tasks(const Node& spec) { return tasks(spec); }

}  // namespace msdt::fixture
