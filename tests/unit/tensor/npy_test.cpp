#include "tensor/npy.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace msdt {
namespace {

Bytes as_bytes(const std::string& s) {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

// An npy file with `dict` as header text, padded with spaces and '\n' to `align` bytes, followed
// by `data`.
std::string npy_file(const std::string& dict, const std::string& data = "", int major = 1,
                     size_t align = 64) {
  size_t prefix = major == 1 ? 10 : 12;
  std::string text = dict;
  while ((prefix + text.size() + 1) % align != 0) text += ' ';
  text += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  for (size_t i = 0; i < (major == 1 ? 2u : 4u); ++i)
    out += static_cast<char>((text.size() >> (8 * i)) & 0xFF);
  return out + text + data;
}

Expected<NpyHeader> parse(const std::string& file, std::optional<DType> hint = std::nullopt) {
  return parse_npy(as_bytes(file), hint);
}

std::string error_of(const std::string& file, std::optional<DType> hint = std::nullopt) {
  auto r = parse(file, hint);
  if (r) return "(parsed)";
  return r.error().describe();
}

TEST(NpyRead, MindSporeHeader) {
  std::string file = npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (2,3,), }",
                              std::string(24, '\x01'));
  auto h = parse(file);
  ASSERT_TRUE(h) << h.error().describe();
  EXPECT_EQ(h->major_version, 1);
  EXPECT_EQ(h->minor_version, 0);
  EXPECT_EQ(h->descr, "<f4");
  EXPECT_EQ(h->dtype, DType::Float32);
  EXPECT_FALSE(h->big_endian);
  EXPECT_FALSE(h->fortran_order);
  EXPECT_EQ(h->shape, (std::vector<uint64_t>{2, 3}));
  EXPECT_EQ(h->data_offset, 128u);
  EXPECT_EQ(h->data_size, 24u);
  auto view = npy_tensor(as_bytes(file), *h);
  ASSERT_TRUE(view);
  EXPECT_EQ(view->dtype, DType::Float32);
  EXPECT_EQ(view->shape, h->shape);
  EXPECT_EQ(view->data.size(), 24u);
  EXPECT_EQ(view->data.data(), as_bytes(file).data() + 128);
}

TEST(NpyRead, ShapesAndSpellings) {
  struct Case {
    std::string dict;
    std::vector<uint64_t> shape;
  };
  const Case cases[] = {
      {"{'descr': '|u1', 'fortran_order': False, 'shape': (5,), }", {5}},
      {"{'descr': '|u1', 'fortran_order': False, 'shape': (), }", {}},
      {"{'descr': '|u1', 'fortran_order': False, 'shape': (1, 2, 3), }", {1, 2, 3}},
      {"{'shape': (3,1), 'fortran_order': False, 'descr': '|u1'}", {3, 1}},
      {"{ \"descr\" : \"|u1\" , \"fortran_order\":False,\"shape\":( 3 , 2 , ) }", {3, 2}},
      {"{'descr':'|u1','fortran_order':False,'shape':(4L,)}", {4}},
      {"{'descr': '|u1', 'fortran_order': False, 'shape': (0, 7), }", {0, 7}},
  };
  for (const auto& c : cases) {
    uint64_t n = 1;
    for (auto d : c.shape) n *= d;
    std::string file = npy_file(c.dict, std::string(n, 'x'));
    auto h = parse(file);
    ASSERT_TRUE(h) << c.dict << ": " << h.error().describe();
    EXPECT_EQ(h->shape, c.shape) << c.dict;
    EXPECT_EQ(h->data_size, n) << c.dict;
  }
}

TEST(NpyRead, VersionsAndAlignment) {
  const std::string dict = "{'descr': '<i2', 'fortran_order': False, 'shape': (2,), }";
  for (int major : {1, 2, 3}) {
    for (size_t align : {1, 16, 64}) {
      std::string file = npy_file(dict, "abcd", major, align);
      auto h = parse(file);
      ASSERT_TRUE(h) << major << " " << align << ": " << h.error().describe();
      EXPECT_EQ(h->major_version, major);
      EXPECT_EQ(h->dtype, DType::Int16);
      EXPECT_EQ(h->data_offset, file.size() - 4);
      EXPECT_EQ(h->data_size, 4u);
    }
  }
}

