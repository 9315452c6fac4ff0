#include "model/safetensors.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "support/temp_tree.h"

namespace msdt::model {
namespace {

using File = std::vector<std::byte>;

File bytes_of(std::string_view s) {
  File out(s.size());
  if (!s.empty()) std::memcpy(out.data(), s.data(), s.size());
  return out;
}

// Content bytes 0, 1, 2, … (mod 251), so a tensor's bytes show where they came from.
File pattern(size_t n, size_t start = 0) {
  File out(n);
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<std::byte>((start + i) % 251);
  return out;
}

// A safetensors file: the header size (the header's length unless given), the header as written,
// then the data.
File safetensors(std::string_view header, const File& data = {},
                 std::optional<uint64_t> size = std::nullopt) {
  File out(8);
  const uint64_t n = size.value_or(header.size());
  for (size_t i = 0; i < 8; ++i) out[i] = static_cast<std::byte>(n >> (8 * i));
  const File h = bytes_of(header);
  out.insert(out.end(), h.begin(), h.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

std::vector<std::string> described(const Safetensors& s) {
  std::vector<std::string> out;
  for (const Error& e : s.problems) out.push_back(e.describe());
  return out;
}

std::vector<std::string> names(const Safetensors& s) {
  std::vector<std::string> out;
  for (const auto& t : s.tensors) out.push_back(t.name);
  return out;
}

using Strings = std::vector<std::string>;

TEST(Safetensors, EveryDtypeName) {
  struct Case {
    const char* name;
    std::optional<DType> dtype;
    uint64_t count, bytes;
  };
  const Case cases[] = {
      {"BOOL", DType::Bool, 3, 3},
      {"U8", DType::UInt8, 3, 3},
      {"I8", DType::Int8, 3, 3},
      {"I16", DType::Int16, 3, 6},
      {"U16", DType::UInt16, 3, 6},
      {"F16", DType::Float16, 3, 6},
      {"BF16", DType::BFloat16, 3, 6},
      {"I32", DType::Int32, 3, 12},
      {"U32", DType::UInt32, 3, 12},
      {"F32", DType::Float32, 3, 12},
      {"F64", DType::Float64, 3, 24},
      {"I64", DType::Int64, 3, 24},
      {"U64", DType::UInt64, 3, 24},
      {"F8_E5M2", DType::Float8E5M2, 3, 3},
      {"F8_E4M3", DType::Float8E4M3FN, 3, 3},
      {"F8_E8M0", DType::Float8E8M0, 3, 3},
      {"C64", DType::Complex64, 3, 24},
      {"F4", DType::Float4E2M1, 4, 2},
      {"F6_E2M3", DType::Float6E2M3, 4, 3},
      {"F6_E3M2", DType::Float6E3M2, 4, 3},
      {"F8_E4M3FNUZ", std::nullopt, 3, 3},
      {"F8_E5M2FNUZ", std::nullopt, 3, 3},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string header = fmt::format(
        R"({{"t":{{"dtype":"{}","shape":[{}],"data_offsets":[0,{}]}}}})", c.name, c.count, c.bytes);
    const File file = safetensors(header, pattern(c.bytes));
    const Safetensors s = read_safetensors(file);
    EXPECT_EQ(described(s), Strings{});
    ASSERT_EQ(s.tensors.size(), 1u);
    const Content& content = s.tensors[0].content;
    EXPECT_EQ(content.spelling, c.name);
    EXPECT_EQ(content.dtype, c.dtype);
    EXPECT_EQ(safetensors_dtype(c.name), c.dtype);
    EXPECT_EQ(content.shape, std::vector<uint64_t>{c.count});
    EXPECT_EQ(content.dims, content.shape);
    EXPECT_EQ(content.expected_bytes, c.bytes);
    EXPECT_TRUE(content.consistent());
    ASSERT_EQ(content.segments.size(), 1u);
    EXPECT_EQ(content.segments[0].offset, 8 + header.size());
    EXPECT_EQ(content.segments[0].length, c.bytes);
  }
}

TEST(Safetensors, UnknownDtypeIsListedWithoutOne) {
  const File file =
      safetensors(R"({"q":{"dtype":"Q4","shape":[2],"data_offsets":[0,1]}})", pattern(1));
  const Safetensors s = read_safetensors(file);
  EXPECT_EQ(described(s), Strings{"offset 0x9: tensor 'q': unknown dtype 'Q4'"});
  ASSERT_EQ(s.tensors.size(), 1u);
  EXPECT_EQ(s.tensors[0].content.spelling, "Q4");
  EXPECT_EQ(s.tensors[0].content.dtype, std::nullopt);
  EXPECT_EQ(s.tensors[0].content.expected_bytes, std::nullopt);
  EXPECT_FALSE(tensor_data(file, s.tensors[0].content));
  auto raw = raw_data(file, s.tensors[0].content);
  ASSERT_TRUE(raw);
  EXPECT_EQ(raw->view().data.size(), 1u);
}

TEST(Safetensors, SubByteCountThatIsNotWholeBytes) {
  const File file =
      safetensors(R"({"f":{"dtype":"F4","shape":[3],"data_offsets":[0,2]}})", pattern(2));
  const Safetensors s = read_safetensors(file);
  EXPECT_EQ(described(s), Strings{"offset 0x9: tensor 'f': F4 [3] is not a whole number of bytes "
                                  "(3 elements of 4 bits)"});
  ASSERT_EQ(s.tensors.size(), 1u);
  EXPECT_EQ(s.tensors[0].content.expected_bytes, 2u);
}

TEST(Safetensors, TensorsInDataOrderWithOffsetsAndValues) {
  // Header in name order, data in the library's order (the header order is not the data order).
  const std::string header = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[4,12]},)"
                             R"("b":{"dtype":"U8","shape":[2,2],"data_offsets":[0,4]},)"
                             R"("c":{"dtype":"I64","shape":[],"data_offsets":[12,20]},)"
                             R"("d":{"dtype":"F16","shape":[0],"data_offsets":[20,20]}})";
  File data = pattern(4);
  const float floats[] = {1.5f, -2.0f};
  const int64_t scalar = -7;
  const File f = [&] {
    File out(8);
    std::memcpy(out.data(), floats, 8);
    return out;
  }();
  data.insert(data.end(), f.begin(), f.end());
  File s8(8);
  std::memcpy(s8.data(), &scalar, 8);
  data.insert(data.end(), s8.begin(), s8.end());
  const File file = safetensors(header, data);
  const Safetensors s = read_safetensors(file);
  EXPECT_EQ(described(s), Strings{});
  EXPECT_EQ(s.file_size, file.size());
  EXPECT_EQ(s.header_size, header.size());
  EXPECT_EQ(s.data_offset(), 8 + header.size());
  EXPECT_EQ(names(s), (Strings{"b", "a", "c", "d"}));
  EXPECT_EQ(s.tensors[0].header_offset, 8 + header.find("\"b\""));
  EXPECT_EQ(s.tensors[1].header_offset, 9u);
  EXPECT_EQ(s.tensors[1].content.segments[0].offset, s.data_offset() + 4);
  EXPECT_EQ(s.tensors[2].content.shape, std::vector<uint64_t>{});
  EXPECT_EQ(s.tensors[2].content.elements(), 1u);
  EXPECT_EQ(s.tensors[3].content.elements(), 0u);
  EXPECT_EQ(s.crc.status, CrcStatus::Absent);
  EXPECT_TRUE(s.metadata.empty());

  auto a = tensor_data(file, s.tensors[1].content);
  ASSERT_TRUE(a) << a.error().describe();
  EXPECT_EQ(a->view().dtype, DType::Float32);
  EXPECT_FALSE(a->copied());  // a view into the file
  ASSERT_EQ(a->view().data.size(), 8u);
  EXPECT_EQ(std::memcmp(a->view().data.data(), floats, 8), 0);
  auto c = tensor_data(file, s.tensors[2].content);
  ASSERT_TRUE(c);
  EXPECT_EQ(std::memcmp(c->view().data.data(), &scalar, 8), 0);
}

TEST(Safetensors, MetadataInFileOrder) {
  const std::string header = R"({"__metadata__":{"zeta":"1","alpha":"2","n":3,"o":{"x":[1]}},)"
                             R"("w":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})";
  const Safetensors s = read_safetensors(safetensors(header, pattern(1)));
  EXPECT_EQ(s.metadata, (std::vector<std::pair<std::string, std::string>>{
                            {"zeta", "1"}, {"alpha", "2"}, {"n", "3"}, {"o", R"({"x":[1]})"}}));
  EXPECT_EQ(described(s),
            (Strings{"offset 0x9: __metadata__ 'n': the value is 3, not a string",
                     "offset 0x9: __metadata__ 'o': the value is an object, not a string"}));
  ASSERT_NE(s.metadata_value("alpha"), nullptr);
  EXPECT_EQ(*s.metadata_value("alpha"), "2");
  EXPECT_EQ(s.metadata_value("beta"), nullptr);
  EXPECT_EQ(names(s), Strings{"w"});
}

TEST(Safetensors, MetadataNullAndNotAnObject) {
  const Safetensors null = read_safetensors(safetensors(R"({"__metadata__":null})"));
  EXPECT_EQ(described(null), Strings{});
  EXPECT_TRUE(null.metadata.empty());
  const Safetensors list = read_safetensors(safetensors(R"({"__metadata__":["a"]})"));
  EXPECT_EQ(described(list), Strings{"offset 0x9: __metadata__ is an array, not an object"});
}

// Spec §8.2, master after 2.6: "format", "remove_redundancy" and one "<param>": "Int4" per int4
// parameter, stored as its NumPy view.
TEST(Safetensors, MindSporeInt4FromMetadata) {
  const std::string header =
      R"({"__metadata__":{"format":"ms","remove_redundancy":"False","q":"Int4","w":"Float32"},)"
      R"("q":{"dtype":"I8","shape":[2,2],"data_offsets":[0,4]},)"
      R"("w":{"dtype":"U8","shape":[1],"data_offsets":[4,5]}})";
  const Safetensors s = read_safetensors(safetensors(header, pattern(5)));
  ASSERT_EQ(names(s), (Strings{"q", "w"}));
  EXPECT_EQ(s.tensors[0].mindspore_dtype, "Int4");
  EXPECT_EQ(s.tensors[0].content.dtype, DType::Int8);  // the bytes as stored
  EXPECT_TRUE(s.tensors[0].content.consistent());
  EXPECT_EQ(s.tensors[1].mindspore_dtype, "Float32");
  EXPECT_EQ(described(s), Strings{"offset 0x9: __metadata__ gives tensor 'w' the dtype 'Float32', "
                                  "which MindSpore's loader does not know (only 'Int4')"});
  ASSERT_NE(s.metadata_value("format"), nullptr);
  EXPECT_EQ(*s.metadata_value("remove_redundancy"), "False");
}

// The §8.2 CRC of tensors "b" (written first) and "a": crc32("a"), crc32(a's bytes), crc32("b"),
// crc32(b's bytes), chained in name order.
struct CrcFile {
  File a = [] {
    File out(8);
    const float v[] = {1.5f, -2.0f};
    std::memcpy(out.data(), v, 8);
    return out;
  }();
  File b = File{std::byte{1}, std::byte{2}, std::byte{3}};

