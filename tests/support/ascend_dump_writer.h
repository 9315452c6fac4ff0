// Builds Ascend binary dump files (dump spec §5.3–§5.6) from a readable description, for unit
// tests and mkfixture. Every computed field (header length, sizes) can be overridden so that a test
// can build a damaged file on purpose.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace msdt::testing {

struct AscendTensorSpec {
  uint64_t data_type = 1;  // OutputDataType, DT_FLOAT (any varint, to test values past 32 bits)
  uint64_t format = 2;     // OutputFormat, FORMAT_ND
  std::vector<uint64_t> shape;
  std::optional<std::vector<uint64_t>> original_shape;
  std::optional<int32_t> sub_format;
  std::optional<uint64_t> address;
  std::optional<std::string> original_op_name;  // OriginalOp.name (outputs only)
  uint32_t buffer_type = 0;                     // buffers and workspaces
  std::vector<std::byte> payload;               // written after the header
  std::optional<uint64_t> size_override;        // the `size` field; default payload.size()
  bool unpacked_shape = false;                  // write Shape.dim unpacked
};

struct AscendDumpSpec {
  std::string version = "2.0";
  uint64_t dump_time = 0;
  std::string op_name;
  std::vector<AscendTensorSpec> inputs, outputs, buffers, workspaces;
  std::vector<std::pair<std::string, std::string>> attrs;
  std::string dfx_message;
  std::optional<uint64_t> header_length_override;
  bool whole_protobuf = false;  // old layout: payloads inside `data`, no length prefix
};

// The DumpData message alone.
std::vector<std::byte> encode_dump_data(const AscendDumpSpec& spec);
// The whole file: length prefix, message, payloads (or the whole-protobuf form).
std::vector<std::byte> write_ascend_dump(const AscendDumpSpec& spec);

}  // namespace msdt::testing
