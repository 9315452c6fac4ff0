#include <algorithm>
#include <string>

#include "elements.h"
#include "payloads.h"
#include "tensor/npy.h"

namespace msdt::fixture {
namespace {

std::string shape_text(const std::vector<uint64_t>& shape, bool mindspore_style) {
  // NumPy: "(2, 3)", "(5,)", "()"; MindSpore's writer puts a comma after every element: "(2,3,)"
  // (dump spec §5.2).
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    out += std::to_string(shape[i]);
    if (mindspore_style)
      out += ",";
    else if (shape.size() == 1)
      out += ",";
    else if (i + 1 < shape.size())
      out += ", ";
  }
  return out + ")";
}

void append_le(std::vector<std::byte>& out, uint64_t value, unsigned bytes) {
  for (unsigned i = 0; i < bytes; ++i) out.push_back(static_cast<std::byte>(value >> (8 * i)));
}

}  // namespace

std::vector<std::byte> build_raw(const Node& raw) {
  raw.check_keys({"dtype", "shape", "count", "values", "fill"});
  DType dtype = parse_dtype(raw.at("dtype"));
  uint64_t count = 0;
  if (auto shape = raw.find("shape")) {
    if (raw.has("count")) raw.fail("give either \"shape\" or \"count\", not both");
    count = shape_elements(shape->u64_list(), *shape);
  } else if (auto c = raw.find("count")) {
    count = c->u64();
  } else if (auto values = raw.find("values")) {
    count = values->elements().size();
  } else {
    raw.fail("missing \"shape\", \"count\" or \"values\"");
  }
  return encode_elements(dtype, parse_value_spec(raw), count);
}

std::vector<std::byte> build_npy(const Node& npy) {
  npy.check_keys({"dtype", "shape", "values", "fill", "descr", "fortran_order", "version", "align",
                  "header_text", "header_length", "mindspore_style"});
  DType dtype = parse_dtype(npy.at("dtype"));
  std::vector<uint64_t> shape;
  if (auto s = npy.find("shape")) {
    shape = s->u64_list();
  } else if (auto values = npy.find("values")) {
    shape = {values->elements().size()};
  } else {
    npy.fail("missing \"shape\"");
  }
  uint64_t count = shape_elements(shape, npy);
  std::vector<std::byte> data = encode_elements(dtype, parse_value_spec(npy), count);

  std::string descr;
  if (auto d = npy.find("descr"))
    descr = d->string();
  else
    descr = std::string(npy_descr(dtype));

  bool custom = npy.has("descr") || npy.has("fortran_order") || npy.has("version") ||
                npy.has("align") || npy.has("header_text") || npy.has("header_length") ||
                npy.has("mindspore_style");
  std::vector<std::byte> out;
  if (!custom) {
    if (descr.empty())
      npy.fail(std::string(dtype_name(dtype)) +
               " has no standard npy descr; give \"descr\", e.g. \"<E2\"");
    std::string header = make_npy_header(dtype, shape);
    for (char c : header) out.push_back(static_cast<std::byte>(c));
  } else {
    if (descr.empty())
      npy.fail(std::string(dtype_name(dtype)) + " has no standard npy descr; give \"descr\"");
    bool fortran = false;
    if (auto f = npy.find("fortran_order")) fortran = f->boolean();
    bool mindspore_style = false;
    if (auto m = npy.find("mindspore_style")) mindspore_style = m->boolean();
    uint64_t align = 64;
    if (auto a = npy.find("align")) {
      align = a->u64();
      if (align == 0) a->fail("expected a positive alignment");
    }
    std::string text;
    if (auto h = npy.find("header_text")) {
      text = h->string();  // verbatim: no padding, no newline added
    } else {
      text = "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
             ", 'shape': " + shape_text(shape, mindspore_style) + ", }";
    }
    uint64_t version = 0;
    if (auto v = npy.find("version")) {
      version = v->u64();
      if (version < 1 || version > 3) v->fail("expected version 1, 2 or 3");
    }
    auto length_bytes = [&](uint64_t v) { return v == 1 ? 2u : 4u; };
    auto padded = [&](uint64_t v) {
      if (npy.has("header_text")) return text;
      uint64_t prefix = 8 + length_bytes(v);
      uint64_t pad = (align - (prefix + text.size() + 1) % align) % align;
      return text + std::string(pad, ' ') + "\n";
    };
    if (version == 0) version = padded(1).size() > 65535 ? 2 : 1;
    std::string header = padded(version);
    if (version == 1 && header.size() > 65535 && !npy.has("header_length"))
      npy.fail("the header needs version 2: it is " + std::to_string(header.size()) + " bytes");
    uint64_t header_length = header.size();
    if (auto hl = npy.find("header_length")) header_length = hl->u64();
    const char magic[] = "\x93NUMPY";
    for (int i = 0; i < 6; ++i) out.push_back(static_cast<std::byte>(magic[i]));
    out.push_back(static_cast<std::byte>(version));
    out.push_back(std::byte{0});
    append_le(out, header_length, length_bytes(version));
    for (char c : header) out.push_back(static_cast<std::byte>(c));
  }
  // A big-endian descr gets big-endian elements (each part of a complex number swapped alone).
  if (descr.size() > 1 && descr[0] == '>' && dtype_bits(dtype) > 8) {
    unsigned item = dtype_bits(dtype) / 8;
    if (dtype == DType::Complex32 || dtype == DType::Complex64 || dtype == DType::Complex128)
      item /= 2;
    for (size_t i = 0; i + item <= data.size(); i += item)
      std::reverse(data.begin() + i, data.begin() + i + item);
  }
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

}  // namespace msdt::fixture