  uint32_t crc() const {
    uint32_t c = crc32(bytes_of("a"));
    c = crc32(a, c);
    c = crc32(bytes_of("b"), c);
    return crc32(b, c);
  }
  File with(std::string_view crc_num) const {
    const std::string header =
        fmt::format(R"({{"__metadata__":{{"crc_num":"{}"}},)"
                    R"("b":{{"dtype":"U8","shape":[3],"data_offsets":[0,3]}},)"
                    R"("a":{{"dtype":"F32","shape":[2],"data_offsets":[3,11]}}}})",
                    crc_num);
    File data = b;
    data.insert(data.end(), a.begin(), a.end());
    return safetensors(header, data);
  }
};

TEST(Safetensors, CrcOk) {
  CrcFile f;
  // zlib.crc32 of b"a" + a + b"b" + b, computed with Python: the chaining and the order.
  ASSERT_EQ(f.crc(), 2279721639u);
  const File file = f.with("2279721639");
  const Safetensors listed = read_safetensors(file);
  EXPECT_EQ(listed.crc.status, CrcStatus::NotChecked);
  EXPECT_EQ(listed.crc.stored, 2279721639u);
  const Safetensors s = read_safetensors(file, {.verify_crc = true});
  EXPECT_EQ(described(s), Strings{});
  EXPECT_EQ(s.crc.status, CrcStatus::Ok);
  EXPECT_EQ(s.crc.computed, 2279721639u);
  EXPECT_EQ(s.crc.describe(), "CRC ok");
}

TEST(Safetensors, CrcMismatch) {
  const Safetensors s = read_safetensors(CrcFile().with("12345"), {.verify_crc = true});
  EXPECT_EQ(s.crc.status, CrcStatus::Mismatch);
  EXPECT_EQ(s.crc.stored, 12345u);
  EXPECT_EQ(described(s), Strings{"offset 0x9: __metadata__ crc_num: CRC mismatch (stored "
                                  "0x00003039, computed 0x87e1caa7)"});
}

TEST(Safetensors, CrcAbsentOrUnreadable) {
  const Safetensors absent =
      read_safetensors(safetensors(R"({"__metadata__":{"format":"ms"}})"), {.verify_crc = true});
  EXPECT_EQ(absent.crc.status, CrcStatus::Absent);
  EXPECT_EQ(absent.crc.describe(), "CRC absent");
  const Safetensors bad = read_safetensors(CrcFile().with("0x10"), {.verify_crc = true});
  EXPECT_EQ(bad.crc.status, CrcStatus::NotChecked);
  EXPECT_EQ(described(bad), Strings{"offset 0x9: __metadata__ crc_num '0x10' is not a decimal "
                                    "number"});
}

TEST(Safetensors, CrcOfATensorOutsideTheFile) {
  const std::string header =
      R"({"__metadata__":{"crc_num":"1"},"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]}})";
  const Safetensors s = read_safetensors(safetensors(header, pattern(2)), {.verify_crc = true});
  EXPECT_EQ(s.crc.status, CrcStatus::NotChecked);
  EXPECT_EQ(described(s),
            (Strings{"offset 0x28: tensor 'a': data_offsets [0, 4] go past the end of the data "
                     "(2 bytes)",
                     "offset 0x28: CRC not checked: tensor 'a' lies outside the file"}));
}

