// "summary": MindSpore summary files (`_MS`, `_explain`), `_lineage` files and TensorBoard tfevents
// files from a description of their events (docs: README.md, "summary"; format:
// spec/summary.md §3-§7, §10, §15). Each record is framed as TFRecord (§3.1): the u64 length, the
// masked CRC-32C of those 8 bytes, the payload, the masked CRC-32C of the payload; the stored
// length and both CRCs can be overridden to build damaged files. Payloads are protobuf messages
// built with tests/support/proto_writer.h; graph events reuse the graph_proto writer.
//
// The enum numbers (DataType, TF DataType, field numbers) are written here from the spec's tables
// rather than taken from libcommon's decoder, so that a wrong number on either side shows up as a
// disagreement instead of being shared by the fixture and the reader.
#include <png.h>

#include <bit>
#include <cerrno>
#include <cmath>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "elements.h"
#include "payloads.h"
#include "summary/crc32c.h"
#include "support/proto_writer.h"
#include "tensor/element_values.h"
#include "writers.h"

namespace msdt::fixture {
namespace fs = std::filesystem;
namespace {

using msdt::testing::ProtoWriter;

enum class Dialect { MindSpore, TensorFlow, Lineage };

// Default wall times: record k of the file (the version record is record 0) has base + k, so that
// a description gives the same bytes on every run.
constexpr double kBaseWallTime = 1700000000.0;

// ------------------------------------------------------------------------------------------------
// Framing (§3.1, §3.4)

// What a description may state instead of the computed framing.
struct Framing {
  std::optional<uint64_t> length;
  std::optional<uint32_t> length_crc, data_crc;
  bool flip_length_crc = false, flip_data_crc = false;
};

void put_le(std::vector<std::byte>& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<std::byte>(value >> (8 * i)));
}

void append_record(std::vector<std::byte>& out, std::span<const std::byte> payload,
                   const Framing& framing = {}) {
  const size_t start = out.size();
  put_le(out, framing.length.value_or(payload.size()), 8);
  // The length CRC covers the 8 bytes as stored, so an overridden length still has a valid CRC
  // unless the description asks otherwise.
  uint32_t length_crc = framing.length_crc.value_or(
      summary::masked_crc32c(std::span<const std::byte>(out).subspan(start, 8)));
  if (framing.flip_length_crc) length_crc = ~length_crc;
  put_le(out, length_crc, 4);
  out.insert(out.end(), payload.begin(), payload.end());
  uint32_t data_crc = framing.data_crc.value_or(summary::masked_crc32c(payload));
  if (framing.flip_data_crc) data_crc = ~data_crc;
  put_le(out, data_crc, 4);
}

uint32_t u32_of(const Node& node) {
  const uint64_t v = node.u64();
  if (v > 0xFFFFFFFFu) node.fail("expected a 32-bit value, found " + brief(node.value()));
  return static_cast<uint32_t>(v);
}

Framing read_framing(const Node& event) {
  Framing f;
  if (auto c = event.find("corrupt")) {
    std::vector<Node> names = c->is_array() ? c->elements() : std::vector<Node>{*c};
    for (const auto& n : names) {
      const std::string name = n.string();
      if (name == "length_crc")
        f.flip_length_crc = true;
      else if (name == "data_crc")
        f.flip_data_crc = true;
      else
        n.fail("expected \"length_crc\" or \"data_crc\", found \"" + name + "\"");
    }
  }
  if (auto l = event.find("length")) f.length = l->u64();
  if (auto c = event.find("length_crc")) f.length_crc = u32_of(*c);
  if (auto c = event.find("data_crc")) f.data_crc = u32_of(*c);
  return f;
}

// ------------------------------------------------------------------------------------------------
// Small readers

// The one key of `keys` that `node` has.
std::string one_key(const Node& node, std::initializer_list<std::string_view> keys,
                    std::string_view what) {
  std::string found;
  std::string list;
  for (auto key : keys) {
    list += (list.empty() ? "" : ", ") + std::string(key);
    if (!node.has(key)) continue;
    if (!found.empty())
      node.fail("give one " + std::string(what) + ", found \"" + found + "\" and \"" +
                std::string(key) + "\"");
    found = key;
  }
  if (found.empty()) node.fail("missing " + std::string(what) + " (" + list + ")");
  return found;
}

// A number, or "nan", "inf", "+inf", "-inf".
double real_of(const Node& node) {
  if (node.is_string()) {
    const std::string text = node.string();
    if (text == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (text == "inf" || text == "+inf") return std::numeric_limits<double>::infinity();
    if (text == "-inf") return -std::numeric_limits<double>::infinity();
  }
  if (!node.is_number())
    node.fail("expected a number, \"nan\", \"inf\" or \"-inf\", found " + brief(node.value()));
  return node.number();
}

// int32 fields are varints of the sign-extended 64-bit value (negative ones take 10 bytes).
uint64_t int32_varint(const Node& node) {
  const int64_t v = node.i64();
  if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max())
    node.fail("expected a 32-bit integer, found " + brief(node.value()));
  return static_cast<uint64_t>(v);
}

uint32_t float_bits(double v) { return std::bit_cast<uint32_t>(static_cast<float>(v)); }
uint64_t double_bits(double v) { return std::bit_cast<uint64_t>(v); }

// proto3 (TensorFlow) leaves out scalar fields that hold their default value.
void proto3_double(ProtoWriter& out, uint32_t field, double v) {
  if (double_bits(v) != 0) out.fixed64(field, double_bits(v));
}
void proto3_varint(ProtoWriter& out, uint32_t field, uint64_t v) {
  if (v != 0) out.varint(field, v);
}

// ------------------------------------------------------------------------------------------------
// PNG images (libpng)

enum class Pattern { Gradient, Checker };

void png_append(png_structp png, png_bytep data, png_size_t size) {
  auto* out = static_cast<std::vector<std::byte>*>(png_get_io_ptr(png));
  const auto* bytes = reinterpret_cast<const std::byte*>(data);
  out->insert(out->end(), bytes, bytes + size);
}
void png_no_flush(png_structp) {}

// libpng reports an error by longjmp to the setjmp here. Nothing in this function has a
// destructor, so the jump skips no cleanup; the caller owns every C++ object.
bool png_write_rows(png_structp png, png_infop info, png_uint_32 width, png_uint_32 height,
                    int color_type, png_bytepp rows) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_set_IHDR(png, info, width, height, 8, color_type, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  png_write_image(png, rows);
  png_write_end(png, nullptr);
  return true;
}

// An 8-bit PNG: gradient red = x·255/(W−1), green = y·255/(H−1), blue = 128; checker 4×4-pixel
// cells, black at (0, 0), then white. Gray images take the red value; alpha is 255.
std::vector<std::byte> encode_png(uint32_t width, uint32_t height, int channels, Pattern pattern) {
  std::vector<png_byte> pixels(static_cast<size_t>(width) * height * channels);
  std::vector<png_bytep> rows(height);
  for (uint32_t y = 0; y < height; ++y) {
    rows[y] = pixels.data() + static_cast<size_t>(y) * width * channels;
    for (uint32_t x = 0; x < width; ++x) {
      png_byte rgb[3];
      if (pattern == Pattern::Gradient) {
        rgb[0] = static_cast<png_byte>(width > 1 ? x * 255u / (width - 1) : 0);
        rgb[1] = static_cast<png_byte>(height > 1 ? y * 255u / (height - 1) : 0);
        rgb[2] = 128;
      } else {
        rgb[0] = rgb[1] = rgb[2] = ((x / 4 + y / 4) % 2) ? 255 : 0;
      }
      png_bytep p = rows[y] + static_cast<size_t>(x) * channels;
      if (channels <= 2) {
        p[0] = rgb[0];
        if (channels == 2) p[1] = 255;
      } else {
        p[0] = rgb[0], p[1] = rgb[1], p[2] = rgb[2];
        if (channels == 4) p[3] = 255;
      }
    }
  }
  const int color_type = channels == 1   ? PNG_COLOR_TYPE_GRAY
                         : channels == 2 ? PNG_COLOR_TYPE_GRAY_ALPHA
                         : channels == 4 ? PNG_COLOR_TYPE_RGB_ALPHA
                                         : PNG_COLOR_TYPE_RGB;
  std::vector<std::byte> out;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png != nullptr ? png_create_info_struct(png) : nullptr;
  bool ok = false;
  if (info != nullptr) {
    png_set_write_fn(png, &out, png_append, png_no_flush);
    ok = png_write_rows(png, info, width, height, color_type, rows.data());
  }
  png_destroy_write_struct(&png, &info);
  if (!ok)
    throw DescriptionError("libpng could not encode a " + std::to_string(width) + "x" +
                           std::to_string(height) + " image");
  return out;
}

struct ImageData {
  int64_t width = 0, height = 0, colorspace = 3;
  std::vector<std::byte> encoded;
};

ImageData read_image(const Node& im) {
  im.check_keys({"width", "height", "colorspace", "png"});
  ImageData d;
  d.width = im.at("width").i64();
  d.height = im.at("height").i64();
  if (auto c = im.find("colorspace")) d.colorspace = c->i64();
  const std::string png = im.has("png") ? im.at("png").string() : "gradient";
  if (png == "gradient" || png == "checker") {
    constexpr int64_t kMaxPixels = int64_t{1} << 26;
    if (d.width < 1 || d.height < 1 || d.width > kMaxPixels || d.height > kMaxPixels ||
        d.width * d.height > kMaxPixels)
      im.fail("a generated image needs 1 <= width, height and width x height <= 2^26");
    // The colorspace codes of §5.3: 1 gray, 2 gray+alpha, 4 RGBA, 6 BGRA (written as RGBA).
    const int channels = d.colorspace == 1                          ? 1
                         : d.colorspace == 2                        ? 2
                         : (d.colorspace == 4 || d.colorspace == 6) ? 4
                                                                    : 3;
    d.encoded = encode_png(static_cast<uint32_t>(d.width), static_cast<uint32_t>(d.height),
                           channels, png == "gradient" ? Pattern::Gradient : Pattern::Checker);
  } else {
    d.encoded = parse_hex(im.at("png"));
  }
  return d;
}

// MindSpore's Summary.Image and TensorFlow's Summary.Image have the same numbers (§5.3, §15.2).
ProtoWriter image_message(const ImageData& d, Dialect dialect) {
  ProtoWriter out;
  if (dialect == Dialect::TensorFlow) {
    proto3_varint(out, 1, static_cast<uint64_t>(d.height));
    proto3_varint(out, 2, static_cast<uint64_t>(d.width));
    proto3_varint(out, 3, static_cast<uint64_t>(d.colorspace));
    if (!d.encoded.empty()) out.bytes(4, d.encoded);
  } else {  // proto2: required fields are always written
    out.varint(1, static_cast<uint64_t>(d.height))
        .varint(2, static_cast<uint64_t>(d.width))
        .varint(3, static_cast<uint64_t>(d.colorspace))
        .bytes(4, d.encoded);
  }
  return out;
}

// ------------------------------------------------------------------------------------------------
// Tensors

struct TensorData {
  DType dtype = DType::Float32;
  std::vector<uint64_t> shape;
  std::vector<std::byte> bytes;  // little-endian elements of dtype, C order
  uint64_t count = 0;
};

TensorData read_tensor(const Node& t) {
  TensorData d;
  d.dtype = parse_dtype(t.at("dtype"));
  if (auto s = t.find("shape"))
    d.shape = s->u64_list();
  else if (auto values = t.find("values"))
    d.shape = {values->elements().size()};
  else
    t.fail("missing \"shape\"");
  d.count = shape_elements(d.shape, t);
  d.bytes = encode_elements(d.dtype, parse_value_spec(t), d.count);
  return d;
}

std::vector<double> as_doubles(const TensorData& d, const Node& where) {
  if (!has_real_values(d.dtype))
    where.fail(std::string(dtype_name(d.dtype)) +
               " elements are not real numbers; use \"raw_data\"");
  std::vector<double> out(d.count);
  if (auto error =
          elements_to_double(TensorView{d.dtype, d.shape, d.bytes}, 0, d.count, out.data()))
    where.fail(error->describe());
  return out;
}

bool is_signed(DType dtype) {
  return dtype == DType::Int8 || dtype == DType::Int16 || dtype == DType::Int32 ||
         dtype == DType::Int64;
}
bool is_whole_bytes_integer(DType dtype) {
  return is_signed(dtype) || dtype == DType::Bool || dtype == DType::UInt8 ||
         dtype == DType::UInt16 || dtype == DType::UInt32 || dtype == DType::UInt64;
}

// The elements as varint values: integers sign-extended to 64 bits, anything else (float16 bit
// patterns for TensorFlow's half_val) zero-extended.
std::vector<uint64_t> as_varints(const TensorData& d) {
  const unsigned width = dtype_bits(d.dtype) / 8;
  std::vector<uint64_t> out(d.count);
  for (uint64_t i = 0; i < d.count; ++i) {
    uint64_t v = 0;
    for (unsigned b = 0; b < width; ++b)
      v |= static_cast<uint64_t>(d.bytes[i * width + b]) << (8 * b);
    if (is_signed(d.dtype) && width < 8 && (v >> (8 * width - 1)) != 0) v |= ~0ULL << (8 * width);
    out[i] = v;
  }
  return out;
}

std::vector<std::byte> floats_le(const std::vector<double>& values) {
  std::vector<std::byte> out;
  out.reserve(values.size() * 4);
  for (double v : values) put_le(out, float_bits(v), 4);
  return out;
}

// anf_ir DataType (§6.1) of the dtypes numpy arrays have (§10).
std::optional<uint64_t> anf_data_type(DType dtype) {
  switch (dtype) {
    case DType::Bool:
      return 1;
    case DType::Int8:
      return 2;
    case DType::Int16:
      return 3;
    case DType::Int32:
      return 4;
    case DType::Int64:
      return 5;
    case DType::UInt8:
      return 6;
    case DType::UInt16:
      return 7;
    case DType::UInt32:
      return 8;
    case DType::UInt64:
      return 9;
    case DType::Float16:
      return 10;
    case DType::Float32:
      return 11;
    case DType::Float64:
      return 12;
    case DType::Complex64:
      return 43;
    case DType::Complex128:
      return 44;
    default:
      return std::nullopt;
  }
}

// TensorFlow DataType (§15.2).
std::optional<uint64_t> tf_data_type(DType dtype) {
  switch (dtype) {
    case DType::Float32:
      return 1;
    case DType::Float64:
      return 2;
    case DType::Int32:
      return 3;
    case DType::UInt8:
      return 4;
    case DType::Int16:
      return 5;
    case DType::Int8:
      return 6;
    case DType::Complex64:
      return 8;
    case DType::Int64:
      return 9;
    case DType::Bool:
      return 10;
    case DType::BFloat16:
      return 14;
    case DType::UInt16:
      return 17;
    case DType::Complex128:
      return 18;
    case DType::Float16:
      return 19;
    case DType::UInt32:
      return 22;
    case DType::UInt64:
      return 23;
    case DType::Float8E5M2:
      return 24;
    case DType::Float8E4M3FN:
      return 25;
    default:
      return std::nullopt;
  }
}

uint64_t data_type_of(const Node& t, DType dtype, Dialect dialect) {
  if (auto n = t.find("data_type")) return n->u64();
  auto v = dialect == Dialect::TensorFlow ? tf_data_type(dtype) : anf_data_type(dtype);
  if (!v)
    t.at("dtype").fail(std::string(dtype_name(dtype)) + " has no " +
                       (dialect == Dialect::TensorFlow ? "TensorFlow" : "anf_ir") +
                       " DataType; give \"data_type\"");
  return *v;
}

// MindSpore's anf_ir TensorProto (§6.2). MindSpore itself writes every dtype as float32
// `float_data` with the dtype in `data_type` (§10); the other encodings are for other writers.
ProtoWriter ms_tensor(const TensorData& d, uint64_t data_type, std::string_view encoding,
                      const Node& where) {
  ProtoWriter out;
  for (uint64_t dim : d.shape) out.varint(1, dim);  // dims are not packed (§4)
  out.varint(2, data_type);
  if (d.count == 0) return out;
  if (encoding == "float_data") {
    out.bytes(3, floats_le(as_doubles(d, where)));
  } else if (encoding == "unpacked") {
    for (double v : as_doubles(d, where)) out.fixed32(3, float_bits(v));
  } else if (encoding == "double_data") {
    std::vector<std::byte> bytes;
    for (double v : as_doubles(d, where)) put_le(bytes, double_bits(v), 8);
    out.bytes(6, bytes);
  } else if (encoding == "int32_data" || encoding == "int64_data" || encoding == "uint64_data") {
    if (!is_whole_bytes_integer(d.dtype))
      where.fail(std::string(encoding) + " needs an integer or bool dtype, found " +
                 std::string(dtype_name(d.dtype)));
    const auto values = as_varints(d);
    out.packed_varints(encoding == "int32_data" ? 4 : encoding == "int64_data" ? 5 : 7, values);
  } else if (encoding == "raw_data") {
    out.bytes(8, d.bytes);
  } else {
    where.fail(
        "expected \"float_data\", \"unpacked\", \"double_data\", \"int32_data\", "
        "\"int64_data\", \"uint64_data\" or \"raw_data\", found \"" +
        std::string(encoding) + "\"");
  }
  return out;
}

ProtoWriter ms_tensor(const Node& t) {
  t.check_keys({"dtype", "shape", "values", "fill", "encoding", "data_type"});
  const TensorData d = read_tensor(t);
  const std::string encoding = t.has("encoding") ? t.at("encoding").string() : "float_data";
  return ms_tensor(d, data_type_of(t, d.dtype, Dialect::MindSpore), encoding,
                   t.has("encoding") ? t.at("encoding") : t);
}

ProtoWriter tf_shape(const std::vector<uint64_t>& shape) {
  ProtoWriter out;
  for (uint64_t dim : shape) {
    ProtoWriter d;
    proto3_varint(d, 1, dim);
    out.message(2, d);
  }
  return out;
}

// TensorFlow's TensorProto (§15.2): tensor_content (what make_tensor_proto writes for more than
// one element) or the typed repeated field, packed.
ProtoWriter tf_tensor(const TensorData& d, uint64_t dtype, bool typed, const Node& where) {
  ProtoWriter out;
  proto3_varint(out, 1, dtype);
  out.message(2, tf_shape(d.shape));
  if (d.count == 0) return out;
  if (!typed) {
    out.bytes(4, d.bytes);
    return out;
  }
  switch (d.dtype) {
    case DType::Float32:
      return out.bytes(5, d.bytes);
    case DType::Float64:
      return out.bytes(6, d.bytes);
    case DType::Complex64:
      return out.bytes(9, d.bytes);
    case DType::Complex128:
      return out.bytes(12, d.bytes);
    case DType::Int8:
    case DType::Int16:
    case DType::Int32:
    case DType::UInt8:
    case DType::UInt16:
      return out.packed_varints(7, as_varints(d));
    case DType::Int64:
      return out.packed_varints(10, as_varints(d));
    case DType::Bool:
      return out.packed_varints(11, as_varints(d));
    case DType::Float16:
    case DType::BFloat16:
      return out.packed_varints(13, as_varints(d));
    case DType::UInt32:
      return out.packed_varints(16, as_varints(d));
    case DType::UInt64:
      return out.packed_varints(17, as_varints(d));
    default:
      where.fail(std::string(dtype_name(d.dtype)) +
                 " has no typed TensorProto field; use "
                 "\"tensor_content\"");
  }
}

ProtoWriter tf_tensor(const Node& t) {
  t.check_keys({"dtype", "shape", "values", "fill", "encoding", "data_type"});
  const TensorData d = read_tensor(t);
  bool typed = false;
  if (auto e = t.find("encoding")) {
    const std::string name = e->string();
    if (name != "tensor_content" && name != "val")
      e->fail("expected \"tensor_content\" or \"val\", found \"" + name + "\"");
    typed = name == "val";
  }
  return tf_tensor(d, data_type_of(t, d.dtype, Dialect::TensorFlow), typed, t);
}

// ------------------------------------------------------------------------------------------------
// Histograms

struct Bucket {
  double left, width, count;
};

struct HistogramData {
  std::vector<Bucket> buckets;
  // nullopt: not written.
  std::optional<double> min, max, sum, sum_squares;
  std::optional<uint64_t> count, nan, pos_inf, neg_inf;
};

// The statistics a writer derives from the buckets, for the fields a description leaves out.
void complete(HistogramData& h) {
  double count = 0, sum = 0, squares = 0;
  for (const auto& b : h.buckets) {
    const double mid = b.left + b.width / 2;
    count += b.count, sum += mid * b.count, squares += mid * mid * b.count;
  }
  const double first = h.buckets.empty() ? 0 : h.buckets.front().left;
  const double last = h.buckets.empty() ? 0 : h.buckets.back().left + h.buckets.back().width;
  h.min = first, h.max = last, h.sum = sum, h.sum_squares = squares;
  h.nan = h.pos_inf = h.neg_inf = 0;
  h.count = static_cast<uint64_t>(count);
}

HistogramData read_histogram(const Node& n, Dialect dialect) {
  n.check_keys(
      {"buckets", "min", "max", "sum", "count", "nan", "pos_inf", "neg_inf", "sum_squares"});
  const bool tf = dialect == Dialect::TensorFlow;
  HistogramData h;
  for (const auto& b : n.at("buckets").elements()) {
    const auto parts = b.elements();
    if (parts.size() != 3) b.fail("expected [left, width, count]");
    // MindSpore's bucket count is an int64, TensorFlow's a double.
    const double count = tf ? real_of(parts[2]) : static_cast<double>(parts[2].i64());
    h.buckets.push_back({real_of(parts[0]), real_of(parts[1]), count});
  }
  for (std::string_view key : {"nan", "pos_inf", "neg_inf", "sum_squares"}) {
    const bool tf_field = key == "sum_squares";
    if (n.has(key) && tf_field != tf)
      n.at(key).fail(std::string("a ") + (tf_field ? "tensorflow" : "mindspore") +
                     " histogram field; this file is " + (tf ? "tensorflow" : "mindspore"));
  }
  complete(h);
  // A key given replaces the computed value; null leaves the field out.
  auto real = [&](std::string_view key, std::optional<double>& field) {
    if (auto v = n.find(key))
      field = v->value().is_null() ? std::nullopt : std::optional(real_of(*v));
  };
  auto count = [&](std::string_view key, std::optional<uint64_t>& field) {
    if (auto v = n.find(key)) field = v->value().is_null() ? std::nullopt : std::optional(v->u64());
  };
  real("min", h.min), real("max", h.max), real("sum", h.sum), real("sum_squares", h.sum_squares);
  count("count", h.count), count("nan", h.nan), count("pos_inf", h.pos_inf);
  count("neg_inf", h.neg_inf);
  // MindSpore's count is the total, NaN and infinities included (§5.4); TensorFlow has no such
  // counts (they are 0 here).
  if (!n.has("count"))
    *h.count += h.nan.value_or(0) + h.pos_inf.value_or(0) + h.neg_inf.value_or(0);
  return h;
}

// Summary.Histogram (§5.4), fields in number order as protobuf writes them.
ProtoWriter ms_histogram(const HistogramData& h) {
  ProtoWriter out;
  for (const auto& b : h.buckets)
    out.message(1, ProtoWriter()
                       .fixed64(1, double_bits(b.left))
                       .fixed64(2, double_bits(b.width))
                       .varint(3, static_cast<uint64_t>(static_cast<int64_t>(b.count))));
  if (h.nan) out.varint(2, *h.nan);
  if (h.pos_inf) out.varint(3, *h.pos_inf);
  if (h.neg_inf) out.varint(4, *h.neg_inf);
  if (h.max) out.fixed64(5, double_bits(*h.max));
  if (h.min) out.fixed64(6, double_bits(*h.min));
  if (h.sum) out.fixed64(7, double_bits(*h.sum));
  if (h.count) out.varint(8, *h.count);
  return out;
}

// HistogramProto (§15.2): bucket i runs up to bucket_limit(i) = left + width.
ProtoWriter tf_histogram(const HistogramData& h) {
  ProtoWriter out;
  if (h.min) proto3_double(out, 1, *h.min);
  if (h.max) proto3_double(out, 2, *h.max);
  if (h.count) proto3_double(out, 3, static_cast<double>(*h.count));
  if (h.sum) proto3_double(out, 4, *h.sum);
  if (h.sum_squares) proto3_double(out, 5, *h.sum_squares);
  if (!h.buckets.empty()) {
    std::vector<std::byte> limits, counts;
    for (const auto& b : h.buckets) {
      put_le(limits, double_bits(b.left + b.width), 8);
      put_le(counts, double_bits(b.count), 8);
    }
    out.bytes(6, limits).bytes(7, counts);
  }
  return out;
}

// MindSpore's binning (§10): 1 bucket when nothing is finite, 2 up to 5 values, 3 up to 10,
// count/10 + 1 up to 880, then 90; edges evenly spaced from min to max.
HistogramData histogram_of(const std::vector<float>& values) {
  HistogramData h;
  if (values.empty()) {
    complete(h);
    return h;
  }
  double lo = values[0], hi = values[0], sum = 0;
  for (float v : values) lo = std::min<double>(lo, v), hi = std::max<double>(hi, v), sum += v;
  const size_t n = values.size();
  const size_t bins = n <= 5 ? 2 : n <= 10 ? 3 : n <= 880 ? n / 10 + 1 : 90;
  if (lo == hi) lo -= 0.5, hi += 0.5;
  const double width = (hi - lo) / static_cast<double>(bins);
  std::vector<double> counts(bins, 0);
  for (float v : values) counts[std::min(bins - 1, static_cast<size_t>((v - lo) / width))] += 1;
  for (size_t i = 0; i < bins; ++i)
    h.buckets.push_back({lo + width * static_cast<double>(i), width, counts[i]});
  h.min = lo, h.max = hi, h.sum = sum;
  h.count = n, h.nan = h.pos_inf = h.neg_inf = 0;
  return h;
}

// ------------------------------------------------------------------------------------------------
// Values

struct FileState {
  Dialect dialect = Dialect::MindSpore;
  std::set<std::string, std::less<>> tags_seen;  // TensorFlow: metadata goes on a tag's first value
};

// LossLandscape (§5.5): Point{x, y, z} tensors as MindSpore writes tensors.
ProtoWriter landscape_point(const Node& owner) {
  ProtoWriter out;
  for (uint32_t i = 0; i < 3; ++i)
    if (auto t = owner.find(std::string(1, static_cast<char>('x' + i))))
      out.message(i + 1, ms_tensor(*t));
  return out;
}

ProtoWriter landscape_message(const Node& l) {
  l.check_keys({"x", "y", "z", "intervals", "path", "convergence", "decomposition", "unit",
                "step_per_epoch"});
  ProtoWriter out;
  if (l.has("x") || l.has("y") || l.has("z")) out.message(1, landscape_point(l));
  if (l.has("intervals") || l.has("path")) {
    ProtoWriter path;
    if (auto in = l.find("intervals"))
      for (const auto& i : in->elements()) path.varint(1, int32_varint(i));  // unpacked (§4)
    if (auto p = l.find("path")) {
      p->check_keys({"x", "y", "z"});
      path.message(2, landscape_point(*p));
    }
    out.message(2, path);
  }
  if (l.has("decomposition") || l.has("unit") || l.has("step_per_epoch")) {
    ProtoWriter meta;
    if (auto d = l.find("decomposition")) meta.string(1, d->string());
    if (auto u = l.find("unit")) meta.string(2, u->string());
    if (auto s = l.find("step_per_epoch")) meta.varint(3, int32_varint(*s));
    out.message(3, meta);
  }
  if (auto c = l.find("convergence")) {
    c->check_keys({"x", "y", "z"});
    out.message(4, landscape_point(*c));
  }
  return out;
}

ProtoWriter ms_scalar_value(std::string_view tag, double value) {
  ProtoWriter out;
  return out.string(1, tag).fixed32(3, float_bits(value));
}

ProtoWriter tf_scalar_value(std::string_view tag, double value) {
  ProtoWriter out;
  return out.string(1, tag).fixed32(2, float_bits(value));
}

// SummaryMetadata{plugin_data{plugin_name}, data_class} (§15.2).
ProtoWriter tf_metadata(std::string_view plugin, uint64_t data_class) {
  ProtoWriter out;
  out.message(1, ProtoWriter().string(1, plugin));
  proto3_varint(out, 4, data_class);
  return out;
}

const std::initializer_list<std::string_view> kValueKeys = {
    "tag",       "scalar", "image",     "histogram", "tensor",
    "landscape", "text",   "scalar_as", "plugin",    "metadata"};

ProtoWriter ms_value(const Node& v) {
  const std::string kind =
      one_key(v, {"scalar", "image", "histogram", "tensor", "landscape", "text"}, "value kind");
  for (auto key : {"text", "scalar_as", "plugin", "metadata"})
    if (v.has(key)) v.at(key).fail("a tensorflow value key; this file is mindspore");
  const std::string tag = name_bytes(v.at("tag"));
  if (kind == "scalar") return ms_scalar_value(tag, real_of(v.at("scalar")));
  ProtoWriter out;
  out.string(1, tag);
  if (kind == "image")
    return out.message(4, image_message(read_image(v.at("image")), Dialect::MindSpore));
  if (kind == "tensor") return out.message(8, ms_tensor(v.at("tensor")));
  if (kind == "histogram")
    return out.message(9, ms_histogram(read_histogram(v.at("histogram"), Dialect::MindSpore)));
  return out.message(10, landscape_message(v.at("landscape")));
}

ProtoWriter tf_value(const Node& v, FileState& state) {
  const std::string kind =
      one_key(v, {"scalar", "image", "histogram", "tensor", "landscape", "text"}, "value kind");
  if (kind == "landscape") v.at(kind).fail("a mindspore value; this file is tensorflow");
  const std::string tag = name_bytes(v.at("tag"));
  std::string plugin;
  uint64_t data_class = 0;
  ProtoWriter out;
  out.string(1, tag);
  const std::string scalar_as = v.has("scalar_as") ? v.at("scalar_as").string() : "simple_value";
  if (v.has("scalar_as") && kind != "scalar") v.at("scalar_as").fail("only for a scalar");
  if (kind == "scalar") {
    const double x = real_of(v.at("scalar"));
    if (scalar_as == "simple_value") {
      out.fixed32(2, float_bits(x));
    } else if (scalar_as == "tensor") {
      // TF2's tf.summary.scalar: a rank-0 DT_FLOAT tensor in float_val, plugin "scalars".
      ProtoWriter t;
      std::vector<std::byte> one;
      put_le(one, float_bits(x), 4);
      t.varint(1, 1).message(2, ProtoWriter()).bytes(5, one);
      out.message(8, t);
      plugin = "scalars", data_class = 1;  // DATA_CLASS_SCALAR
    } else {
      v.at("scalar_as")
          .fail("expected \"simple_value\" or \"tensor\", found \"" + scalar_as + "\"");
    }
  } else if (kind == "image") {
    out.message(4, image_message(read_image(v.at("image")), Dialect::TensorFlow));
  } else if (kind == "histogram") {
    out.message(5, tf_histogram(read_histogram(v.at("histogram"), Dialect::TensorFlow)));
  } else if (kind == "tensor") {
    out.message(8, tf_tensor(v.at("tensor")));
  } else {  // text: a DT_STRING tensor, rank 0 for one string, rank 1 for a list
    const Node text = v.at("text");
    std::vector<std::string> strings;
    if (text.is_array())
      for (const auto& s : text.elements()) strings.push_back(s.string());
    else
      strings.push_back(text.string());
    ProtoWriter t;
    t.varint(1, 7).message(2, tf_shape(text.is_array() ? std::vector<uint64_t>{strings.size()}
                                                       : std::vector<uint64_t>{}));
    for (const auto& s : strings) t.string(8, s);
    out.message(8, t);
    plugin = "text", data_class = 2;  // DATA_CLASS_TENSOR
  }
  if (auto p = v.find("plugin")) plugin = p->string();
  // TensorFlow's writers put the metadata on the first value of each tag only (§15.2).
  const bool first = state.tags_seen.insert(tag).second;
  const bool with_metadata =
      v.has("metadata") ? v.at("metadata").boolean() : first && !plugin.empty();
  if (with_metadata) {
    if (plugin.empty())
      v.at("metadata").fail("a value without a plugin has no metadata; give \"plugin\"");
    out.message(9, tf_metadata(plugin, data_class));
  }
  return out;
}

// ------------------------------------------------------------------------------------------------
// Explain (§5.6), MindSpore's _explain files. Repeated scalars are unpacked (§4).

void repeated_floats(ProtoWriter& out, uint32_t field, const Node& list) {
  for (const auto& x : list.elements()) out.fixed32(field, float_bits(real_of(x)));
}
void repeated_int32s(ProtoWriter& out, uint32_t field, const Node& list) {
  for (const auto& x : list.elements()) out.varint(field, int32_varint(x));
}
void repeated_strings(ProtoWriter& out, uint32_t field, const Node& list) {
  for (const auto& x : list.elements()) out.string(field, x.string());
}

ProtoWriter explain_message(const Node& x) {
  x.check_keys({"sample_id", "image_path", "ground_truth_label", "inference", "explanation",
                "benchmark", "metadata", "status", "hoc"});
  ProtoWriter out;
  if (auto s = x.find("sample_id")) out.varint(1, int32_varint(*s));
  if (auto s = x.find("image_path")) out.string(2, s->string());
  if (auto s = x.find("ground_truth_label")) repeated_int32s(out, 3, *s);
  if (auto inf = x.find("inference")) {
    static const std::initializer_list<std::string_view> kFields = {"ground_truth_prob",
                                                                    "predicted_label",
                                                                    "predicted_prob",
                                                                    "ground_truth_prob_sd",
                                                                    "ground_truth_prob_itl95_low",
                                                                    "ground_truth_prob_itl95_hi",
                                                                    "predicted_prob_sd",
                                                                    "predicted_prob_itl95_low",
                                                                    "predicted_prob_itl95_hi"};
    inf->check_keys(kFields);
    ProtoWriter m;
    uint32_t field = 1;
    for (auto key : kFields) {
      if (auto list = inf->find(key)) {
        if (key == "predicted_label")
          repeated_int32s(m, field, *list);
        else
          repeated_floats(m, field, *list);
      }
      ++field;
    }
    out.message(4, m);
  }
  if (auto list = x.find("explanation")) {
    for (const auto& e : list->elements()) {
      e.check_keys({"explain_method", "label", "heatmap_path"});
      ProtoWriter m;
      if (auto s = e.find("explain_method")) m.string(1, s->string());
      if (auto s = e.find("label")) m.varint(2, int32_varint(*s));
      if (auto s = e.find("heatmap_path")) m.string(3, s->string());
      out.message(5, m);
    }
  }
  if (auto list = x.find("benchmark")) {
    for (const auto& b : list->elements()) {
      b.check_keys({"benchmark_method", "explain_method", "total_score", "label_score"});
      ProtoWriter m;
      if (auto s = b.find("benchmark_method")) m.string(1, s->string());
      if (auto s = b.find("explain_method")) m.string(2, s->string());
      if (auto s = b.find("total_score")) m.fixed32(3, float_bits(real_of(*s)));
      if (auto s = b.find("label_score")) repeated_floats(m, 4, *s);
      out.message(6, m);
    }
  }
  if (auto meta = x.find("metadata")) {
    meta->check_keys({"label", "explain_method", "benchmark_method"});
    ProtoWriter m;
    if (auto s = meta->find("label")) repeated_strings(m, 1, *s);
    if (auto s = meta->find("explain_method")) repeated_strings(m, 2, *s);
    if (auto s = meta->find("benchmark_method")) repeated_strings(m, 3, *s);
    out.message(7, m);
  }
  if (auto s = x.find("status")) out.string(8, s->string());
  if (auto list = x.find("hoc")) {
    for (const auto& h : list->elements()) {
      h.check_keys({"label", "mask", "layer"});
      ProtoWriter m;
      if (auto s = h.find("label")) m.varint(1, int32_varint(*s));
      if (auto s = h.find("mask")) m.string(2, s->string());
      if (auto layers = h.find("layer")) {
        for (const auto& layer : layers->elements()) {
          layer.check_keys({"prob", "box"});
          ProtoWriter l;
          if (auto p = layer.find("prob")) l.fixed32(1, float_bits(real_of(*p)));
          if (auto b = layer.find("box")) repeated_int32s(l, 2, *b);
          m.message(3, l);
        }
      }
      out.message(9, m);
    }
  }
  return out;
}

// ------------------------------------------------------------------------------------------------
// Lineage (§7)

// JSON text as Python's json.dumps spells it (", " and ": " separators): MindSpore stores metrics
// and dataset parameter lists that way.
std::string python_json(const json& value) {
  std::string out;
  if (value.is_object()) {
    for (const auto& [key, item] : value.items())
      out += (out.empty() ? "{" : ", ") + json(key).dump() + ": " + python_json(item);
    return out.empty() ? "{}" : out + "}";
  }
  if (value.is_array()) {
    for (const auto& item : value) out += (out.empty() ? "[" : ", ") + python_json(item);
    return out.empty() ? "[]" : out + "]";
  }
  return value.is_null() ? "null" : value.dump();
}

// OperationParameter (§7): MindSpore's DatasetGraph packaging (mindspore/train/callback/
// _dataset_graph.py, `_package_parameter`) picks the map from the value's type: string mapStr,
// bool mapBool, integer mapInt, real mapDouble, list mapStrList (each element as JSON text, null
// as ""), object mapStr (as JSON text), null mapStr "None". Entries are written grouped by map, in
// field order, each map in description order.
class ParameterMaps {
 public:
  void add(std::string_view key, const Node& node) {
    const json& v = node.value();
    ProtoWriter entry;
    entry.string(1, key);
    uint32_t field = 1;
    if (v.is_string()) {
      entry.string(2, v.get<std::string>());
    } else if (v.is_boolean()) {
      entry.varint(2, v.get<bool>() ? 1 : 0), field = 3;
    } else if (v.is_number_integer()) {
      entry.varint(2, int32_varint(node)), field = 4;
    } else if (v.is_number()) {
      entry.fixed64(2, double_bits(v.get<double>())), field = 5;
    } else if (v.is_array()) {
      if (v.empty()) return;
      ProtoWriter list;
      for (const auto& item : v) list.string(1, item.is_null() ? "" : python_json(item));
      entry.message(2, list), field = 2;
    } else {
      entry.string(2, v.is_null() ? "None" : python_json(v));
    }
    entries_[field - 1].push_back(std::move(entry));
  }
  bool empty() const {
    for (const auto& e : entries_)
      if (!e.empty()) return false;
    return true;
  }
  ProtoWriter message() const {
    ProtoWriter out;
    for (uint32_t f = 0; f < 5; ++f)
      for (const auto& e : entries_[f]) out.message(f + 1, e);
    return out;
  }