TEST(NpyRead, ByteOrders) {
  struct Case {
    const char* descr;
    DType dtype;
    bool big_endian;
  };
  const Case cases[] = {
      {"<f4", DType::Float32, false},     {">f4", DType::Float32, true},
      {"=f4", DType::Float32, false},     {"f4", DType::Float32, false},
      {"|b1", DType::Bool, false},        {">i1", DType::Int8, false},
      {"<c16", DType::Complex128, false}, {"<E2", DType::BFloat16, false},
      {">u8", DType::UInt64, true},
  };
  for (const auto& c : cases) {
    std::string file =
        npy_file(std::string("{'descr': '") + c.descr + "', 'fortran_order': False, 'shape': (), }",
                 std::string(16, '\0'));
    auto h = parse(file);
    ASSERT_TRUE(h) << c.descr << ": " << h.error().describe();
    EXPECT_EQ(h->dtype, c.dtype) << c.descr;
    EXPECT_EQ(h->big_endian, c.big_endian) << c.descr;
    EXPECT_EQ(h->descr, c.descr);
  }
}

TEST(NpyRead, VoidWithBfloat16Hint) {
  std::string file =
      npy_file("{'descr': '|V2', 'fortran_order': False, 'shape': (3,), }", std::string(6, '\0'));
  auto h = parse(file, DType::BFloat16);
  ASSERT_TRUE(h) << h.error().describe();
  EXPECT_EQ(h->dtype, DType::BFloat16);
  EXPECT_EQ(h->data_size, 6u);
  EXPECT_EQ(error_of(file),
            "offset 0x14: npy header: unsupported descr '|V2' (2-byte void, bfloat16 only with a "
            "dtype word in the file name)");
  EXPECT_EQ(error_of(file, DType::Float16), error_of(file));
}

TEST(NpyRead, FortranOrderParsedButNotViewed) {
  std::string file =
      npy_file("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", std::string(16, 0));
  auto h = parse(file);
  ASSERT_TRUE(h);
  EXPECT_TRUE(h->fortran_order);
  auto view = npy_tensor(as_bytes(file), *h);
  ASSERT_FALSE(view);
  EXPECT_EQ(view.error().describe(),
            "offset 0x80: npy data is in fortran order; only C order can be viewed directly");
}

TEST(NpyRead, BigEndianNotViewed) {
  std::string file =
      npy_file("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", std::string(4, 0));
  auto h = parse(file);
  ASSERT_TRUE(h);
  auto view = npy_tensor(as_bytes(file), *h);
  ASSERT_FALSE(view);
  EXPECT_EQ(view.error().describe(),
            "offset 0x80: npy data is big-endian ('>f4'); only little-endian can be viewed "
            "directly");
}

TEST(NpyRead, TrailingBytesAllowed) {
  std::string file =
      npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", std::string(9, 0));
  auto h = parse(file);
  ASSERT_TRUE(h);
  EXPECT_EQ(h->data_size, 4u);
  EXPECT_EQ(file.size() - h->data_offset - h->data_size, 5u);
  auto view = npy_tensor(as_bytes(file), *h);
  ASSERT_TRUE(view);
  EXPECT_EQ(view->data.size(), 4u);
}