TEST(Safetensors, FileTooShortForTheHeaderSize) {
  const Safetensors s = read_safetensors(bytes_of(std::string_view("\x02\x00\x00", 3)));
  EXPECT_EQ(described(s), Strings{"offset 0x0: file of 3 bytes is too short for the 8-byte "
                                  "header size"});
  EXPECT_TRUE(s.tensors.empty());
  const Safetensors empty = read_safetensors(File{});
  EXPECT_EQ(described(empty), Strings{"offset 0x0: file of 0 bytes is too short for the 8-byte "
                                      "header size"});
}

TEST(Safetensors, HeaderSizeBeyondTheFile) {
  const Safetensors s = read_safetensors(safetensors("{}", {}, 100));
  EXPECT_EQ(described(s), Strings{"offset 0x0: header size 100 goes past the end of the file (10 "
                                  "bytes)"});
  const Safetensors huge = read_safetensors(safetensors("{}", {}, ~uint64_t{0}));
  EXPECT_EQ(huge.header_size, ~uint64_t{0});
  EXPECT_EQ(described(huge), Strings{"offset 0x0: header size 18446744073709551615 is above the "
                                     "cap of 100000000 bytes"});
}

TEST(Safetensors, HeaderSizeAboveTheCap) {
  const Safetensors s = read_safetensors(safetensors("{}", {}, 100'000'001));
  EXPECT_EQ(described(s), Strings{"offset 0x0: header size 100000001 is above the cap of "
                                  "100000000 bytes"});
  const File small = safetensors(R"({"__metadata__":{"format":"ms"}})");
  EXPECT_EQ(described(read_safetensors(small, {.max_header = 16})),
            Strings{"offset 0x0: header size 32 is above the cap of 16 bytes"});
  EXPECT_EQ(described(read_safetensors(small, {.max_header = 32})), Strings{});
}