 private:
  std::vector<ProtoWriter> entries_[5];
};

// Operation: lists of integers are `size`, other lists `weights` (both unpacked), everything else
// an operationParam entry.
ProtoWriter dataset_operation(const Node& op) {
  if (!op.is_object()) op.fail("expected an object, found " + brief(op.value()));
  ParameterMaps params;
  ProtoWriter out;
  std::vector<std::pair<uint32_t, uint64_t>> numbers;  // (field, bits) in description order
  for (const auto& [key, item] : op.value().items()) {
    const Node node = op.at(key);
    if (!item.is_array()) {
      params.add(key, node);
      continue;
    }
    bool integers = true;
    for (const auto& e : item) integers = integers && e.is_number_integer();
    for (const auto& e : node.elements()) {
      if (integers)
        numbers.emplace_back(2, int32_varint(e));
      else
        numbers.emplace_back(3, float_bits(real_of(e)));
    }
  }
  if (!params.empty()) out.message(1, params.message());
  for (auto [field, bits] : numbers)
    if (field == 2) out.varint(2, bits);
  for (auto [field, bits] : numbers)
    if (field == 3) out.fixed32(3, static_cast<uint32_t>(bits));
  return out;
}

// DatasetGraph: "children" (nodes), "operations" (a non-empty list), "sampler" (an object) are
// structure; any other key is a parameter.
ProtoWriter dataset_graph(const Node& node) {
  if (!node.is_object()) node.fail("expected an object, found " + brief(node.value()));
  ProtoWriter out;
  ParameterMaps params;
  std::vector<ProtoWriter> operations;
  std::optional<ProtoWriter> sampler;
  for (const auto& [key, item] : node.value().items()) {
    const Node child = node.at(key);
    if (key == "children") {
      for (const auto& c : child.elements()) out.message(1, dataset_graph(c));
    } else if (key == "operations" && item.is_array()) {
      for (const auto& op : child.elements()) operations.push_back(dataset_operation(op));
    } else if (key == "sampler" && item.is_object()) {
      sampler = dataset_operation(child);
    } else {
      params.add(key, child);
    }
  }
  if (!params.empty()) out.message(2, params.message());
  for (const auto& op : operations) out.message(3, op);
  if (sampler) out.message(4, *sampler);
  return out;
}

// UserDefinedInfo: MindSpore's custom lineage data puts each key in its own `user_info` entry
// (`_package_custom_lineage_data`); the maps can also be given directly.
ProtoWriter user_defined(const Node& u) {
  u.check_keys({"user_info", "map_dict", "map_int32", "map_str", "map_double"});
  ProtoWriter out;
  if (auto list = u.find("user_info"))
    for (const auto& item : list->elements()) out.message(1, user_defined(item));
  auto each = [&](std::string_view key, auto&& write) {
    if (auto m = u.find(key)) {
      if (!m->is_object()) m->fail("expected an object, found " + brief(m->value()));
      for (const auto& [k, unused] : m->value().items()) write(k, m->at(k));
    }
  };
  each("map_dict", [&](const std::string& k, const Node& v) {
    out.message(2, ProtoWriter().string(1, k).message(2, user_defined(v)));
  });
  each("map_int32", [&](const std::string& k, const Node& v) {
    out.message(3, ProtoWriter().string(1, k).varint(2, int32_varint(v)));
  });
  each("map_str", [&](const std::string& k, const Node& v) {
    out.message(4, ProtoWriter().string(1, k).string(2, v.string()));
  });
  each("map_double", [&](const std::string& k, const Node& v) {
    out.message(5, ProtoWriter().string(1, k).fixed64(2, double_bits(real_of(v))));
  });
  return out;
}

// TrainLineage from flat keys, grouped into its four messages; a message none of whose keys is
// given is left out.
ProtoWriter train_lineage(const Node& t) {
  t.check_keys({"optimizer", "learning_rate", "loss_function", "epoch", "parallel_mode",
                "device_num", "batch_size", "train_dataset_path", "train_dataset_size", "network",
                "loss", "model_path", "model_size"});
  ProtoWriter hyper, dataset, algorithm, model;
  if (auto v = t.find("optimizer")) hyper.string(1, v->string());
  if (auto v = t.find("learning_rate")) hyper.fixed32(2, float_bits(real_of(*v)));
  if (auto v = t.find("loss_function")) hyper.string(3, v->string());
  if (auto v = t.find("epoch")) hyper.varint(4, int32_varint(*v));
  if (auto v = t.find("parallel_mode")) hyper.string(5, v->string());
  if (auto v = t.find("device_num")) hyper.varint(6, int32_varint(*v));
  if (auto v = t.find("batch_size")) hyper.varint(8, int32_varint(*v));  // 7 is unused
  if (auto v = t.find("train_dataset_path")) dataset.string(1, v->string());
  if (auto v = t.find("train_dataset_size")) dataset.varint(2, int32_varint(*v));
  if (auto v = t.find("network")) algorithm.string(1, v->string());
  if (auto v = t.find("loss")) algorithm.fixed32(2, float_bits(real_of(*v)));
  if (auto v = t.find("model_path")) model.string(3, v->string());  // 3, not 1
  if (auto v = t.find("model_size")) model.varint(4, static_cast<uint64_t>(v->i64()));
  ProtoWriter out;
  if (!hyper.data().empty()) out.message(1, hyper);
  if (!dataset.data().empty()) out.message(2, dataset);
  if (!algorithm.data().empty()) out.message(3, algorithm);
  if (!model.data().empty()) out.message(4, model);
  return out;
}

ProtoWriter evaluation_lineage(const Node& e) {
  e.check_keys({"metric", "valid_dataset_path", "valid_dataset_size"});
  ProtoWriter out;
  if (auto m = e.find("metric"))  // JSON text; an object is written as json.dumps spells it
    out.string(2, m->is_string() ? m->string() : python_json(m->value()));
  if (e.has("valid_dataset_path") || e.has("valid_dataset_size")) {
    ProtoWriter valid;
    if (auto v = e.find("valid_dataset_path")) valid.string(1, v->string());
    if (auto v = e.find("valid_dataset_size")) valid.varint(2, int32_varint(*v));
    out.message(3, valid);
  }
  return out;
}

// ------------------------------------------------------------------------------------------------
// Events

struct Settings {
  Dialect dialect = Dialect::MindSpore;
  std::optional<std::string> version;  // the version record's text, when there is one
  double base = kBaseWallTime;
};

Settings read_settings(const Node& summary) {
  Settings s;
  if (auto d = summary.find("dialect")) {
    const std::string name = d->string();
    if (name == "mindspore")
      s.dialect = Dialect::MindSpore;
    else if (name == "tensorflow")
      s.dialect = Dialect::TensorFlow;
    else if (name == "lineage")
      s.dialect = Dialect::Lineage;
    else
      d->fail("expected \"mindspore\", \"tensorflow\" or \"lineage\", found \"" + name + "\"");
  }
  // The constants of §3.5 and §15.1; lineage files have no version record (§7).
  const std::string standard =
      s.dialect == Dialect::TensorFlow ? "brain.Event:2" : "MindSpore.Event:1";
  if (auto v = summary.find("version")) {
    if (v->is_string())
      s.version = v->string();
    else if (v->boolean())
      s.version = standard;
  } else if (s.dialect != Dialect::Lineage) {
    s.version = standard;
  }
  if (auto w = summary.find("wall_time")) s.base = w->number();
  return s;
}

// wall_time, then step: both Event and LineageEvent start so (§5.1, §7, §15.2).
ProtoWriter event_head(Dialect dialect, double wall_time, std::optional<int64_t> step) {
  ProtoWriter out;
  if (dialect == Dialect::TensorFlow) {
    proto3_double(out, 1, wall_time);
    if (step) proto3_varint(out, 2, static_cast<uint64_t>(*step));
  } else {
    out.fixed64(1, double_bits(wall_time));
    if (step) out.varint(2, static_cast<uint64_t>(*step));
  }
  return out;
}

// Appends `field` holding `message` to an event head.
std::vector<std::byte> with_field(ProtoWriter head, uint32_t field, const ProtoWriter& message) {
  return head.message(field, message).take();
}

std::vector<std::byte> graph_def(const Node& g) {
  if (!g.is_object())
    g.fail("expected a graph description (the object graph_proto takes), found " +
           brief(g.value()));
  if (!g.has("generate")) return build_graph_proto(g);
  const json generated = generate_ir(g);
  return build_graph_proto(Node(generated, g.path()));
}

const std::initializer_list<std::string_view> kEventKeys = {
    "step",        "wall_time", "values",  "graph",  "explain",    "lineage",
    "raw_payload", "version",   "corrupt", "length", "length_crc", "data_crc"};

std::vector<std::byte> event_payload(const Node& e, FileState& state, double default_wall_time) {
  e.check_keys(kEventKeys);
  const std::string key = one_key(
      e, {"values", "graph", "explain", "lineage", "raw_payload", "version"}, "event content");
  if (key == "raw_payload") {
    for (auto k : {"step", "wall_time"})
      if (e.has(k))
        e.at(k).fail("a raw payload is written as given; leave out \"" + std::string(k) + "\"");
    return parse_hex(e.at(key));
  }
  const Dialect dialect = state.dialect;
  const bool allowed =
      key == "version" ||
      (dialect == Dialect::Lineage ? key == "lineage"
                                   : key == "values" || key == "graph" ||
                                         (key == "explain" && dialect == Dialect::MindSpore));
  if (!allowed)
    e.at(key).fail("not an event of a " +
                   std::string(dialect == Dialect::MindSpore    ? "mindspore"
                               : dialect == Dialect::TensorFlow ? "tensorflow"
                                                                : "lineage") +
                   " file");
  const double wall_time = e.has("wall_time") ? e.at("wall_time").number() : default_wall_time;
  std::optional<int64_t> step;
  if (auto s = e.find("step")) step = s->i64();
  ProtoWriter head = event_head(dialect, wall_time, step);
  const Node content = e.at(key);
  if (key == "version") return head.string(3, content.string()).take();
  if (key == "graph") {
    // MindSpore: a GraphProto message; TensorFlow: the bytes of a serialized GraphDef (§15.3).
    if (dialect == Dialect::TensorFlow) return head.bytes(4, parse_hex(content)).take();
    return head.bytes(4, graph_def(content)).take();
  }
  if (key == "explain") return with_field(std::move(head), 6, explain_message(content));
  if (key == "values") {
    ProtoWriter summary;
    for (const auto& v : content.elements()) {
      v.check_keys(kValueKeys);
      summary.message(1, dialect == Dialect::TensorFlow ? tf_value(v, state) : ms_value(v));
    }
    return with_field(std::move(head), 5, summary);
  }
  // LineageEvent: one of train_lineage 6, evaluation_lineage 7, dataset_graph 9,
  // user_defined_info 10 (MindSpore writes each in an event of its own).
  content.check_keys({"train", "eval", "dataset_graph", "user_defined"});
  const std::string what =
      one_key(content, {"train", "eval", "dataset_graph", "user_defined"}, "lineage kind");
  const Node inner = content.at(what);
  if (what == "train") return with_field(std::move(head), 6, train_lineage(inner));
  if (what == "eval") return with_field(std::move(head), 7, evaluation_lineage(inner));
  if (what == "dataset_graph") return with_field(std::move(head), 9, dataset_graph(inner));
  return with_field(std::move(head), 10, user_defined(inner));
}

std::vector<std::byte> version_payload(const Settings& s) {
  return event_head(s.dialect, s.base, std::nullopt).string(3, *s.version).take();
}

// ------------------------------------------------------------------------------------------------
// Generated files (benchmarks)

// Records gathered in a buffer and written in large pieces, so that gigabytes take a few thousand
// write calls and memory stays flat.
class RecordFile {
 public:
  explicit RecordFile(const fs::path& path) : path_(path) {
    file_ = std::fopen(path.c_str(), "wb");
    if (file_ == nullptr) fail("cannot create");
  }
  ~RecordFile() {
    if (file_ != nullptr) std::fclose(file_);
  }
  RecordFile(const RecordFile&) = delete;
  RecordFile& operator=(const RecordFile&) = delete;

