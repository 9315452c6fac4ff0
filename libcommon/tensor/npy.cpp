#include "tensor/npy.h"

#include <fmt/format.h>

#include <string_view>

#include "io/text.h"

namespace msdt {
namespace {

constexpr std::string_view kMagic = "\x93NUMPY";
constexpr uint64_t kArrayAlign = 64;  // numpy/lib/format.py ARRAY_ALIGN (dump spec §9.1)
// NumPy pads the header so that the first axis can grow in place (GROWTH_AXIS_MAX_DIGITS).
constexpr size_t kGrowthAxisMaxDigits = 21;

std::string printable(char c) {
  auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7F) return fmt::format("'{}'", c);
  return fmt::format("byte {:#04x}", u);
}

// A recursive-descent reader of the Python dict literal in the header (dump spec §9.1). It knows
// only the value shapes the three keys can have, which is all NumPy itself accepts.
class HeaderParser {
 public:
  HeaderParser(std::string_view text, uint64_t base) : text_(text), base_(base) {}

  Error error_here(std::string_view what) const {
    return Error::at_offset(base_ + pos_, fmt::format("npy header: {}", what));
  }
  Error expected(std::string_view what) const {
    if (pos_ >= text_.size())
      return error_here(fmt::format("expected {}, found the end of the header", what));
    return error_here(fmt::format("expected {}, found {}", what, printable(text_[pos_])));
  }

  void skip_spaces() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }
  bool at(char c) {
    skip_spaces();
    return pos_ < text_.size() && text_[pos_] == c;
  }
  bool accept(char c) {
    if (!at(c)) return false;
    ++pos_;
    return true;
  }
  Status expect(char c, std::string_view what) {
    if (!accept(c)) return expected(what);
    return std::nullopt;
  }

  Expected<std::string> string_literal() {
    skip_spaces();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"'))
      return expected("a quoted string");
    char quote = text_[pos_];
    size_t start = ++pos_;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      if (text_[pos_] == '\\') return error_here("escape sequences in strings are not supported");
      ++pos_;
    }
    if (pos_ >= text_.size()) {
      pos_ = start - 1;
      return error_here("unterminated string");
    }
    return std::string(text_.substr(start, pos_++ - start));
  }

  Expected<bool> boolean() {
    skip_spaces();
    for (auto [word, value] : {std::pair{std::string_view("True"), true}, {"False", false}}) {
      if (text_.substr(pos_).starts_with(word)) {
        pos_ += word.size();
        return value;
      }
    }
    return expected("True or False");
  }

  Expected<uint64_t> dimension() {
    skip_spaces();
    if (pos_ >= text_.size() || text_[pos_] < '0' || text_[pos_] > '9')
      return expected("a non-negative integer");
    size_t start = pos_;
    uint64_t value = 0;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      auto next = checked_mul(value, 10);
      if (next) next = checked_add(*next, static_cast<uint64_t>(text_[pos_] - '0'));
      if (!next) {
        pos_ = start;
        return error_here("shape dimension does not fit in 64 bits");
      }
      value = *next;
      ++pos_;
    }
    if (pos_ < text_.size() && text_[pos_] == 'L') ++pos_;  // Python 2 long literal
    return value;
  }

  // "()", "(5,)", "(2, 3)" and MindSpore's "(2,3,)" (dump spec §5.2).
  Expected<std::vector<uint64_t>> shape_tuple() {
    MSDT_CHECK(expect('(', "'(' starting the shape tuple"));
    std::vector<uint64_t> shape;
    while (!accept(')')) {
      // Each dimension costs at least one header byte, so this is bounded by the header size.
      MSDT_TRY(uint64_t dim, dimension());
      shape.push_back(dim);
      if (accept(',')) continue;
      if (!at(')')) return expected("',' or ')' in the shape tuple");
    }
    return shape;
  }

  size_t position() const { return pos_; }
  uint64_t offset() const { return base_ + pos_; }

 private:
  std::string_view text_;
  uint64_t base_;
  size_t pos_ = 0;
};

struct ParsedDescr {
  DType dtype;
  bool big_endian;
};

Expected<ParsedDescr> parse_descr(std::string_view descr, std::optional<DType> hint) {
  std::string_view code = descr;
  char order = '=';
  if (!code.empty() && (code[0] == '<' || code[0] == '>' || code[0] == '|' || code[0] == '=')) {
    order = code[0];
    code.remove_prefix(1);
  }
  std::optional<DType> dtype = dtype_from_npy_code(code);
  // Plain NumPy saves an ml_dtypes bfloat16 array as opaque 2-byte voids (dump spec §9.3).
  if (!dtype && code == "V2" && hint == DType::BFloat16) dtype = DType::BFloat16;
  if (!dtype) {
    if (code == "V2")
      return Error(
          fmt::format("unsupported descr {} (2-byte void, bfloat16 only with a dtype "
                      "word in the file name)",
                      quote_for_message(descr)));
    return Error(fmt::format("unsupported descr {}", quote_for_message(descr)));
  }
  // Every host we build for is little-endian, so '=' means '<'.
  return ParsedDescr{*dtype, order == '>' && dtype_bits(*dtype) > 8};
}

}  // namespace