TEST(Safetensors, HeaderNotJson) {
  const Safetensors s = read_safetensors(safetensors(R"({"a":{"dtype":})"));
  ASSERT_EQ(s.problems.size(), 1u);
  EXPECT_EQ(s.problems[0].offset, 8u + 14);  // the '}' where a value was expected
  EXPECT_EQ(s.problems[0].message.rfind("header is not JSON: syntax error while parsing value", 0),
            0u)
      << s.problems[0].message;
  EXPECT_EQ(s.problems[0].message.find('\n'), std::string::npos);

  const Safetensors cut = read_safetensors(safetensors(R"({"a":)"));
  ASSERT_EQ(cut.problems.size(), 1u);
  EXPECT_EQ(cut.problems[0].offset, 8u + 5);  // the end of the header
  // Padding with NULs is not JSON (serde_json refuses trailing characters too).
  const Safetensors nul = read_safetensors(safetensors(std::string("{}\0\0\0\0\0\0", 8)));
  EXPECT_EQ(described(nul), Strings{"offset 0xa: header is not JSON: a NUL byte"});
  // nlohmann alone would stop at the NUL and take what follows for the end of the input.
  EXPECT_EQ(described(read_safetensors(safetensors(std::string("{}\0{\"a\":", 7)))),
            Strings{"offset 0xa: header is not JSON: a NUL byte"});
  // Padding with spaces, as the library writes, is.
  EXPECT_EQ(described(read_safetensors(safetensors("{}      "))), Strings{});
  EXPECT_EQ(described(read_safetensors(safetensors(""))).size(), 1u);
}

TEST(Safetensors, HeaderNotUtf8) {
  const Safetensors s = read_safetensors(
      safetensors("{\"a\xff\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[0,0]}}"));
  EXPECT_EQ(described(s), Strings{"offset 0xb: header is not UTF-8: byte 0xff does not start a "
                                  "valid sequence"});
  // A surrogate encoded in UTF-8 is not UTF-8 either.
  EXPECT_EQ(read_safetensors(safetensors("{\"\xed\xa0\x80\":1}")).problems.size(), 1u);
}