  void record(std::span<const std::byte> payload) {
    append_record(buffer_, payload);
    if (buffer_.size() >= (size_t{4} << 20)) flush();
  }
  uint64_t size() const { return written_ + buffer_.size(); }
  void close() {
    flush();
    std::FILE* f = file_;
    file_ = nullptr;
    if (std::fclose(f) != 0) fail("cannot write");
  }

 private:
  void flush() {
    if (!buffer_.empty() && std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size())
      fail("cannot write");
    written_ += buffer_.size();
    buffer_.clear();
  }
  [[noreturn]] void fail(const char* what) {
    throw DescriptionError(std::string(what) + " '" + path_.string() +
                           "': " + std::strerror(errno));
  }
  fs::path path_;
  std::FILE* file_ = nullptr;
  std::vector<std::byte> buffer_;
  uint64_t written_ = 0;
};

// SummaryCollector's own tags first (§2.3), then the kind of metrics a training script adds.
std::vector<std::string> scalar_tags(uint64_t count) {
  static const char* const kNames[] = {"loss/auto",  "accuracy",     "learning_rate",
                                       "grad_norm",  "loss_scale",   "epoch_time",
                                       "throughput", "top5_accuracy"};
  std::vector<std::string> tags;
  for (uint64_t i = 0; i < count; ++i)
    tags.push_back(i < std::size(kNames) ? kNames[i] : "metric_" + std::to_string(i));
  return tags;
}

}  // namespace