bool looks_like_npy(Bytes file) {
  return file.size() >= kMagic.size() &&
         std::string_view(reinterpret_cast<const char*>(file.data()), kMagic.size()) == kMagic;
}

Expected<NpyHeader> parse_npy(Bytes file, std::optional<DType> dtype_hint) {
  ByteReader reader(file);
  NpyHeader header;
  if (!looks_like_npy(file)) {
    std::string found;
    for (size_t i = 0; i < std::min<size_t>(file.size(), kMagic.size()); ++i)
      found += fmt::format("\\x{:02x}", static_cast<unsigned>(file[i]));
    return Error::at_offset(
        0, fmt::format("not an npy file: expected magic \\x93NUMPY, found {}",
                       found.empty() ? std::string("an empty file") : '"' + found + '"'));
  }
  (void)reader.skip(kMagic.size());
  auto version = reader.take(2);
  if (!version) return std::move(version).error().with_context("npy version");
  header.major_version = static_cast<uint8_t>((*version)[0]);
  header.minor_version = static_cast<uint8_t>((*version)[1]);
  uint64_t header_len;
  if (header.major_version == 1 && header.minor_version == 0) {
    auto len = reader.u16le();
    if (!len) return std::move(len).error().with_context("npy header length");
    header_len = *len;
  } else if ((header.major_version == 2 || header.major_version == 3) &&
             header.minor_version == 0) {
    auto len = reader.u32le();
    if (!len) return std::move(len).error().with_context("npy header length");
    header_len = *len;
  } else {
    return Error::at_offset(6, fmt::format("unsupported npy version {}.{} (expected 1.0, 2.0 "
                                           "or 3.0)",
                                           header.major_version, header.minor_version));
  }
  uint64_t text_offset = reader.offset();
  if (header_len > reader.remaining())
    return Error::at_offset(
        text_offset - (header.major_version == 1 ? 2 : 4),
        fmt::format("npy header length {} goes past the end of the file ({} bytes after the "
                    "length field)",
                    header_len, reader.remaining()));
  auto text_bytes = *reader.take(header_len);
  std::string_view text(reinterpret_cast<const char*>(text_bytes.data()), text_bytes.size());

  HeaderParser parser(text, text_offset);
  MSDT_CHECK(parser.expect('{', "'{' starting the npy header dict"));
  bool have_descr = false, have_fortran = false, have_shape = false;
  uint64_t descr_offset = 0;
  while (!parser.accept('}')) {
    parser.skip_spaces();
    uint64_t key_offset = parser.offset();
    MSDT_TRY(std::string key, parser.string_literal());
    MSDT_CHECK(parser.expect(':', fmt::format("':' after key {}", quote_for_message(key))));
    bool* seen = nullptr;
    if (key == "descr") {
      seen = &have_descr;
      parser.skip_spaces();
      descr_offset = parser.offset();
      if (parser.at('['))
        return parser.error_here("structured dtypes (descr lists) are not supported");
      auto value = parser.string_literal();
      if (!value) return std::move(value).error().with_context("value of 'descr'");
      header.descr = std::move(*value);
    } else if (key == "fortran_order") {
      seen = &have_fortran;
      auto value = parser.boolean();
      if (!value) return std::move(value).error().with_context("value of 'fortran_order'");
      header.fortran_order = *value;
    } else if (key == "shape") {
      seen = &have_shape;
      auto value = parser.shape_tuple();
      if (!value) return std::move(value).error().with_context("value of 'shape'");
      header.shape = std::move(*value);
    } else {
      return Error::at_offset(key_offset,
                              fmt::format("npy header: unexpected key {} (expected 'descr', "
                                          "'fortran_order' or 'shape')",
                                          quote_for_message(key)));
    }
    if (*seen)
      return Error::at_offset(key_offset,
                              fmt::format("npy header: duplicate key {}", quote_for_message(key)));
    *seen = true;
    if (parser.accept(',')) continue;
    if (!parser.at('}')) return parser.expected("',' or '}' after a value");
  }
  // After the dict NumPy allows only padding; MindSpore and older writers pad with spaces.
  parser.skip_spaces();
  if (parser.position() < text.size() && text[parser.position()] != '\0')
    return parser.expected("only padding after the header dict");
  for (auto [seen, name] :
       {std::pair{have_descr, "descr"}, {have_fortran, "fortran_order"}, {have_shape, "shape"}})
    if (!seen)
      return Error::at_offset(text_offset, fmt::format("npy header: missing key '{}'", name));

  auto descr = parse_descr(header.descr, dtype_hint);
  if (!descr) return Error::at_offset(descr_offset, "npy header: " + descr.error().message);
  header.dtype = descr->dtype;
  header.big_endian = descr->big_endian;

  header.data_offset = reader.offset();
  auto count = element_count(header.shape);
  if (!count) return Error::at_offset(text_offset, "npy header: " + count.error().message);
  auto size = dtype_bytes(header.dtype, *count);
  if (!size)
    return Error::at_offset(text_offset, fmt::format("npy header: {} elements of {} need more "
                                                     "than 2^64 bytes",
                                                     *count, dtype_name(header.dtype)));
  header.data_size = *size;
  if (header.data_size > reader.remaining())
    return Error::at_offset(
        header.data_offset,
        fmt::format("npy data is shorter than the header says: expected {} bytes, found {}",
                    header.data_size, reader.remaining()));
  return header;
}

