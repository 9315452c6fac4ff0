#include "model/sniff.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "io/text.h"
#include "model/ms_lite.h"
#include "proto/wire_reader.h"

namespace msdt::model {
namespace {

uint8_t at(Bytes file, size_t i) { return static_cast<uint8_t>(file[i]); }

bool starts_with(Bytes file, std::string_view prefix, size_t from = 0) {
  return file.size() >= from + prefix.size() &&
         std::memcmp(file.data() + from, prefix.data(), prefix.size()) == 0;
}

// A varint at file[pos] (advancing pos); false when it runs off the end or is too long.
bool varint(Bytes file, size_t& pos, uint64_t& value) {
  return proto::simple_varint(reinterpret_cast<const uint8_t*>(file.data()), file.size(), pos,
                              value);
}

// The file ends inside a varint that starts at pos.
bool cut_varint(Bytes file, size_t pos) {
  if (file.size() - pos >= 10) return false;
  for (size_t i = pos; i < file.size(); ++i)
    if ((at(file, i) & 0x80) == 0) return false;
  return true;
}

// `0A` varint `0A` varint tag, then the Value's next field should be its tensor (`12`) or
// maptensor (`1A`), spec §2. The tag is checked as far as the file goes; a file that ends inside
// the first Value is still a checkpoint (the reader says where it ends).
bool looks_like_checkpoint(Bytes file) {
  if (file.empty() || at(file, 0) != 0x0A) return false;
  size_t pos = 1;
  uint64_t value_length = 0;
  if (!varint(file, pos, value_length)) return cut_varint(file, pos);
  if (pos == file.size()) return true;
  if (at(file, pos) != 0x0A) return false;
  ++pos;
  uint64_t tag_length = 0;
  if (!varint(file, pos, tag_length)) return cut_varint(file, pos);
  if (tag_length > value_length) return false;
  const size_t shown = static_cast<size_t>(std::min<uint64_t>(tag_length, file.size() - pos));
  const std::string_view tag(reinterpret_cast<const char*>(file.data()) + pos, shown);
  for (size_t i = 0; i < tag.size();) {
    const size_t n = utf8_sequence_length(tag, i);
    if (n == 0) return i + 4 > tag.size() && shown < tag_length;  // a character cut by the end
    i += n;
  }
  if (shown < tag_length || pos + tag_length == file.size()) return true;
  const uint8_t next = at(file, pos + static_cast<size_t>(tag_length));
  return next == 0x12 || next == 0x1A;
}

uint32_t u32_at(Bytes file, uint64_t offset) {
  return load_u32le(file.data() + static_cast<size_t>(offset));
}

// Walks the encryption blocks (spec §7.2): each starts with the same magic, [a 16-byte GCM tag,]
// block_len, iv_len = 16, the IV, cipher_len = block_len - 24, the ciphertext. True when they end
// exactly at the end of `file` (already without a CRC trailer).
bool blocks_tile(Bytes file, uint64_t tag_size) {
  if (file.size() < 4) return false;
  const uint32_t magic = u32_at(file, 0);
  uint64_t pos = 0;
  const uint64_t size = file.size();
  while (pos < size) {
    const uint64_t header = 4 + tag_size + 4;
    if (size - pos < header + 4 + 16 + 4) return false;
    if (u32_at(file, pos) != magic) return false;
    const uint64_t block_len = u32_at(file, pos + 4 + tag_size);
    if (u32_at(file, pos + header) != 16) return false;
    const uint64_t cipher_len = u32_at(file, pos + header + 4 + 16);
    if (block_len != 4 + 16 + 4 + cipher_len) return false;
    if (block_len > size - pos - header) return false;
    pos += 4 + tag_size + 4 + block_len;
  }
  return pos == size;
}

void sniff_encrypted(Bytes file, Sniff& out) {
  out.kind = FileKind::Encrypted;
  Bytes blocks = has_crc_trailer(file) ? file.first(file.size() - kCrcTrailerSize) : file;
  const uint8_t mode = at(file, 0);
  out.cipher = mode == 0xD8   ? CipherMode::AesGcm
               : mode == 0xD9 ? CipherMode::AesCbc
                              : CipherMode::Sm4Cbc;
  if (blocks_tile(blocks, out.cipher == CipherMode::AesGcm ? 16 : 0)) {
    out.layout = CipherLayout::Current;
  } else if (out.cipher == CipherMode::AesGcm && blocks_tile(blocks, 0)) {
    // 1.3-1.6 wrote the GCM magic for every mode and no tag (spec §7.3).
    out.layout = CipherLayout::Old;
    out.cipher = CipherMode::NotRecorded;
  }
  if (out.layout == CipherLayout::Old)
    out.description =
        "an encrypted checkpoint or MindIR (MindSpore 1.3-1.6 layout, mode not "
        "recorded)";
  else
    out.description =
        fmt::format("an encrypted checkpoint or MindIR ({}{})", cipher_mode_name(out.cipher),
                    out.layout == CipherLayout::Unverified ? ", blocks do not tile the file" : "");
}

bool is_text(Bytes file) {
  const size_t n = std::min<size_t>(file.size(), 512);
  for (size_t i = 0; i < n; ++i) {
    const uint8_t c = at(file, i);
    if (c < 0x20 && c != '\n' && c != '\r' && c != '\t') return false;
    if (c == 0x7F) return false;
  }
  return true;
}

// What a file that is none of our kinds looks like.
std::string describe_other(Bytes file) {
  if (file.empty()) return "an empty file";
  if (starts_with(file, "\x93NUMPY")) return "a NumPy .npy file";
  if (starts_with(file, "PK\x03\x04")) return "a ZIP archive (a PyTorch .pt or a NumPy .npz?)";
  if (starts_with(file, "\x1f\x8b")) return "a gzip file";
  if (starts_with(file, "\x89HDF\r\n\x1a\n")) return "an HDF5 file";
  if (starts_with(file,
                  "\x7f"
                  "ELF"))
    return "an ELF executable or library";
  if (file.size() >= 2 && at(file, 0) == 0x80 && at(file, 1) >= 2 && at(file, 1) <= 5)
    return "a Python pickle";
  if (starts_with(file, "\x08\x04\x12\x09MindSpore\x1a\x03"))
    return "an ONNX model exported by MindSpore 0.7-1.0";
  if (file.size() >= 4 && at(file, 0) == 0x08 && at(file, 2) == 0x12)
    return "a protobuf message (an ONNX model?)";
  if (is_text(file)) return "text";
  std::string first;
  for (size_t i = 0; i < std::min<size_t>(file.size(), 8); ++i)
    first += fmt::format("{}{:02x}", i ? " " : "", at(file, i));
  return fmt::format("unrecognised data (first bytes {})", first);
}

}  // namespace

bool has_crc_trailer(Bytes file) {
  return file.size() >= kCrcTrailerSize &&
         starts_with(file, "crc_num", file.size() - kCrcTrailerSize);
}

Sniff sniff(Bytes file) {
  Sniff out;
  const size_t n = file.size();
  if (n >= 4 && at(file, 1) == 0x5E && at(file, 2) == 0x3A && at(file, 3) == 0x7F &&
      at(file, 0) >= 0xD8 && at(file, 0) <= 0xDA) {
    sniff_encrypted(file, out);
  } else if (starts_with(file,
                         "\x0a\x05"
                         "0.1.")) {
    out.kind = FileKind::MindIR;
    out.description = "a MindIR model (MindSpore 1.1+)";
  } else if (starts_with(file, "\x08\x04\x12\x09MindSpore\x28\x01")) {
    out.kind = FileKind::MindIRLegacy;
    out.description = "a MindIR model (MindSpore 0.7-1.0, ONNX-based)";
  } else if (starts_with(file, "\x08\x01\x22")) {
    out.kind = FileKind::GraphMeta;
    out.description = "a -graph.meta graph (anf_ir ModelProto)";
  } else if (starts_with(file, "MSL2", 4) || starts_with(file, "MSL1", 4)) {
    out.kind = FileKind::MsLite;
    out.lite_identifier.assign(reinterpret_cast<const char*>(file.data()) + 4, 4);
    out.description = fmt::format("a MindSpore Lite model ({})", out.lite_identifier);
  } else if (n >= 10 && load_u64le(file.data()) >= 2 && at(file, 8) == '{' && at(file, 9) == '"') {
    out.kind = FileKind::Safetensors;
    out.description = "a safetensors file";
  } else if (has_crc_trailer(file) &&
             (n == kCrcTrailerSize || looks_like_checkpoint(file.first(n - kCrcTrailerSize)))) {
    // A trailer alone is a checkpoint with no parameter.
    out.kind = FileKind::CheckpointWithCrc;
    out.description = "a MindSpore checkpoint (with a CRC trailer)";
  } else if (looks_like_checkpoint(file)) {
    out.kind = FileKind::Checkpoint;
    out.description = "a MindSpore checkpoint";
  } else if (auto legacy = lite_legacy_schema(file)) {
    // 0.7-1.0 wrote no identifier: the root table's shape is the evidence (model/ms_lite.h).
    out.kind = FileKind::MsLite;
    out.description = fmt::format("a MindSpore Lite model (no identifier: {} schema)",
                                  lite_legacy_schema_name(*legacy));
  } else {
    out.description = describe_other(file);
  }
  return out;
}

std::string_view file_kind_name(FileKind kind) {
  switch (kind) {
    case FileKind::Checkpoint:
      return "checkpoint";
    case FileKind::CheckpointWithCrc:
      return "checkpoint-crc";
    case FileKind::Encrypted:
      return "encrypted";
    case FileKind::Safetensors:
      return "safetensors";
    case FileKind::MindIR:
      return "mindir";
    case FileKind::MindIRLegacy:
      return "mindir-legacy";
    case FileKind::GraphMeta:
      return "graph-meta";
    case FileKind::MsLite:
      return "ms-lite";
    case FileKind::Unknown:
      break;
  }
  return "unknown";
}

std::string_view cipher_mode_name(CipherMode mode) {
  switch (mode) {
    case CipherMode::AesGcm:
      return "AES-GCM";
    case CipherMode::AesCbc:
      return "AES-CBC";
    case CipherMode::Sm4Cbc:
      return "SM4-CBC";
    case CipherMode::NotRecorded:
      break;
  }
  return "not recorded";
}

Error not_a_checkpoint(const Sniff& sniffed) {
  return Error("not a checkpoint: looks like " + sniffed.description);
}

}  // namespace msdt::model