std::vector<std::byte> build_summary(const Node& summary) {
  summary.check_keys({"dialect", "version", "wall_time", "events", "generate"});
  if (summary.has("generate"))
    summary.at("generate")
        .fail(
            "a generated summary is streamed to its own file; give it as the "
            "only content of an entry, without truncate_at or append_hex");
  const Settings s = read_settings(summary);
  FileState state{s.dialect, {}};
  std::vector<std::byte> out;
  double record = 0;
  if (s.version) {
    append_record(out, version_payload(s));
    ++record;
  }
  for (const auto& e : summary.at("events").elements()) {
    append_record(out, event_payload(e, state, s.base + record), read_framing(e));
    ++record;
  }
  return out;
}

void write_generated_summary(const Node& summary, const fs::path& path) {
  summary.check_keys({"dialect", "version", "wall_time", "generate"});
  const Settings s = read_settings(summary);
  if (s.dialect == Dialect::Lineage)
    summary.at("dialect").fail("\"generate\" writes mindspore or tensorflow files");
  const Node g = summary.at("generate");
  g.check_keys(
      {"bytes", "seed", "tags", "tensor_every", "image_every", "graph_nodes", "tensor_dims"});
  const uint64_t bytes = g.at("bytes").u64();
  const uint64_t seed = g.has("seed") ? g.at("seed").u64() : 1;
  const uint64_t tag_count = g.has("tags") ? g.at("tags").u64() : 8;
  const uint64_t tensor_every = g.has("tensor_every") ? g.at("tensor_every").u64() : 100;
  const uint64_t image_every = g.has("image_every") ? g.at("image_every").u64() : 100;
  const uint64_t graph_nodes = g.has("graph_nodes") ? g.at("graph_nodes").u64() : 0;
  std::vector<uint64_t> tensor_dims{8, 16};
  if (g.has("tensor_dims")) {
    tensor_dims.clear();
    for (const auto& d : g.at("tensor_dims").elements()) tensor_dims.push_back(d.u64());
    uint64_t count = 1;
    for (uint64_t d : tensor_dims)
      if (d == 0 || (count *= d) > (uint64_t{1} << 28))
        g.at("tensor_dims").fail("dims of 1 to 2^28 elements in all");
  }
  if (graph_nodes != 0 && s.dialect != Dialect::MindSpore)
    g.at("graph_nodes").fail("a generated graph is a MindSpore GraphProto");
  const bool tf = s.dialect == Dialect::TensorFlow;

  RecordFile file(path);
  double record = 0;
  if (s.version) {
    file.record(version_payload(s));
    ++record;
  }
  if (graph_nodes != 0) {
    // The generated network of "Generated graphs" (README.md) as the graph event (§11).
    const json ir = {{"style", "C"}, {"generate", {{"nodes", graph_nodes}, {"seed", seed}}}};
    const json generated = generate_ir(Node(ir, g.path() + ".graph_nodes"));
    file.record(event_head(s.dialect, s.base + record, std::nullopt)
                    .bytes(4, build_graph_proto(Node(generated, g.path() + ".graph_nodes")))
                    .take());
    ++record;
  }
  const std::vector<std::string> tags = scalar_tags(tag_count);
  const ImageData image{32, 32, 3, encode_png(32, 32, 3, Pattern::Gradient)};
  SplitMix64 rng{seed};
  uint64_t tensor_elements = 1;
  for (uint64_t d : tensor_dims) tensor_elements *= d;
  std::vector<float> weights(tensor_elements);
  for (int64_t step = 1; file.size() < bytes; ++step, ++record) {
    // One event per step holding every value of the step, as SummaryRecord.record() packs them.
    ProtoWriter values;
    const double t = static_cast<double>(step);
    for (size_t k = 0; k < tags.size(); ++k) {
      double v = 0;
      if (k == 0)
        v = 2.3 * std::exp(-t / 2000) + 0.1 + 0.05 * (rng.unit() - 0.5);
      else if (k == 1)
        v = 1 - 0.9 * std::exp(-t / 1500) - 0.02 * rng.unit();
      else if (k == 2)
        v = 0.01 * std::pow(0.5, std::floor(t / 10000));
      else
        v = static_cast<double>(k) * (1 + rng.unit());
      values.message(1, tf ? tf_scalar_value(tags[k], v) : ms_scalar_value(tags[k], v));
    }
    if (tensor_every != 0 && step % static_cast<int64_t>(tensor_every) == 0) {
      for (auto& w : weights) w = static_cast<float>(rng.unit() * 0.2 - 0.1);
      TensorData d{DType::Float32, tensor_dims, {}, weights.size()};
      for (float w : weights) put_le(d.bytes, std::bit_cast<uint32_t>(w), 4);
      const HistogramData h = histogram_of(weights);
      ProtoWriter tensor, histogram;
      tensor.string(1, "fc1.weight");
      histogram.string(1, "fc1.weight/auto");
      if (tf) {
        tensor.message(8, tf_tensor(d, 1, false, g));
        histogram.message(5, tf_histogram(h));
      } else {
        tensor.message(8, ms_tensor(d, 11, "float_data", g));
        histogram.message(9, ms_histogram(h));
      }
      values.message(1, tensor).message(1, histogram);
    }
    if (image_every != 0 && step % static_cast<int64_t>(image_every) == 0)
      values.message(
          1,
          ProtoWriter().string(1, "input_data/auto").message(4, image_message(image, s.dialect)));
    file.record(with_field(event_head(s.dialect, s.base + record, step), 5, values));
  }
  file.close();
}

}  // namespace msdt::fixture
