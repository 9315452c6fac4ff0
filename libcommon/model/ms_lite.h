// The MindSpore Lite `.ms` reader (mindir spec §9): a FlatBuffers `MetaGraph` read by hand, every
// offset and length checked against the file, no generated code.
//
// Files with the identifier "MSL2" (MindSpore Lite 1.2 and later) are decoded, and so are the
// files of 0.7-1.0, which have no identifier: their root table is recognised by its shape
// (lite_legacy_schema) and read with their own MetaGraph field numbers (0.7: name, fmkType,
// inputIndex, outputIndex, mempoolSize, nodes, allTensors; 1.0 adds version after name). Their
// Tensor tables end at quantParams: no name, no compression, no externalData. "MSL1" (1.1) is
// identified and left undecoded, as Netron does (§8, §9.1). A file whose bytes 4-7 are neither
// and whose root table has no 0.7-1.0 MetaGraph shape gives identifier "" and is not decoded.
//
// Reading lists the graph's header, its tensors and where each tensor's bytes lie, never the
// bytes themselves (model/content.h). Damage does not lose what came before it: a bad offset, a
// vector past the end of the file or a broken table goes to `problems` with its offset, that
// field (or that tensor) is left out, and the rest is read:
//   offset 0x1a4: allTensors[3] 'conv1.weight': dims: vector of 4000000000 elements goes past
//   the end of the file (1234 bytes)
// FlatBuffers offsets to tables, vectors and strings are unsigned and point forward, and the
// schema has no recursive table, so no offset can lead into a cycle. Tables shared by many vector
// entries could still make a small file decode into a huge listing; decoding stops with a problem
// once what it holds passes 32 times the file's size (64 KiB at least).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/byte_reader.h"
#include "model/content.h"
#include "tensor/dtype.h"

namespace msdt::model {

// Tensor.externalData (v1.6+): the tensor's bytes in another file.
struct MsLiteExternal {
  std::string location;
  std::string checksum;
  int64_t offset = 0;
  int64_t length = -1;
};

struct MsLiteTensor {
  uint64_t offset = 0;  // the Tensor table in the file
  std::string name;
  int32_t node_type = 0;  // 0 ValueNode (a constant), 1 Parameter, 2 CNode (an op's output)
  int32_t data_type = 0;  // a MindSpore TypeId (§9.4)
  // "Float32"; for a TypeId of 45 and up whose release the version does not name, the number and
  // its candidates: "TypeId 47 (Int4, Complex128, Complex64, Complex or Float8E5M2 by release)".
  std::string data_type_name;
  std::vector<int32_t> dims;  // as written; -1 marks a dynamic axis of an input
  // spelling = data_type_name; dtype when the TypeId is known and has an element layout (not
  // String: Lite packs strings its own way); dims and shape when no dim is negative; one segment,
  // the `data` vector's absolute range, when the tensor holds data (none when `data` is absent or
  // empty). expected_bytes is not set for compressed weights (their bytes are not elements).
  Content content;
  int32_t format = 0;
  std::string format_name;  // "NCHW", or "Format 42" outside the §9.3 enum
  uint32_t quant_params = 0;
  bool huffman = false;       // enableHuffmanCode
  int32_t compress_type = 0;  // weightQuantCompressType
  std::string compress_name;  // "NONE", "FSE", …, or "WeightQuantCompressType 9"
  bool external = false;      // externalData holds an entry
  std::vector<MsLiteExternal> external_data;
  // The one externalData entry whose range is sound (offset and length not negative, their sum
  // below 2^63): content.segments then holds that range, in the file `location` names beside the
  // model. nullopt for no entry, several, or a damaged one (a problem says which).
  std::optional<size_t> external_range;

  bool compressed() const { return huffman || compress_type != 0; }
};

// The schema of a file without an identifier, from the shape of its root table.
enum class LiteLegacySchema : uint8_t { V0_7, V1_0 };
// "0.7", "1.0".
std::string_view lite_legacy_schema_name(LiteLegacySchema schema);

// The 0.7-1.0 schema `file` was written with, when it has no identifier and its root table has
// that schema's MetaGraph shape: a 4-aligned root offset followed (after zero padding) by the
// root table's vtable and the table, as the builder writes them last (so a FlatBuffers file with
// an identifier, a TFLite model say, is not one), a vtable that ends at allTensors (7 fields in
// 0.7, 8 in 1.0: FlatBuffers trims a vtable after its last present field, and every model has
// tensors), 4-byte fields 4-aligned inside the table, the strings NUL-terminated and the vectors
// inside the file, allTensors' first tables with vtables no longer than the 0.7-1.0 Tensor's.
// nullopt otherwise (sniff says "unrecognised").
std::optional<LiteLegacySchema> lite_legacy_schema(Bytes file);

struct MsLite {
  uint64_t file_size = 0;
  std::string identifier;                  // "MSL2", "MSL1", or "" (none)
  std::optional<LiteLegacySchema> legacy;  // no identifier: the 0.7-1.0 schema it was read with
  bool supported = false;  // MSL2 and 0.7-1.0: decoded; MSL1 and others: only identified
  std::string name;
  std::string version;  // "MindSpore Lite 2.2.0" as the converter writes it
  // The release the version names as "major.minor" ("2.2"), "" when it names none; TypeIds of 45
  // and up are resolved only with it (§9.4).
  std::string release;
  int32_t fmk_type = 0;
  uint64_t node_count = 0, tensor_count = 0, subgraph_count = 0;
  std::vector<std::string> subgraph_names;
  std::vector<uint32_t> inputs, outputs;  // MetaGraph.inputIndex, outputIndex
  bool obfuscated = false;
  std::vector<MsLiteTensor> tensors;  // allTensors in order; a damaged entry is left out
  std::vector<Error> problems;        // in the order found; each has an offset
};

// `file` is the whole file (usually mapped); offsets are from its start.
MsLite read_ms_lite(Bytes file);

// A TypeId's name as §9.4 gives it: values up to 44 in every release, from 45 on only with the
// `version` string of a known release (MetaGraph.version, "MindSpore Lite x.y.z"); otherwise
// "TypeId N (…)" with the candidates of the releases that write MSL2 (1.2 and later). dtype is
// set when the name has an element layout.
struct LiteType {
  std::string name;
  std::optional<DType> dtype;
  bool resolved = false;  // the name is the TypeId's, not a list of candidates
};
LiteType lite_type(int32_t type_id, std::string_view version);
// The TypeId a name has in the release `version` names (mkfixture writes descriptions with it);
// nullopt for a name that release does not have, or a name of 45 and up without a known release.
std::optional<int32_t> lite_type_id(std::string_view name, std::string_view version);
// "2.2" from "MindSpore Lite 2.2.10"; "" when the text names no release whose TypeId table §9.4
// gives (0.7 to 2.7; 0.7-1.0 end at 44).
std::string lite_release(std::string_view version);

// "NCHW" … "NC8HW8" (§9.3), or "" for a number outside the enum. Before 1.2 (`legacy`: the
// 0.7-1.1 ops.fbs) the enum ran NCHW … NC4 (0-12), then NC4HW4 = 100 and NUM_OF_FORMAT = 101.
std::string_view lite_format_name(int32_t format, bool legacy = false);
// "NONE", "INDEXING", …, "FSE_INFER", or "".
std::string_view lite_compress_name(int32_t type);

}  // namespace msdt::model