TEST(Safetensors, HeaderNotAnObject) {
  EXPECT_EQ(described(read_safetensors(safetensors(" [1]"))),
            Strings{"offset 0x9: header is an array, not a JSON object"});
  EXPECT_EQ(described(read_safetensors(safetensors("\"x\""))),
            Strings{"offset 0x8: header is a string, not a JSON object"});
  EXPECT_EQ(described(read_safetensors(safetensors("12"))),
            Strings{"offset 0x8: header is a number, not a JSON object"});
}

TEST(Safetensors, HeaderNestedTooDeep) {
  const std::string deep =
      R"({"__metadata__":{"x":)" + std::string(200, '[') + std::string(200, ']') + "}}";
  EXPECT_EQ(described(read_safetensors(safetensors(deep))),
            Strings{"offset 0x9b: header nests deeper than 128 levels"});
  const std::string ok =
      R"({"__metadata__":{"x":)" + std::string(126, '[') + std::string(126, ']') + "}}";
  EXPECT_EQ(described(read_safetensors(safetensors(ok))),
            Strings{"offset 0x9: __metadata__ 'x': the value is an array, not a string"});
}

TEST(Safetensors, EntriesMissingKeysAreLeftOut) {
  const std::string header = R"({"a":{"shape":[1],"data_offsets":[0,1]},)"
                             R"("b":{"dtype":"U8","data_offsets":[0,1]},)"
                             R"("c":{"dtype":"U8","shape":[1]},)"
                             R"("d":{"dtype":5,"shape":[1],"data_offsets":[0,1]},)"
                             R"("e":{"dtype":"U8","shape":[1,-1],"data_offsets":[0,1]},)"
                             R"("f":{"dtype":"U8","shape":[1.5],"data_offsets":[0,1]},)"
                             R"("g":{"dtype":"U8","shape":[1],"data_offsets":[0]},)"
                             R"("h":{"dtype":"U8","shape":[1],"data_offsets":[0,"1"]},)"
                             R"("i":[],)"
                             R"("j":{"dtype":"U8","shape":{},"data_offsets":[0,1]},)"
                             R"("k":{"dtype":"U8","shape":[1],"data_offsets":[0,1],"extra":true}})";
  const Safetensors s = read_safetensors(safetensors(header, pattern(1)));
  EXPECT_EQ(names(s), Strings{"k"});
  const auto at = [&](std::string_view key) {
    return fmt::format("offset {:#x}: tensor '{}': ", 8 + header.find(fmt::format("\"{}\"", key)),
                       key);
  };
  EXPECT_EQ(described(s), (Strings{
                              at("a") + "no \"dtype\"",
                              at("b") + "no \"shape\"",
                              at("c") + "no \"data_offsets\"",
                              at("d") + "\"dtype\" is 5, not a string",
                              at("e") + "shape[1] is -1, not a non-negative integer",
                              at("f") + "shape[0] is 1.5, not a non-negative integer",
                              at("g") + "\"data_offsets\" is an array of 1, not an array [begin, "
                                        "end]",
                              at("h") + "data_offsets[1] is a string, not a non-negative integer",
                              at("i") + "the entry is an array, not an object",
                              at("j") + "\"shape\" is an object, not an array",
                          }));
}

TEST(Safetensors, RepeatedKeyReadsTheLastOne) {
  const std::string header = R"({"a":{"dtype":"U8","shape":[9],"data_offsets":[0,9]},)"
                             R"("a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}})";
  const Safetensors s = read_safetensors(safetensors(header, pattern(2)));
  ASSERT_EQ(names(s), Strings{"a"});
  EXPECT_EQ(s.tensors[0].content.shape, std::vector<uint64_t>{2});
  EXPECT_EQ(described(s), Strings{"offset 0x9: key 'a' appears again at offset 0x3d, which is "
                                  "the one read"});
}

TEST(Safetensors, OffsetsThatDoNotTileTheData) {
  // In offset order: a [0,4], b [4,8] overlapping c [6,10], a hole [10,12], d [12,16], e reversed,
  // f past the end, then 4 bytes nobody owns... f ends past them.
  const std::string header = R"({"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},)"
                             R"("b":{"dtype":"U8","shape":[4],"data_offsets":[4,8]},)"
                             R"("c":{"dtype":"U8","shape":[4],"data_offsets":[6,10]},)"
                             R"("d":{"dtype":"U8","shape":[4],"data_offsets":[12,16]},)"
                             R"("e":{"dtype":"U8","shape":[4],"data_offsets":[20,16]},)"
                             R"("f":{"dtype":"U8","shape":[8],"data_offsets":[16,24]}})";
  const Safetensors s = read_safetensors(safetensors(header, pattern(20)));
  EXPECT_EQ(names(s), (Strings{"a", "b", "c", "d", "f", "e"}));
  const auto at = [&](std::string_view key) {
    return fmt::format("offset {:#x}: tensor '{}': ", 8 + header.find(fmt::format("\"{}\"", key)),
                       key);
  };
  EXPECT_EQ(described(s),
            (Strings{
                at("c") + "data_offsets [6, 10] overlap tensor 'b' (which ends at 8)",
                at("d") + "data_offsets [12, 16] leave a hole of 2 bytes after tensor 'c' (which "
                          "ends at 10)",
                at("f") + "data_offsets [16, 24] go past the end of the data (20 bytes)",
                at("e") + "data_offsets [20, 16] end before they begin",
            }));
  // Listed, with the range as given (tensor_data then refuses what lies outside the file).
  EXPECT_EQ(s.tensors[4].content.segments[0].length, 8u);
  EXPECT_FALSE(tensor_data(safetensors(header, pattern(20)), s.tensors[4].content));
  EXPECT_EQ(s.tensors[5].content.segments[0].length, 0u);
  EXPECT_FALSE(s.tensors[5].content.consistent());
}