TEST(NpyRead, Errors) {
  const std::string good = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  EXPECT_EQ(error_of(""),
            "offset 0x0: not an npy file: expected magic \\x93NUMPY, found an empty "
            "file");
  EXPECT_EQ(error_of("\x93NUMP"),
            "offset 0x0: not an npy file: expected magic \\x93NUMPY, found "
            "\"\\x93\\x4e\\x55\\x4d\\x50\"");
  EXPECT_EQ(error_of("PK\x03\x04xxxxxxxx"),
            "offset 0x0: not an npy file: expected magic \\x93NUMPY, found "
            "\"\\x50\\x4b\\x03\\x04\\x78\\x78\"");
  EXPECT_EQ(error_of("\x93NUMPY"), "offset 0x6: npy version: need 2 bytes, only 0 left");
  EXPECT_EQ(error_of(std::string("\x93NUMPY\x01\x00\x05", 9)),
            "offset 0x8: npy header length: need 2 bytes, only 1 left");
  std::string v4 = npy_file(good, std::string(8, 0));
  v4[6] = 4;
  EXPECT_EQ(error_of(v4), "offset 0x6: unsupported npy version 4.0 (expected 1.0, 2.0 or 3.0)");
  std::string v11 = npy_file(good, std::string(8, 0));
  v11[7] = 1;
  EXPECT_EQ(error_of(v11), "offset 0x6: unsupported npy version 1.1 (expected 1.0, 2.0 or 3.0)");
  std::string long_header = npy_file(good, std::string(8, 0));
  long_header[8] = '\xff';
  long_header[9] = '\x7f';
  EXPECT_EQ(error_of(long_header),
            "offset 0x8: npy header length 32767 goes past the end of the file (126 bytes after "
            "the length field)");
  std::string long_v2 = npy_file(good, "", 2);
  long_v2[11] = '\x01';
  EXPECT_EQ(error_of(long_v2),
            "offset 0x8: npy header length 16777332 goes past the end of the file (116 bytes "
            "after the length field)");

  auto dict_error = [](const std::string& dict) { return error_of(npy_file(dict, "12345678")); };
  EXPECT_EQ(dict_error("'descr': '<f4'}"),
            "offset 0xa: npy header: expected '{' starting the npy header dict, found '''");
  EXPECT_EQ(dict_error("{'descr' '<f4'}"),
            "offset 0x13: npy header: expected ':' after key 'descr', found '''");
  EXPECT_EQ(dict_error("{descr: '<f4'}"),
            "offset 0xb: npy header: expected a quoted string, found 'd'");
  EXPECT_EQ(dict_error("{'descr: '<f4'}"),
            "offset 0x14: npy header: expected ':' after key 'descr: ', found '<'");
  EXPECT_EQ(dict_error("{'descr': <f4}"),
            "offset 0x14: value of 'descr': npy header: expected a quoted string, found '<'");
  EXPECT_EQ(dict_error("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': ()}"),
            "offset 0x14: npy header: structured dtypes (descr lists) are not supported");
  EXPECT_EQ(dict_error("{'fortran_order': false}"),
            "offset 0x1c: value of 'fortran_order': npy header: expected True or False, found "
            "'f'");
  EXPECT_EQ(dict_error("{'shape': [2]}"),
            "offset 0x14: value of 'shape': npy header: expected '(' starting the shape tuple, "
            "found '['");
  EXPECT_EQ(dict_error("{'shape': (2 3)}"),
            "offset 0x17: value of 'shape': npy header: expected ',' or ')' in the shape tuple, "
            "found '3'");
  EXPECT_EQ(dict_error("{'shape': (-2,)}"),
            "offset 0x15: value of 'shape': npy header: expected a non-negative integer, found "
            "'-'");
  EXPECT_EQ(dict_error("{'shape': (99999999999999999999,)}"),
            "offset 0x15: value of 'shape': npy header: shape dimension does not fit in 64 bits");
  EXPECT_EQ(dict_error("{'shape': (2,"),
            "offset 0x40: value of 'shape': npy header: expected a non-negative integer, found "
            "the end of the header");
  EXPECT_EQ(dict_error("{'order': 'C'}"),
            "offset 0xb: npy header: unexpected key 'order' (expected 'descr', 'fortran_order' "
            "or 'shape')");
  EXPECT_EQ(dict_error("{'shape': (), 'shape': ()}"),
            "offset 0x18: npy header: duplicate key 'shape'");
  EXPECT_EQ(dict_error("{'shape': () 'descr': '<f4'}"),
            "offset 0x17: npy header: expected ',' or '}' after a value, found '''");
  EXPECT_EQ(dict_error("{'shape': (), 'descr': '<f4"),
            "offset 0x21: value of 'descr': npy header: unterminated string");
  EXPECT_EQ(dict_error("{'shape': (), 'descr': '<f4', 'fortran_order': False} x"),
            "offset 0x40: npy header: expected only padding after the header dict, found 'x'");
  EXPECT_EQ(dict_error("{'shape': (), 'descr': '<f4'}"),
            "offset 0xa: npy header: missing key 'fortran_order'");
  EXPECT_EQ(dict_error("{'shape': (), 'fortran_order': False}"),
            "offset 0xa: npy header: missing key 'descr'");
  EXPECT_EQ(dict_error("{'descr': '<f4', 'fortran_order': False}"),
            "offset 0xa: npy header: missing key 'shape'");
  EXPECT_EQ(dict_error("{'descr': '<f3', 'fortran_order': False, 'shape': ()}"),
            "offset 0x14: npy header: unsupported descr '<f3'");
  EXPECT_EQ(dict_error("{'descr': 'O', 'fortran_order': False, 'shape': ()}"),
            "offset 0x14: npy header: unsupported descr 'O'");
  EXPECT_EQ(
      dict_error("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296)}"),
      "offset 0xa: npy header: shape (4294967296, 4294967296) has more than 2^64 elements");
  EXPECT_EQ(dict_error("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, "
                       "4294967295)}"),
            "offset 0xa: npy header: 18446744069414584320 elements of float64 need more than 2^64 "
            "bytes");
  EXPECT_EQ(dict_error("{'descr': '<f8', 'fortran_order': False, 'shape': (2,)}"),
            "offset 0x80: npy data is shorter than the header says: expected 16 bytes, found 8");
}

