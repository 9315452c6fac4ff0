// What kind of model file a byte string is, from its first bytes (and, for the CRC trailer and the
// encryption container, its last bytes and block headers), before any reader is chosen
// (checkpoint spec §2, mindir spec §2, §6, §9). The extension is only a hint, so ckpt-inspect asks
// this first and says "not a checkpoint: looks like …" for a file of another kind instead of
// failing on its bytes.
//
// A `.ckpt` has no magic number: `0A`, a varint, then `0A` (the first Value's tag) is the rule,
// confirmed by a bounded look at that Value (its tag is followed by a tensor or a maptensor). A
// file cut short inside that first Value still counts as a checkpoint, so that the reader can say
// where it ends. A MindSpore Lite model of 0.7-1.0 has no identifier either: its FlatBuffers root
// table is checked for that schema's MetaGraph shape (model/ms_lite.h lite_legacy_schema), so
// that random bytes are not taken for one. Nothing here reads more than a few headers.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "io/byte_reader.h"

namespace msdt::model {

enum class FileKind : uint8_t {
  Checkpoint,         // plain `.ckpt`
  CheckpointWithCrc,  // `.ckpt` ending in the 17-byte `crc_num` trailer of 2.3+ (spec §6)
  Encrypted,          // MindSpore's encryption container: a `.ckpt` or a `.mindir` (spec §7)
  Safetensors,        // spec §8
  MindIR,             // `mind_ir` ModelProto, MindSpore 1.1+ (mindir spec §2)
  MindIRLegacy,       // ONNX-based MindIR, MindSpore 0.7-1.0
  GraphMeta,          // `{prefix}-graph.meta`: an `anf_ir` ModelProto (spec §10)
  MsLite,             // MindSpore Lite `.ms` (FlatBuffers, mindir spec §9), 0.7-1.0 included
  Unknown,
};

// The encryption mode the magic names (spec §7.2). The 1.3-1.6 layout has one magic whatever the
// mode, so its mode is not recorded in the file.
enum class CipherMode : uint8_t { AesGcm, AesCbc, Sm4Cbc, NotRecorded };

// How the encryption container's blocks were found to lie (spec §7.2, §7.3).
enum class CipherLayout : uint8_t {
  Current,     // 1.7+: blocks tile the file (up to a CRC trailer) with the magic's own layout
  Old,         // 1.3-1.6: magic directly followed by block_len, no GCM tag
  Unverified,  // neither layout's blocks tile the file (cut short or damaged)
};

struct Sniff {
  FileKind kind = FileKind::Unknown;
  CipherMode cipher = CipherMode::NotRecorded;     // Encrypted
  CipherLayout layout = CipherLayout::Unverified;  // Encrypted
  std::string lite_identifier;                     // MsLite: "MSL1", "MSL2" or "" (0.7-1.0)
  // What the file looks like, to follow "looks like": "a MindSpore checkpoint", "a MindIR model
  // (MindSpore 1.1+)", "an encrypted checkpoint or MindIR (AES-GCM)", "a NumPy .npy file", "a ZIP
  // archive (a PyTorch .pt?)", "an empty file", "unrecognised data (first bytes 12 34 56 78)".
  std::string description;

  bool is_checkpoint() const {
    return kind == FileKind::Checkpoint || kind == FileKind::CheckpointWithCrc;
  }
};

// `file` is the whole file (mapped): the CRC trailer is at its end.
Sniff sniff(Bytes file);

// "checkpoint", "checkpoint-crc", "encrypted", "safetensors", "mindir", "mindir-legacy",
// "graph-meta", "ms-lite", "unknown": the words `--info` and JSON output use.
std::string_view file_kind_name(FileKind kind);
// "AES-GCM", "AES-CBC", "SM4-CBC", "not recorded" (MindSpore's own spellings of enc_mode).
std::string_view cipher_mode_name(CipherMode mode);

// "not a checkpoint: looks like <description>", for a sniff that is not a checkpoint.
Error not_a_checkpoint(const Sniff& sniffed);

// The 17-byte trailer `"crc_num"` + 10-byte big-endian CRC-32 (spec §6) at the end of `file`.
inline constexpr uint64_t kCrcTrailerSize = 17;
bool has_crc_trailer(Bytes file);

}  // namespace msdt::model
