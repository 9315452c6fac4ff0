// The file contents a description entry can ask for (README.md, "Content keys").
#pragma once

#include <cstddef>
#include <vector>

#include "description.h"

namespace msdt::fixture {

// "npy": a .npy file; the standard header comes from libcommon's make_npy_header, any override
// (descr, version, align, header_text, …) builds the header text here.
std::vector<std::byte> build_npy(const Node& npy);
// "raw": element bytes only (format A .bin, msprobe raw files).
std::vector<std::byte> build_raw(const Node& raw);
// "ascend": a DumpData container through tests/support/ascend_dump_writer.h.
std::vector<std::byte> build_ascend(const Node& ascend);
// "overflow": an Opdebug file, a container whose output[0] holds the overflow payload.
std::vector<std::byte> build_overflow_file(const Node& overflow);
// The payload alone (dump spec §5.8), old 2048-byte or new 0x5A5A5A5A layout.
std::vector<std::byte> build_overflow_payload(const Node& overflow);

// "ir": a MindSpore graph text dump (.ir) in one version's style (ir spec §2-§5).
std::vector<std::byte> build_ir(const Node& ir);
// "graph_proto": one graph of the same description as an anf_ir.proto GraphProto, or a ModelProto
// with "model": true (summary spec §6).
std::vector<std::byte> build_graph_proto(const Node& description);
// "generate" inside an ir or graph_proto description: the description with "params" and "graphs"
// of a generated network in their place (README.md, "Generated graphs").
json generate_ir(const Node& ir);

// "summary": a MindSpore summary (_MS, _explain), _lineage or TensorBoard tfevents file from its
// events (README.md, "summary"; spec summary.md §3-§7, §15). A "generate" description is streamed
// by write_generated_summary (writers.h) instead.
std::vector<std::byte> build_summary(const Node& summary);

// The Running Data Recorder's text files (README.md, "RDR recorder files"; spec rdr.md §3):
// "rdr_exec_order": graph_exec_order.<gid>.txt, banner blocks of DebugString, stream label and
// graph id per kernel (§3.2); "rdr_memory": KERNEL.mem_address_list.txt, each kernel's input,
// workspace and output buffers (§3.4); "rdr_tasks": the Ascend task_info_graph.<gid>.ir (§3.6).
std::vector<std::byte> build_rdr_exec_order(const Node& spec);
std::vector<std::byte> build_rdr_memory(const Node& spec);
std::vector<std::byte> build_rdr_tasks(const Node& spec);

// MindSpore checkpoints (README.md, "Checkpoints"; spec checkpoint.md): "ckpt", concatenated
// Checkpoint messages with the optional §6 CRC trailer; "encrypted", the §7.2 block container
// with random bytes for ciphertext; "safetensors", a safetensors file with MindSpore's
// __metadata__ (§8).
std::vector<std::byte> build_ckpt(const Node& ckpt);
std::vector<std::byte> build_encrypted(const Node& encrypted);
std::vector<std::byte> build_safetensors(const Node& safetensors);

// "mindir": a MindIR model (mindir spec §3-§5): a `mind_ir` ModelProto (1.1+) or the ONNX-based
// 0.7-1.0 one, with its weights inline or in external data files written beside it.
std::vector<std::byte> build_mindir(const Node& mindir);
// "ms_lite": a MindSpore Lite `.ms` FlatBuffers model (mindir spec §9).
std::vector<std::byte> build_ms_lite(const Node& ms_lite);

}  // namespace msdt::fixture