TEST(Safetensors, HoleAtTheStartAndBytesAfterTheLastTensor) {
  const std::string header = R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[2,4]}})";
  const Safetensors s = read_safetensors(safetensors(header, pattern(7)));
  EXPECT_EQ(described(s),
            (Strings{"offset 0x9: tensor 'a': data_offsets [2, 4] leave a hole of 2 bytes at the "
                     "start of the data",
                     fmt::format("offset {:#x}: 3 bytes after the last tensor's data belong to no "
                                 "tensor",
                                 8 + header.size() + 4)}));
  // Data with no tensor at all.
  const Safetensors none = read_safetensors(safetensors("{}", pattern(3)));
  EXPECT_EQ(described(none),
            Strings{"offset 0xa: 3 bytes after the last tensor's data belong to no tensor"});
}

TEST(Safetensors, SizeMismatchKeepsTheTensorListed) {
  const std::string header = R"({"w":{"dtype":"F32","shape":[2,2],"data_offsets":[0,12]}})";
  const File file = safetensors(header, pattern(12));
  const Safetensors s = read_safetensors(file);
  EXPECT_EQ(described(s), Strings{"offset 0x9: tensor 'w': data_offsets [0, 12] hold 12 bytes, "
                                  "F32 [2, 2] needs 16"});
  ASSERT_EQ(s.tensors.size(), 1u);
  EXPECT_EQ(s.tensors[0].content.expected_bytes, 16u);
  EXPECT_EQ(s.tensors[0].content.bytes(), 12u);
  EXPECT_FALSE(s.tensors[0].content.consistent());
  EXPECT_FALSE(tensor_data(file, s.tensors[0].content));
}

TEST(Safetensors, ShapeWithTooManyElements) {
  const std::string header =
      R"({"w":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,0]},)"
      R"("v":{"dtype":"F64","shape":[4611686018427387904],"data_offsets":[0,0]}})";
  const Safetensors s = read_safetensors(safetensors(header));
  ASSERT_EQ(s.problems.size(), 2u);
  EXPECT_NE(s.problems[0].message.find("more than 2^64 elements"), std::string::npos)
      << s.problems[0].message;
  EXPECT_EQ(s.problems[1].describe(),
            fmt::format("offset {:#x}: tensor 'v': F64 [4611686018427387904] needs more than 2^64 "
                        "bytes",
                        8 + header.find("\"v\"")));
  EXPECT_EQ(names(s), (Strings{"w", "v"}));
  EXPECT_EQ(s.tensors[0].content.expected_bytes, std::nullopt);
}

TEST(Safetensors, OffsetsPastTwoToThe64) {
  const std::string header =
      R"({"w":{"dtype":"U8","shape":[1],"data_offsets":[18446744073709551615,18446744073709551615]}})";
  const Safetensors s = read_safetensors(safetensors(header));
  EXPECT_EQ(names(s), Strings{});
  EXPECT_EQ(described(s), Strings{"offset 0x9: tensor 'w': data_offsets [18446744073709551615, "
                                  "18446744073709551615] lie past 2^64"});
}

TEST(Safetensors, EmptyFileOfTensors) {
  // What the safetensors library writes for no tensor: "{}" padded to 8.
  const Safetensors s = read_safetensors(safetensors("{}      "));
  EXPECT_EQ(described(s), Strings{});
  EXPECT_TRUE(s.tensors.empty());
  EXPECT_EQ(s.header_size, 8u);
  EXPECT_EQ(s.file_size, 16u);
}

TEST(Safetensors, EscapedNames) {
  const std::string header = R"({"a\"b\n\u00e9":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})";
  const Safetensors s = read_safetensors(safetensors(header, pattern(1)));
  EXPECT_EQ(described(s), Strings{});
  EXPECT_EQ(names(s), Strings{"a\"b\n\xc3\xa9"});
}