TEST(NpyWrite, MatchesKnownBytes) {
  std::vector<uint64_t> shape{2, 3};
  std::string header = make_npy_header(DType::Float32, shape);
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  dict += std::string(20, ' ');
  while ((10 + dict.size() + 1) % 64) dict += ' ';
  EXPECT_EQ(header, std::string("\x93NUMPY\x01\x00\x76\x00", 10) + dict + "\n");
  EXPECT_EQ(header.size(), 128u);
  auto h = parse(header + std::string(24, '\0'));
  ASSERT_TRUE(h) << h.error().describe();
  EXPECT_EQ(h->shape, shape);
  EXPECT_EQ(h->data_offset, header.size());
}

std::optional<std::string> run_numpy(const std::string& script) {
  if (!std::filesystem::exists("/usr/bin/python3")) return std::nullopt;
  auto dir = std::filesystem::temp_directory_path();
  std::string stem = "msdt_npy_test_" + std::to_string(getpid());
  auto script_path = dir / (stem + ".py");
  auto out_path = dir / (stem + ".out");
  std::ofstream(script_path) << "import sys\ntry:\n    import numpy as np\nexcept ImportError:\n"
                                "    sys.exit(77)\n"
                             << script;
  std::string command =
      "/usr/bin/python3 " + script_path.string() + " > " + out_path.string() + " 2>/dev/null";
  int status = std::system(command.c_str());
  std::ifstream in(out_path, std::ios::binary);
  std::string output((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::filesystem::remove(script_path);
  std::filesystem::remove(out_path);
  if (status != 0) return std::nullopt;
  return output;
}

TEST(NpyWrite, ByteIdenticalToNumpy) {
  struct Case {
    DType dtype;
    const char* numpy_dtype;
    std::vector<uint64_t> shape;
  };
  std::vector<Case> cases = {
      {DType::Float32, "float32", {2, 3}},
      {DType::Float64, "float64", {5}},
      {DType::Bool, "bool_", {}},
      {DType::Int8, "int8", {1, 1, 1, 1}},
      {DType::UInt8, "uint8", {0}},
      {DType::Int64, "int64", {123456789012, 0, 3}},
      {DType::UInt16, "uint16", {7, 0}},
      {DType::Float16, "float16", {0, 4}},
      {DType::Complex64, "complex64", {3, 1}},
      {DType::Complex128, "complex128", {2}},
      {DType::Int32, "int32", {1234567890123456789, 0}},
      {DType::UInt64, "uint64", {0, 18446744073709551615u}},
  };
  // A shape long enough to need a version 2.0 header.
  cases.push_back({DType::Int16, "int16", std::vector<uint64_t>(25000, 1)});
  cases.back().shape[0] = 0;
  std::string script = "import io\n";
  for (const auto& c : cases) {
    std::string tuple = "(";
    for (auto d : c.shape) tuple += std::to_string(d) + ",";
    tuple += ")";
    // np.save itself for arrays we can allocate; its header writer for the rest.
    script += "b = io.BytesIO()\n";
    script += "s = " + tuple + "\n";
    script +=
        "if len(s) <= 32 and max(s, default=0) < 2**31 and np.prod(s, dtype=object) < 1000:\n";
    script += "    np.save(b, np.zeros(s, dtype=np." + std::string(c.numpy_dtype) + "))\n";
    script += "else:\n";
    script +=
        "    np.lib.format._write_array_header(b, {'descr': np.lib.format.dtype_to_descr("
        "np.dtype(np." +
        std::string(c.numpy_dtype) + ")), 'fortran_order': False, 'shape': s}, None)\n";
    script += "sys.stdout.write(b.getvalue().hex() + '\\n')\n";
  }
  auto output = run_numpy(script);
  if (!output) GTEST_SKIP() << "/usr/bin/python3 with numpy is not available";
  std::istringstream lines(*output);
  for (const auto& c : cases) {
    std::string hex;
    ASSERT_TRUE(std::getline(lines, hex)) << dtype_name(c.dtype);
    std::string numpy_bytes;
    for (size_t i = 0; i + 1 < hex.size(); i += 2)
      numpy_bytes += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
    std::string ours = make_npy_header(c.dtype, c.shape);
    ASSERT_LE(ours.size(), numpy_bytes.size()) << dtype_name(c.dtype);
    EXPECT_EQ(ours, numpy_bytes.substr(0, ours.size()))
        << dtype_name(c.dtype) << " shape rank " << c.shape.size();
    auto h = parse(numpy_bytes);
    ASSERT_TRUE(h) << h.error().describe();
    EXPECT_EQ(h->data_offset, ours.size());
    EXPECT_EQ(h->shape, c.shape);
    EXPECT_EQ(h->major_version, c.shape.size() > 1000 ? 2 : 1);
  }
}

TEST(NpyLoadable, LimitsAreNamed) {
  const std::vector<uint64_t> d32(32, 1), d33(33, 1);
  EXPECT_FALSE(check_npy_loadable(DType::Float32, d32));
  auto too_many = check_npy_loadable(DType::Float32, d33);
  ASSERT_TRUE(too_many);
  EXPECT_NE(too_many->message.find("33 dimensions"), std::string::npos) << too_many->message;
  EXPECT_NE(too_many->message.find("at most 32"), std::string::npos) << too_many->message;
  // numpy's "array is too big": zero dimensions are skipped in the product of sizes.
  const std::vector<uint64_t> fits{0, uint64_t{1} << 60}, big{0, uint64_t{1} << 61};
  EXPECT_FALSE(check_npy_loadable(DType::Float32, fits));
  auto refused = check_npy_loadable(DType::Float32, big);
  ASSERT_TRUE(refused);
  EXPECT_NE(refused->message.find("(0, 2305843009213693952) of float32"), std::string::npos)
      << refused->message;
  EXPECT_FALSE(check_npy_loadable(DType::Int8, big));
  const std::vector<uint64_t> huge_dim{0, uint64_t{1} << 63};
  EXPECT_TRUE(check_npy_loadable(DType::Int8, huge_dim));
  // With at most 32 dimensions of at most 20 digits a header stays far under numpy.load's 10000
  // bytes: that check never fires before the dimension check does.
  const std::vector<uint64_t> widest(32, (uint64_t{1} << 62) / 8);
  EXPECT_LT(make_npy_header(DType::Float64, widest).size(), 1024u);
}

// NumPy (the oracle) loads exactly the files check_npy_loadable accepts.
TEST(NpyLoadable, AgreesWithNumpyLoad) {
  struct Case {
    DType dtype;
    std::vector<uint64_t> shape;
  };
  const uint64_t p = uint64_t{1} << 59;
  std::vector<Case> cases = {
      {DType::Float32, std::vector<uint64_t>(32, 1)},
      {DType::Float32, std::vector<uint64_t>(33, 1)},
      {DType::Int8, std::vector<uint64_t>(64, 1)},
      {DType::Float32, {0, p * 2}},     // 2^62 bytes
      {DType::Float32, {0, p * 4}},     // 2^63 bytes: too big
      {DType::Float64, {p / 2, 0, 2}},  // 2^62
      {DType::Float64, {p, 0, 2}},      // 2^63
      {DType::Int8, {0, p * 8 - 1}},    // 2^62 - 1
      {DType::Int8, {0, p * 16}},       // a dimension of 2^63
      {DType::Int8, {0, 3, p * 8, 2}},  // 3 * 2^62 * 2
      {DType::Float16, {2, 3}},
  };
  auto dir =
      std::filesystem::temp_directory_path() / ("msdt_npy_loadable_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::string script = "for n in range(" + std::to_string(cases.size()) +
                       "):\n"
                       "    try:\n"
                       "        np.load('" +
                       dir.string() +
                       "/%d.npy' % n)\n"
                       "        print('ok')\n"
                       "    except ValueError:\n"
                       "        print('refused')\n";
  for (size_t i = 0; i < cases.size(); ++i) {
    uint64_t count = 1;
    for (uint64_t d : cases[i].shape) count = d == 0 || count == 0 ? 0 : count * d;
    std::ofstream(dir / (std::to_string(i) + ".npy"), std::ios::binary)
        << make_npy_header(cases[i].dtype, cases[i].shape)
        << std::string(*dtype_bytes(cases[i].dtype, count), '\0');
  }
  auto output = run_numpy(script);
  std::filesystem::remove_all(dir);
  if (!output) GTEST_SKIP() << "/usr/bin/python3 with numpy is not available";
  std::istringstream lines(*output);
  for (size_t i = 0; i < cases.size(); ++i) {
    std::string verdict;
    ASSERT_TRUE(std::getline(lines, verdict));
    Status ours = check_npy_loadable(cases[i].dtype, cases[i].shape);
    // NumPy 2 loads 33..64 dimensions; we refuse them so that NumPy 1 loads every file too.
    if (cases[i].shape.size() > 32 && verdict == "ok") verdict = "refused (NumPy 1)";
    EXPECT_EQ(ours ? "refused" : "ok", verdict.substr(0, verdict.find(' ')))
        << "case " << i << ": " << (ours ? ours->message : "accepted");
  }
}

}  // namespace
}  // namespace msdt