std::string make_npy_header(DType dtype, std::span<const uint64_t> shape) {
  // Byte for byte what np.save writes (numpy/lib/format.py _write_array_header and _wrap_header):
  // sorted keys, repr() of the shape tuple, spare spaces for growing the first axis, then
  // spaces and '\n' up to a multiple of 64.
  std::string dict =
      fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': (", npy_descr(dtype));
  for (size_t i = 0; i < shape.size(); ++i) dict += fmt::format("{}{}", i ? ", " : "", shape[i]);
  dict += shape.size() == 1 ? ",), }" : "), }";
  if (!shape.empty()) {
    size_t digits = fmt::formatted_size("{}", shape[0]);
    if (digits < kGrowthAxisMaxDigits) dict.append(kGrowthAxisMaxDigits - digits, ' ');
  }
  for (uint8_t major : {1, 2}) {
    uint64_t prefix = kMagic.size() + 2 + (major == 1 ? 2 : 4);
    uint64_t hlen = dict.size() + 1;
    uint64_t padlen = kArrayAlign - (prefix + hlen) % kArrayAlign;
    uint64_t total = hlen + padlen;
    if (major == 1 && total > 0xFFFF) continue;
    std::string out(kMagic);
    out += static_cast<char>(major);
    out += '\0';
    for (int i = 0; i < (major == 1 ? 2 : 4); ++i)
      out += static_cast<char>((total >> (8 * i)) & 0xFF);
    out += dict;
    out.append(padlen, ' ');
    out += '\n';
    return out;
  }
  return {};  // unreachable: a v2 length field holds any header we can build in memory
}

Status check_npy_loadable(DType storage, std::span<const uint64_t> shape) {
  if (shape.size() > kNpyMaxDims)
    return Error(
        fmt::format("{} dimensions: NumPy loads .npy files of at most {} (NumPy 1's "
                    "limit, which msdt keeps so that both NumPy 1 and 2 load every file)",
                    shape.size(), kNpyMaxDims));
  constexpr uint64_t kMaxIntp = uint64_t{1} << 63;  // NumPy's npy_intp is a signed 64-bit integer
  uint64_t bytes = dtype_bytes(storage, 1).value_or(1);
  for (uint64_t dim : shape) {
    if (dim >= kMaxIntp)
      return Error(fmt::format("dimension {} is 2^63 or more, past what NumPy can hold", dim));
    if (dim == 0) continue;
    auto product = checked_mul(bytes, dim);
    if (!product || *product >= kMaxIntp)
      return Error(
          fmt::format("shape {} of {}: NumPy refuses an array whose non-zero dimensions "
                      "times the element size pass 2^63 - 1 bytes, even with no element",
                      fmt::format("({}{})", fmt::join(shape, ", "), shape.size() == 1 ? "," : ""),
                      dtype_name(storage)));
    bytes = *product;
  }
  const std::string header = make_npy_header(storage, shape);
  const uint64_t length = header.size() - (header[6] == 1 ? 10 : 12);
  if (length > kNpyMaxHeaderBytes)
    return Error(
        fmt::format("the .npy header would be {} bytes: numpy.load reads at most {} "
                    "(its max_header_size)",
                    length, kNpyMaxHeaderBytes));
  return std::nullopt;
}

Expected<TensorView> npy_tensor(Bytes file, const NpyHeader& header) {
  if (header.fortran_order)
    return Error::at_offset(header.data_offset,
                            "npy data is in fortran order; only C order can be viewed directly");
  if (header.big_endian)
    return Error::at_offset(header.data_offset, fmt::format("npy data is big-endian ({}); only "
                                                            "little-endian can be viewed directly",
                                                            quote_for_message(header.descr)));
  if (header.data_offset > file.size() || header.data_size > file.size() - header.data_offset)
    return Error::at_offset(
        header.data_offset,
        fmt::format("npy data is shorter than the header says: expected {} "
                    "bytes, found {}",
                    header.data_size,
                    file.size() - std::min<uint64_t>(header.data_offset, file.size())));
  return TensorView{header.dtype, header.shape, file.subspan(header.data_offset, header.data_size)};
}

}  // namespace msdt