// Header bytes the safetensors library writes, from its own tests (tensor.rs test_serialization
// and test_empty): a 64-byte header that needs no padding, "{}" padded to 8, and metadata alone.
TEST(SafetensorsHeader, AsTheLibraryWritesIt) {
  auto one = safetensors_header({{"attn.0", DType::Float32, {1, 2, 3}, 24}}, {});
  ASSERT_TRUE(one) << one.error().describe();
  EXPECT_EQ(*one, R"({"attn.0":{"dtype":"F32","shape":[1,2,3],"data_offsets":[0,24]}})");
  EXPECT_EQ(one->size(), 64u);
  EXPECT_EQ(*safetensors_header({}, {}), "{}      ");
  EXPECT_EQ(*safetensors_header({}, {{"framework", "pt"}}), R"({"__metadata__":{"framework":"pt"}})"
                                                            "     ");
}

TEST(SafetensorsHeader, MetadataThenEntriesInOrderPadded) {
  auto h = safetensors_header(
      {{"b", DType::BFloat16, {2}, 4}, {"a", DType::Bool, {}, 1}, {"s\"\x01", DType::Int8, {0}, 0}},
      {{"format", "ms"}, {"crc_num", "7"}});
  ASSERT_TRUE(h) << h.error().describe();
  // Hand-derived: 213 bytes of JSON, then 3 spaces to 216.
  const std::string json = R"({"__metadata__":{"format":"ms","crc_num":"7"},)"
                           R"("b":{"dtype":"BF16","shape":[2],"data_offsets":[0,4]},)"
                           R"("a":{"dtype":"BOOL","shape":[],"data_offsets":[4,5]},)"
                           R"("s\"\u0001":{"dtype":"I8","shape":[0],"data_offsets":[5,5]}})";
  EXPECT_EQ(json.size(), 213u);
  EXPECT_EQ(*h, json + "   ");
  EXPECT_EQ(h->size() % 8, 0u);
}

TEST(SafetensorsHeader, DtypeNames) {
  EXPECT_EQ(safetensors_dtype_name(DType::Float8E4M3FN), "F8_E4M3");
  EXPECT_EQ(safetensors_dtype_name(DType::Complex64), "C64");
  EXPECT_EQ(safetensors_dtype_name(DType::UInt64), "U64");
  EXPECT_EQ(safetensors_dtype_name(DType::Int4), std::nullopt);
  EXPECT_EQ(safetensors_dtype_name(DType::Float4E2M1), std::nullopt);
  EXPECT_EQ(safetensors_dtype_name(DType::String), std::nullopt);
  EXPECT_EQ(safetensors_dtype_name(DType::Complex128), std::nullopt);
  // Every name written reads back as its DType.
  for (unsigned d = 0; d <= static_cast<unsigned>(DType::String); ++d) {
    if (auto name = safetensors_dtype_name(static_cast<DType>(d))) {
      EXPECT_EQ(safetensors_dtype(*name), static_cast<DType>(d)) << *name;
    }
  }
}

TEST(SafetensorsHeader, Refusals) {
  const auto error = [](const std::vector<SafetensorsEntry>& entries,
                        const std::vector<std::pair<std::string, std::string>>& metadata = {}) {
    auto h = safetensors_header(entries, metadata);
    return h ? std::string("accepted") : h.error().describe();
  };
  EXPECT_EQ(error({{"q", DType::Int4, {4}, 2}}), "tensor 'q': dtype int4 has no safetensors name");
  EXPECT_EQ(error({{"a", DType::UInt8, {1}, 1}, {"a", DType::UInt8, {1}, 1}}),
            "tensor name 'a' is given twice");
  EXPECT_EQ(error({{"__metadata__", DType::UInt8, {1}, 1}}),
            "tensor name '__metadata__' is the format's metadata key");
  EXPECT_EQ(error({{"w", DType::Float32, {2, 2}, 12}}),
            "tensor 'w': 12 bytes, F32 [2, 2] needs 16");
  EXPECT_EQ(error({{"n\xff", DType::UInt8, {1}, 1}}),
            "tensor name 'n\\xff' is not UTF-8, which safetensors requires");
  EXPECT_EQ(error({}, {{"k", "1"}, {"k", "2"}}), "metadata key 'k' is given twice");
  EXPECT_EQ(error({}, {{"k", "\xc0"}}),
            "metadata value '\\xc0' is not UTF-8, which safetensors requires");
  EXPECT_NE(error({{"w", DType::Float32, {4294967296, 4294967296}, 0}}).find("more than 2^64"),
            std::string::npos);
}

class SafetensorsWrite : public msdt::testing::TempTreeTest {
 protected:
  SafetensorsWrite() : TempTreeTest("msdt-safetensors-") {}

