#include <map>
#include <string>

#include "elements.h"
#include "payloads.h"
#include "support/ascend_dump_writer.h"
#include "tensor/layout.h"

namespace msdt::fixture {
namespace {

// OutputDataType (dump spec §5.5) by number, "DT_FLOAT", "FLOAT" or a NumPy name.
uint64_t parse_ascend_dtype(const Node& node) {
  if (node.is_number() || (node.is_string() && parse_u64_literal(node.string()))) return node.u64();
  std::string text = node.string();
  for (uint32_t v = 0; v < 64; ++v) {
    std::string_view name = ascend_dtype_name(v);
    if (!name.empty() && (name == text || name == "DT_" + text)) return v;
  }
  if (auto dtype = parse_dtype_label(text)) {
    for (uint32_t v = 0; v < 64; ++v)
      if (dtype_from_ascend(v) == dtype) return v;
  }
  node.fail("unknown data_type \"" + text + "\"");
}

// OutputFormat (dump spec §5.6) by number, msaccucmp name ("NC1HWC0") or enum name.
uint64_t parse_ascend_format(const Node& node) {
  if (node.is_number() || (node.is_string() && parse_u64_literal(node.string()))) return node.u64();
  std::string text = node.string();
  if (text.starts_with("FORMAT_")) text = text.substr(7);
  for (uint32_t v = 0; v < 256; ++v)
    if (ascend_format_name(v) == text) return v;
  node.fail("unknown format \"" + text + "\"");
}

testing::AscendTensorSpec parse_tensor(const Node& t) {
  t.check_keys({"data_type", "format", "shape", "original_shape", "sub_format", "address",
                "original_op_name", "values", "fill", "payload_hex", "payload_size", "overflow",
                "size", "unpacked_shape", "buffer_type"});
  testing::AscendTensorSpec spec;
  if (auto d = t.find("data_type")) spec.data_type = parse_ascend_dtype(*d);
  if (auto f = t.find("format")) spec.format = parse_ascend_format(*f);
  if (auto s = t.find("shape")) spec.shape = s->u64_list();
  if (auto s = t.find("original_shape")) spec.original_shape = s->u64_list();
  if (auto s = t.find("sub_format")) spec.sub_format = static_cast<int32_t>(s->i64());
  if (auto a = t.find("address")) spec.address = a->u64();
  if (auto n = t.find("original_op_name")) spec.original_op_name = n->string();
  if (auto u = t.find("unpacked_shape")) spec.unpacked_shape = u->boolean();
  if (auto b = t.find("buffer_type")) spec.buffer_type = static_cast<uint32_t>(b->u64());

  int sources = t.has("payload_hex") + t.has("payload_size") + t.has("overflow") +
                (t.has("values") || t.has("fill"));
  if (sources > 1)
    t.fail("give only one of \"values\"/\"fill\", \"payload_hex\", \"payload_size\", \"overflow\"");
  if (auto h = t.find("payload_hex")) {
    spec.payload = parse_hex(*h);
  } else if (auto n = t.find("payload_size")) {
    spec.payload.assign(n->u64(), std::byte{0});
  } else if (auto o = t.find("overflow")) {
    spec.payload = build_overflow_payload(*o);
  } else {
    auto dtype = dtype_from_ascend(spec.data_type);
    if (!dtype) {
      if (t.has("values") || t.has("fill"))
        t.fail("data_type " + std::to_string(spec.data_type) +
               " has no element layout; use \"payload_hex\" or \"payload_size\"");
    } else if (t.has("values") || t.has("fill") || t.has("shape")) {
      uint64_t count = shape_elements(spec.shape, t);
      if (spec.shape.empty() && t.has("values")) count = t.at("values").elements().size();
      spec.payload = encode_elements(*dtype, parse_value_spec(t), count);
    }
  }
  if (auto s = t.find("size")) spec.size_override = s->u64();
  return spec;
}

std::vector<testing::AscendTensorSpec> parse_tensors(const Node& parent, std::string_view key) {
  std::vector<testing::AscendTensorSpec> out;
  if (auto list = parent.find(key))
    for (const auto& t : list->elements()) out.push_back(parse_tensor(t));
  return out;
}

testing::AscendDumpSpec parse_container(const Node& a) {
  testing::AscendDumpSpec spec;
  if (auto v = a.find("version")) spec.version = v->string();
  if (auto t = a.find("dump_time")) spec.dump_time = t->u64();
  if (auto n = a.find("op_name")) spec.op_name = n->string();
  spec.inputs = parse_tensors(a, "inputs");
  spec.outputs = parse_tensors(a, "outputs");
  spec.buffers = parse_tensors(a, "buffers");
  spec.workspaces = parse_tensors(a, "workspaces");
  if (auto attrs = a.find("attrs")) {
    // An array of pairs keeps the order; an object is written in key order.
    if (attrs->is_object()) {
      for (const auto& [k, v] : attrs->value().items())
        spec.attrs.emplace_back(k, Node(v, attrs->path() + "." + k).string());
    } else {
      for (const auto& pair : attrs->elements()) {
        auto items = pair.elements();
        if (items.size() != 2) pair.fail("expected [name, value]");
        spec.attrs.emplace_back(items[0].string(), items[1].string());
      }
    }
  }
  if (auto d = a.find("dfx_message")) spec.dfx_message = d->string();
  if (auto h = a.find("header_length")) spec.header_length_override = h->u64();
  if (auto w = a.find("whole_protobuf")) spec.whole_protobuf = w->boolean();
  return spec;
}

void put_u32(std::vector<std::byte>& out, uint64_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::byte>(v >> (8 * i)));
}
void put_u64(std::vector<std::byte>& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::byte>(v >> (8 * i)));
}

