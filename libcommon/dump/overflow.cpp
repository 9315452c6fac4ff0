// Opdebug overflow payloads (dump spec §5.8), decoded into the JSON msaccucmp writes for them
// (`dump_data_parser.py`, `_parse_op_debug_old_version` and `OpDebugInfoParser`), keys in the
// order msaccucmp writes them (ordered_json keeps insertion order).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>
#include <string_view>

#include "dump/ascend_dump.h"
#include "io/text.h"

namespace msdt::dump {
namespace {

constexpr uint32_t kNewLayoutMagic = 0x5A5A5A5A;
constexpr uint64_t kOldLayoutSize = 2048;
// Block offsets of the old layout: three 128/128/256-byte info blocks, then the status blocks.
constexpr uint64_t kDhaInfo = 0, kL2Info = 128, kAiCoreInfo = 256;
constexpr uint64_t kDhaStatus = 512, kL2Status = 768, kAiCoreStatus = 1024;
// The new layout's AIC/AIV status is 4 × uint64 in version 1 (msaccucmp STATUS_LEN).
constexpr uint64_t kWideStatusWords = 4;

std::string hex(uint64_t value) { return fmt::format("{:#x}", value); }

// msaccucmp prints these as Python hex() strings (HEX_FORMAT_ITEM).
bool is_hex_field(std::string_view key) {
  return key == "pc_start" || key == "para_base" || key == "src_addr" || key == "dst_addr";
}

Expected<uint64_t> u64_at(ByteReader in, uint64_t position, std::string_view what) {
  if (auto skipped = in.skip(position)) return std::move(*skipped).with_context(what);
  auto value = in.u64le();
  if (!value) return std::move(value).error().with_context(what);
  return *value;
}

Expected<nlohmann::ordered_json> old_info_block(const ByteReader& in, uint64_t start,
                                                std::string_view block) {
  static constexpr std::array<std::string_view, 6> kKeys{"model_id",  "stream_id", "task_id",
                                                         "task_type", "pc_start",  "para_base"};
  nlohmann::ordered_json info = nlohmann::ordered_json::object();
  for (size_t i = 0; i < kKeys.size(); ++i) {
    MSDT_TRY(uint64_t value, u64_at(in, start + 8 * i, block));
    if (is_hex_field(kKeys[i])) {
      info[std::string(kKeys[i])] = hex(value);
    } else {
      info[std::string(kKeys[i])] = value;
    }
  }
  return info;
}

Expected<nlohmann::ordered_json> decode_old_layout(Bytes payload, uint64_t base_offset) {
  if (payload.size() != kOldLayoutSize)
    return Error::at_offset(base_offset,
                            fmt::format("overflow record of the old layout must be {} bytes, "
                                        "found {} (and no 0x5a5a5a5a magic)",
                                        kOldLayoutSize, payload.size()));
  const ByteReader in(payload, base_offset);
  MSDT_TRY(nlohmann::ordered_json dha, old_info_block(in, kDhaInfo, "DHA Atomic Add"));
  MSDT_TRY(nlohmann::ordered_json l2, old_info_block(in, kL2Info, "L2 Atomic Add"));
  MSDT_TRY(nlohmann::ordered_json ai_core, old_info_block(in, kAiCoreInfo, "AI Core"));
  MSDT_TRY(dha["status"], u64_at(in, kDhaStatus, "DHA Atomic Add"));
  MSDT_TRY(l2["status"], u64_at(in, kL2Status, "L2 Atomic Add"));
  MSDT_TRY(uint64_t kernel_code, u64_at(in, kAiCoreStatus, "AI Core"));
  ai_core["kernel_code"] = hex(kernel_code);
  MSDT_TRY(ai_core["block_idx"], u64_at(in, kAiCoreStatus + 8, "AI Core"));
  MSDT_TRY(ai_core["status"], u64_at(in, kAiCoreStatus + 16, "AI Core"));
  nlohmann::ordered_json out;
  out["DHA Atomic Add"] = std::move(dha);
  out["L2 Atomic Add"] = std::move(l2);
  out["AI Core"] = std::move(ai_core);
  return out;
}

std::span<const std::string_view> data_fields(std::string_view acc_type) {
  static constexpr std::array<std::string_view, 11> kAiCore{
      "model_id", "stream_id", "task_id", "task_type", "context_id", "thread_id",
      "pc_start", "para_base", "core_id", "block_id",  "status"};
  static constexpr std::array<std::string_view, 10> kSdma{
      "model_id",  "stream_id", "task_id",  "task_type",  "context_id",
      "thread_id", "src_addr",  "dst_addr", "channel_id", "status"};
  static constexpr std::array<std::string_view, 8> kAiCpu{"model_id",  "stream_id",  "task_id",
                                                          "task_type", "context_id", "cpu_id",
                                                          "thread_id", "status"};
  if (acc_type == "AIC" || acc_type == "AIV") return kAiCore;
  if (acc_type == "SDMA") return kSdma;
  if (acc_type == "AICPU") return kAiCpu;
  return {};
}

std::string_view acc_type_name(uint32_t value) {
  static constexpr std::array<std::string_view, 4> kNames{"AIC", "AIV", "AICPU", "SDMA"};
  return value < kNames.size() ? kNames[value] : std::string_view{};
}

Expected<nlohmann::ordered_json> decode_new_layout(Bytes payload, uint64_t base_offset) {
  ByteReader in(payload, base_offset);
  nlohmann::ordered_json out;
  nlohmann::ordered_json warnings = nlohmann::ordered_json::array();
  MSDT_TRY(uint32_t magic, in.u32le());
  out["magic"] = hex(magic);
  auto version = in.u32le();
  if (!version) return std::move(version).error().with_context("overflow record version");
  out["version"] = *version;

  nlohmann::ordered_json acc;
  std::array<uint32_t, 4> header{};
  static constexpr std::array<std::string_view, 4> kHeaderKeys{"valid", "acc_type", "rsv",
                                                               "data_len"};
  for (size_t i = 0; i < kHeaderKeys.size(); ++i) {
    auto value = in.u32le();
    if (!value)
      return std::move(value).error().with_context(fmt::format("acc_list {}", kHeaderKeys[i]));
    header[i] = *value;
  }
  const uint32_t valid = header[0], acc_type_value = header[1], data_len = header[3];
  const std::string_view acc_type = acc_type_name(acc_type_value);
  // msaccucmp's order: valid, acc_type, rsv, data_len, data (acc_type is filled in below).
  acc["valid"] = valid;
  acc["acc_type"] = nullptr;
  acc["rsv"] = header[2];
  acc["data_len"] = data_len;
  if (valid != 1) warnings.push_back(fmt::format("valid is {}, expected 1", valid));

  nlohmann::ordered_json data = nlohmann::ordered_json::object();
  if (acc_type.empty()) {
    // msaccucmp stops here; we keep the record and its raw words so the user sees what was there.
    acc["acc_type"] = acc_type_value;
    warnings.push_back(fmt::format("unknown acc_type {} (expected 0 AIC, 1 AIV, 2 AICPU, 3 SDMA)",
                                   acc_type_value));
    nlohmann::ordered_json words = nlohmann::ordered_json::array();
    const uint64_t word_count = std::min<uint64_t>(data_len, in.remaining()) / 8;
    for (uint64_t i = 0; i < word_count; ++i) words.push_back(*in.u64le());
    acc["data"] = std::move(words);
  } else {
    acc["acc_type"] = std::string(acc_type);
    const bool wide_status = (acc_type == "AIC" || acc_type == "AIV") && *version == 1;
    const auto fields = data_fields(acc_type);
    const uint64_t expected_len = 8 * (fields.size() + (wide_status ? kWideStatusWords - 1 : 0));
    if (data_len != expected_len)
      warnings.push_back(fmt::format("data_len is {}, expected {} for {} version {}", data_len,
                                     expected_len, acc_type, *version));
    for (std::string_view key : fields) {
      const std::string name(key);
      if (key == "status" && wide_status) {
        nlohmann::ordered_json status = nlohmann::ordered_json::array();
        for (uint64_t i = 0; i < kWideStatusWords; ++i) {
          auto word = in.u64le();
          if (!word)
            return std::move(word).error().with_context(fmt::format("{} status", acc_type));
          status.push_back(*word);
        }
        data[name] = std::move(status);
        continue;
      }
      auto value = in.u64le();
      if (!value) return std::move(value).error().with_context(fmt::format("{} {}", acc_type, key));
      if (is_hex_field(key)) {
        data[name] = hex(*value);
      } else {
        data[name] = *value;
      }
    }
    acc["data"] = std::move(data);
  }
  out["acc_list"] = std::move(acc);
  if (!warnings.empty()) out["warnings"] = std::move(warnings);
  return out;
}

}  // namespace

Expected<nlohmann::json> parse_overflow_json(std::string_view text) {
  if (text.size() > kMaxOverflowJsonBytes)
    return Error::at_offset(0, fmt::format("overflow record of {} bytes is larger than the {} "
                                           "bytes such a record can take",
                                           text.size(), kMaxOverflowJsonBytes));
  nlohmann::json record;
  try {
    record = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& error) {
    // nlohmann's message quotes the input raw; ours says only where.
    const uint64_t at = error.byte > 0 ? error.byte - 1 : 0;
    return Error::at_offset(
        at, fmt::format("overflow record is not valid JSON (near {})",
                        quote_for_message(text.substr(std::min<uint64_t>(at, text.size()), 16))));
  } catch (const nlohmann::json::exception&) {
    // out_of_range 406: a number past double ("1E880"), which nlohmann rejects without a place.
    return Error::at_offset(0, "overflow record is not valid JSON (a number out of range)");
  }
  if (!record.is_object()) return Error::at_offset(0, "overflow record is not a JSON object");
  static constexpr std::array<std::string_view, 3> kBlocks{"DHA Atomic Add", "L2 Atomic Add",
                                                           "AI Core"};
  bool any = false;
  for (std::string_view block : kBlocks) {
    auto found = record.find(std::string(block));
    if (found == record.end()) continue;
    if (!found->is_object())
      return Error::at_offset(0, fmt::format("overflow record: '{}' is not an object", block));
    any = true;
  }
  if (!any)
    return Error::at_offset(0,
                            "overflow record has none of the blocks 'DHA Atomic Add', 'L2 Atomic "
                            "Add', 'AI Core'");
  return record;
}

Expected<nlohmann::ordered_json> decode_overflow(Bytes payload, uint64_t base_offset) {
  if (payload.size() >= 4 && load_u32le(payload.data()) == kNewLayoutMagic)
    return decode_new_layout(payload, base_offset);
  return decode_old_layout(payload, base_offset);
}

}  // namespace msdt::dump