  File read_back(const std::string& name) const {
    std::ifstream in(path(name), std::ios::binary);
    std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return bytes_of(s);
  }
};

TEST_F(SafetensorsWrite, RoundTrip) {
  const std::vector<SafetensorsEntry> entries = {
      {"layer.weight", DType::Float32, {2, 3}, 24},
      {"layer.bias", DType::BFloat16, {3}, 6},
      {"step", DType::Int64, {}, 8},
      {"mask", DType::Bool, {4}, 4},
      {"empty", DType::Float16, {0, 5}, 0},
      {"é", DType::Float8E5M2, {3}, 3},
  };
  std::vector<File> contents;
  for (size_t i = 0; i < entries.size(); ++i) contents.push_back(pattern(entries[i].bytes, i * 7));
  size_t fetched = 0;
  auto directory = OpenDirectory::open(root_);
  ASSERT_TRUE(directory);
  auto out = AtomicFile::create(*directory, "out.safetensors");
  ASSERT_TRUE(out);
  const Status written =
      write_safetensors(*out, entries, {{"format", "ms"}, {"remove_redundancy", "False"}},
                        [&](size_t i) -> Expected<TensorData> {
                          EXPECT_EQ(i, fetched++);  // one at a time, in entry order
                          return owned_tensor(entries[i].dtype, entries[i].shape, contents[i]);
                        });
  ASSERT_FALSE(written) << written->describe();
  ASSERT_FALSE(out->commit());
  EXPECT_EQ(fetched, entries.size());

  const File file = read_back("out.safetensors");
  const Safetensors s = read_safetensors(file);
  EXPECT_EQ(described(s), Strings{});
  EXPECT_EQ(s.header_size % 8, 0u);
  EXPECT_EQ(s.metadata, (std::vector<std::pair<std::string, std::string>>{
                            {"format", "ms"}, {"remove_redundancy", "False"}}));
  ASSERT_EQ(s.tensors.size(), entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    SCOPED_TRACE(entries[i].name);
    const SafetensorsTensor& t = s.tensors[i];
    EXPECT_EQ(t.name, entries[i].name);
    EXPECT_EQ(t.content.dtype, entries[i].dtype);
    EXPECT_EQ(t.content.spelling, *safetensors_dtype_name(entries[i].dtype));
    EXPECT_EQ(t.content.shape, entries[i].shape);
    auto data = tensor_data(file, t.content);
    ASSERT_TRUE(data) << data.error().describe();
    ASSERT_EQ(data->view().data.size(), contents[i].size());
    EXPECT_TRUE(std::equal(contents[i].begin(), contents[i].end(), data->view().data.begin()));
  }
}

TEST_F(SafetensorsWrite, RefusedBeforeAnythingIsFetched) {
  auto directory = OpenDirectory::open(root_);
  ASSERT_TRUE(directory);
  auto out = AtomicFile::create(*directory, "out.safetensors");
  ASSERT_TRUE(out);
  bool asked = false;
  const Status status =
      write_safetensors(*out, {{"w", DType::Float32, {1}, 4}, {"q", DType::Int4, {2}, 1}}, {},
                        [&](size_t) -> Expected<TensorData> {
                          asked = true;
                          return Error("not reached");
                        });
  ASSERT_TRUE(status);
  EXPECT_EQ(status->describe(), "tensor 'q': dtype int4 has no safetensors name");
  EXPECT_FALSE(asked);
}

TEST_F(SafetensorsWrite, FetchErrorsAndWrongSizes) {
  auto directory = OpenDirectory::open(root_);
  ASSERT_TRUE(directory);
  {
    auto out = AtomicFile::create(*directory, "a.safetensors");
    ASSERT_TRUE(out);
    const Status status = write_safetensors(
        *out, {{"w", DType::Float32, {1}, 4}}, {},
        [](size_t) -> Expected<TensorData> { return Error::at_offset(0x2c, "cannot read"); });
    ASSERT_TRUE(status);
    EXPECT_EQ(status->describe(), "offset 0x2c: tensor 'w': cannot read");
  }
  {
    auto out = AtomicFile::create(*directory, "b.safetensors");
    ASSERT_TRUE(out);
    const Status status = write_safetensors(
        *out, {{"w", DType::Float32, {1}, 4}}, {},
        [](size_t) -> Expected<TensorData> { return owned_tensor(DType::UInt8, {2}, pattern(2)); });
    ASSERT_TRUE(status);
    EXPECT_EQ(status->describe(), "tensor 'w': 2 bytes were given for the 4 the header says");
  }
  // Neither was committed: nothing is left behind.
  EXPECT_FALSE(std::filesystem::exists(path("a.safetensors")));
  EXPECT_FALSE(std::filesystem::exists(path("b.safetensors")));
}

}  // namespace
}  // namespace msdt::model