// Writes one block of the old layout: named uint64 fields, then "words", zero-padded to `size`.
void put_block(std::vector<std::byte>& out, const Node& parent, std::string_view key, size_t size,
               std::initializer_list<std::string_view> fields) {
  std::vector<uint64_t> words(size / 8, 0);
  if (auto block = parent.find(key)) {
    std::vector<std::string_view> allowed(fields);
    allowed.push_back("words");
    for (const auto& [k, unused] : block->value().items()) {
      if (std::find(allowed.begin(), allowed.end(), k) == allowed.end())
        block->fail("unknown key \"" + k + "\"");
    }
    size_t i = 0;
    for (auto f : fields) {
      if (auto v = block->find(f)) words[i] = v->u64();
      ++i;
    }
    if (auto w = block->find("words")) {
      auto list = w->u64_list();
      if (list.size() > words.size() - fields.size()) w->fail("too many words for the block");
      std::copy(list.begin(), list.end(), words.begin() + static_cast<long>(fields.size()));
    }
  }
  for (uint64_t w : words) put_u64(out, w);
}

}  // namespace

std::vector<std::byte> build_overflow_payload(const Node& o) {
  std::string layout = o.has("layout") ? o.at("layout").string() : "old";
  std::vector<std::byte> out;
  if (layout == "old") {
    o.check_keys({"layout", "dha_atomic_add", "l2_atomic_add", "ai_core", "dha_status", "l2_status",
                  "ai_core_status", "container"});
    // Dump spec §5.8, old layout: 2048 bytes of little-endian uint64 fields.
    const std::initializer_list<std::string_view> info = {"model_id",  "stream_id", "task_id",
                                                          "task_type", "pc_start",  "para_base"};
    put_block(out, o, "dha_atomic_add", 128, info);
    put_block(out, o, "l2_atomic_add", 128, info);
    put_block(out, o, "ai_core", 256, info);
    put_block(out, o, "dha_status", 256, {"status"});
    put_block(out, o, "l2_status", 256, {"status"});
    put_block(out, o, "ai_core_status", 1024, {"kernel_code"});
    return out;
  }
  if (layout != "new") o.at("layout").fail("expected \"old\" or \"new\"");
  o.check_keys({"layout", "magic", "version", "records", "container"});
  // Dump spec §5.8, new layout: magic, version, then acc_list records.
  put_u32(out, o.has("magic") ? o.at("magic").u64() : 0x5A5A5A5A);
  uint64_t version = o.has("version") ? o.at("version").u64() : 0;
  put_u32(out, version);
  static const std::map<std::string, std::vector<std::string_view>, std::less<>> fields = {
      {"AIC",
       {"model_id", "stream_id", "task_id", "task_type", "context_id", "thread_id", "pc_start",
        "para_base", "core_id", "block_id", "status"}},
      {"AIV",
       {"model_id", "stream_id", "task_id", "task_type", "context_id", "thread_id", "pc_start",
        "para_base", "core_id", "block_id", "status"}},
      {"AICPU",
       {"model_id", "stream_id", "task_id", "task_type", "context_id", "cpu_id", "thread_id",
        "status"}},
      {"SDMA",
       {"model_id", "stream_id", "task_id", "task_type", "context_id", "thread_id", "src_addr",
        "dst_addr", "channel_id", "status"}},
  };
  static const char* const kTypes[] = {"AIC", "AIV", "AICPU", "SDMA"};
  if (auto records = o.find("records")) {
    for (const auto& r : records->elements()) {
      r.check_keys({"valid", "acc_type", "rsv", "data_len", "fields", "data"});
      uint64_t acc_type = 0;
      if (auto t = r.find("acc_type")) {
        if (t->is_string()) {
          std::string name = t->string();
          bool found = false;
          for (uint64_t i = 0; i < 4; ++i)
            if (name == kTypes[i]) acc_type = i, found = true;
          if (!found) t->fail("expected AIC, AIV, AICPU or SDMA");
        } else {
          acc_type = t->u64();
        }
      }
      std::vector<uint64_t> data;
      if (auto d = r.find("data")) {
        data = d->u64_list();
      } else if (auto f = r.find("fields")) {
        if (acc_type > 3) f->fail("named fields need acc_type 0-3; use \"data\"");
        const auto& names = fields.at(kTypes[acc_type]);
        // Version 1 AIC/AIV records hold the status as 4 uint64 values.
        bool wide_status = version == 1 && acc_type <= 1;
        for (const auto& [k, unused] : f->value().items()) {
          if (std::find(names.begin(), names.end(), k) == names.end())
            f->fail("unknown field \"" + k + "\" for " + kTypes[acc_type]);
        }
        for (auto name : names) {
          auto v = f->find(name);
          if (name == "status" && wide_status) {
            std::vector<uint64_t> status(4, 0);
            if (v) {
              auto list = v->u64_list();
              if (list.size() != 4) v->fail("expected 4 status words for version 1");
              status = list;
            }
            data.insert(data.end(), status.begin(), status.end());
          } else {
            data.push_back(v ? v->u64() : 0);
          }
        }
      }
      put_u32(out, r.has("valid") ? r.at("valid").u64() : 1);
      put_u32(out, acc_type);
      put_u32(out, r.has("rsv") ? r.at("rsv").u64() : 0);
      put_u32(out, r.has("data_len") ? r.at("data_len").u64() : data.size() * 8);
      for (uint64_t v : data) put_u64(out, v);
    }
  }
  return out;
}

std::vector<std::byte> build_ascend(const Node& a) {
  a.check_keys({"version", "dump_time", "op_name", "inputs", "outputs", "buffers", "workspaces",
                "attrs", "dfx_message", "header_length", "whole_protobuf"});
  return testing::write_ascend_dump(parse_container(a));
}

std::vector<std::byte> build_overflow_file(const Node& o) {
  std::vector<std::byte> payload = build_overflow_payload(o);
  testing::AscendDumpSpec spec;
  spec.op_name = "Node_OpDebug";
  if (auto c = o.find("container")) {
    c->check_keys({"version", "dump_time", "op_name", "inputs", "attrs", "dfx_message",
                   "header_length", "whole_protobuf"});
    spec = parse_container(*c);
    if (!c->has("op_name")) spec.op_name = "Node_OpDebug";
  }
  testing::AscendTensorSpec out;
  out.data_type = 4;  // DT_UINT8
  out.format = 2;     // FORMAT_ND
  out.shape = {payload.size()};
  out.payload = std::move(payload);
  spec.outputs.insert(spec.outputs.begin(), std::move(out));
  return testing::write_ascend_dump(spec);
}

}  // namespace msdt::fixture
