#include "model/ms_lite.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <utility>

#include "io/text.h"

namespace msdt::model {
namespace {

// §9.4: TypeIds 12-44 (and 0) are the same in every release.
constexpr std::pair<int32_t, std::string_view> kStableTypes[] = {
    {0, "Unknown"},  // kTypeUnknown, the enum's first value in every release
    {12, "String"},  {17, "TensorType"}, {30, "Bool"},   {31, "Int"},   {32, "Int8"},
    {33, "Int16"},   {34, "Int32"},      {35, "Int64"},  {36, "UInt"},  {37, "UInt8"},
    {38, "UInt16"},  {39, "UInt32"},     {40, "UInt64"}, {41, "Float"}, {42, "Float16"},
    {43, "Float32"}, {44, "Float64"},
};

// §9.4: TypeIds from 45 on, by release (major.minor ranges).
struct TypeRow {
  int first_minor, last_minor;             // major * 100 + minor
  std::array<std::string_view, 10> names;  // TypeId 45, 46, …; "" past the end of the enum
};
constexpr TypeRow kMovingTypes[] = {
    {7, 100, {}},  // 0.7-1.0: the enum ends at Float64 (44)
    {101, 104, {"Complex64"}},
    {105, 105, {"Complex64", "Complex128", "Int4"}},
    {106, 110, {"Complex", "Complex64", "Complex128", "Int4", "GLUInt"}},
    {200, 201, {"Double", "Complex", "Complex64", "Complex128", "Int4", "GLUInt"}},
    {202, 206, {"BFloat16", "Double", "Complex", "Complex64", "Complex128", "Int4", "GLUInt"}},
    // master after v2.6, branch r2.7.rc1: taken for every 2.7 version.
    {207,
     207,
     {"BFloat16", "Float8E4M3FN", "Float8E5M2", "HiFloat8", "Double", "Complex", "Complex64",
      "Complex128", "Int4", "GLUInt"}},
};
constexpr int32_t kFirstMoving = 45;

// "2.2" as 202, from a release string lite_release gives.
std::optional<int> release_number(std::string_view release) {
  const size_t dot = release.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  auto major = parse_unsigned<unsigned>(release.substr(0, dot));
  auto minor = parse_unsigned<unsigned>(release.substr(dot + 1));
  if (!major || !minor || *major > 99 || *minor > 99) return std::nullopt;
  return static_cast<int>(*major * 100 + *minor);
}

const TypeRow* row_of(std::string_view version) {
  auto number = release_number(lite_release(version));
  if (!number) return nullptr;
  for (const TypeRow& row : kMovingTypes)
    if (*number >= row.first_minor && *number <= row.last_minor) return &row;
  return nullptr;
}

std::optional<DType> element_type(std::string_view name) {
  // Lite packs a String tensor its own way (a count, offsets, characters); TensorType and GLUInt
  // have no element layout.
  if (name == "String" || name == "TensorType" || name == "GLUInt" || name == "Unknown")
    return std::nullopt;
  return parse_dtype_spelling(name);
}

constexpr std::string_view kFormats[] = {
    "NCHW", "NHWC", "NHWC4", "HWKC",   "HWCK",          "KCHW",  "CKHW", "KHWC", "CHWK",  "HW",
    "HW4",  "NC",   "NC4",   "NC4HW4", "NUM_OF_FORMAT", "NCDHW", "NWC",  "NCW",  "NC8HW8"};
constexpr std::string_view kCompressTypes[] = {"NONE",       "INDEXING", "SPARSE",   "FSE",
                                               "BITPACKING", "FSE_INT",  "FSE_INFER"};

// What decoding may hold before it stops: 32 times the file, so that tables or strings shared by
// many vector entries cannot turn a small file into a huge listing (a real converter output
// stays far below: every tensor has its own table, name and dims).
constexpr uint64_t kBudgetFactor = 32;
constexpr uint64_t kBudgetFloor = 64 * 1024;
constexpr uint64_t kTensorCost = 64;  // a tensor's fixed share, whatever its fields

// What is left of the decoding allowance (kBudgetFactor); the first overdraft is a problem.
class Budget {
 public:
  Budget(uint64_t file_size, std::vector<Error>& problems)
      : left_(std::max(kBudgetFloor, kBudgetFactor * file_size)), problems_(problems) {}
  bool spend(uint64_t cost, uint64_t at, std::string_view where) {
    if (cost <= left_) {
      left_ -= cost;
      return true;
    }
    if (!spent_)
      problems_.push_back(Error::at_offset(
          at, fmt::format("{}: decoding stops: the listing would pass {} times the file's size "
                          "(tables or strings shared by many entries?)",
                          where, kBudgetFactor)));
    spent_ = true;
    left_ = 0;
    return false;
  }
  bool spent() const { return spent_; }

 private:
  uint64_t left_;
  std::vector<Error>& problems_;
  bool spent_ = false;
};

// MetaGraph field ids (§9.3), by schema; kNone: the schema has no such field.
constexpr unsigned kNone = ~0u;
struct MetaGraphFields {
  unsigned name, version, fmk_type, input_index, output_index, nodes, all_tensors, sub_graph,
      obfuscate;
  unsigned count;  // fields in the schema's MetaGraph
};
constexpr MetaGraphFields kCurrentGraph = {0, 1, 2, 3, 4, 6, 7, 8, 9, 11};
constexpr MetaGraphFields kGraph1_0 = {0, 1, 2, 3, 4, 6, 7, kNone, kNone, 8};
constexpr MetaGraphFields kGraph0_7 = {0, kNone, 1, 2, 3, 5, 6, kNone, kNone, 7};
// Fields of the 0.7-1.0 Tensor: nodeType … quantParams (ids 0-7).
constexpr unsigned kLegacyTensorFields = 8;

const MetaGraphFields& graph_fields(std::optional<LiteLegacySchema> legacy) {
  if (!legacy) return kCurrentGraph;
  return *legacy == LiteLegacySchema::V1_0 ? kGraph1_0 : kGraph0_7;
}
enum TensorField : unsigned {
  kNodeType = 0,
  kDataType = 1,
  kDims = 2,
  kFormat = 3,
  kData = 6,
  kQuantParams = 7,
  kTensorName = 9,
  kHuffman = 10,
  kCompressType = 11,
  kExternalData = 12,
};
enum ExternalField : unsigned { kCheckSum = 0, kLocation = 1, kExtOffset = 2, kExtLength = 3 };

// The FlatBuffers layout of §9.2 over the whole file, every read checked.
class FlatReader {
 public:
  explicit FlatReader(Bytes file) : file_(file) {}

  struct Table {
    uint64_t at = 0;
    uint64_t vtable = 0;
    uint16_t vtable_size = 0;
    uint16_t table_size = 0;
  };
  struct Vector {
    uint64_t at = 0;  // the element count
    uint64_t count = 0;
    uint64_t data() const { return at + 4; }
  };

  uint64_t size() const { return file_.size(); }

  Expected<Table> table(uint64_t at) const {
    if (!fits(at, 4)) return past_end(at, 4, "table");
    const auto soffset = static_cast<int32_t>(load_u32le(file_.data() + at));
    // vtable = table - soffset, either side of the table.
    const int64_t vtable = static_cast<int64_t>(at) - static_cast<int64_t>(soffset);
    if (vtable < 0 || !fits(static_cast<uint64_t>(vtable), 4))
      return Error::at_offset(at, fmt::format("table's vtable offset {} leads outside the file "
                                              "({} bytes)",
                                              soffset, size()));
    Table t;
    t.at = at;
    t.vtable = static_cast<uint64_t>(vtable);
    t.vtable_size = load_u16le(file_.data() + t.vtable);
    t.table_size = load_u16le(file_.data() + t.vtable + 2);
    if (t.vtable_size < 4 || t.vtable_size % 2 != 0)
      return Error::at_offset(
          t.vtable,
          fmt::format("vtable size {} is not an even number of at least 4", t.vtable_size));
    if (!fits(t.vtable, t.vtable_size)) return past_end(t.vtable, t.vtable_size, "vtable");
    if (t.table_size < 4)
      return Error::at_offset(t.vtable, fmt::format("table size {} is less than the table's "
                                                    "4-byte vtable offset",
                                                    t.table_size));
    if (!fits(at, t.table_size)) return past_end(at, t.table_size, "table");
    return t;
  }

  // The absolute position of field `id` of `size` bytes; nullopt when absent.
  Expected<std::optional<uint64_t>> slot(const Table& t, unsigned id, unsigned bytes) const {
    const uint64_t entry = t.vtable + 4 + 2 * uint64_t{id};
    if (4 + 2 * uint64_t{id} + 2 > t.vtable_size) return std::optional<uint64_t>();
    const uint16_t field = load_u16le(file_.data() + entry);
    if (field == 0) return std::optional<uint64_t>();
    if (uint64_t{field} + bytes > t.table_size)
      return Error::at_offset(entry, fmt::format("field {} at {} bytes into its table, {} bytes "
                                                 "long, is outside the table ({} bytes)",
                                                 id, field, bytes, t.table_size));
    return std::optional<uint64_t>(t.at + field);
  }

  template <class T>
  Expected<T> scalar(const Table& t, unsigned id, T fallback) const {
    MSDT_TRY(auto at, slot(t, id, sizeof(T)));
    if (!at) return fallback;
    T value;
    if constexpr (sizeof(T) == 1) {
      value = static_cast<T>(file_[*at]);
    } else {
      using U = std::conditional_t<sizeof(T) == 2, uint16_t,
                                   std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>;
      const U bits = load_le<U>(file_.data() + *at);
      std::memcpy(&value, &bits, sizeof value);
    }
    return value;
  }

  // The target of the uoffset at `at` (which the caller has checked is in the file).
  Expected<uint64_t> follow(uint64_t at) const {
    const uint64_t target = at + load_u32le(file_.data() + at);
    if (target >= size())
      return Error::at_offset(at, fmt::format("offset {:#x} points past the end of the file ({} "
                                              "bytes)",
                                              target, size()));
    return target;
  }

  Expected<std::optional<uint64_t>> object(const Table& t, unsigned id) const {
    MSDT_TRY(auto at, slot(t, id, 4));
    if (!at) return std::optional<uint64_t>();
    MSDT_TRY(uint64_t target, follow(*at));
    return std::optional<uint64_t>(target);
  }

  Expected<std::string_view> string_at(uint64_t at) const {
    if (!fits(at, 4)) return past_end(at, 4, "string length");
    const uint32_t length = load_u32le(file_.data() + at);
    if (!fits(at + 4, length)) return past_end(at, uint64_t{length} + 4, "string");
    return std::string_view(reinterpret_cast<const char*>(file_.data()) + at + 4, length);
  }

  Expected<std::optional<std::string_view>> string(const Table& t, unsigned id) const {
    MSDT_TRY(auto at, object(t, id));
    if (!at) return std::optional<std::string_view>();
    MSDT_TRY(std::string_view text, string_at(*at));
    return std::optional<std::string_view>(text);
  }

  Expected<std::optional<Vector>> vector(const Table& t, unsigned id, unsigned element) const {
    MSDT_TRY(auto at, object(t, id));
    if (!at) return std::optional<Vector>();
    if (!fits(*at, 4)) return past_end(*at, 4, "vector length");
    Vector v{*at, load_u32le(file_.data() + *at)};
    if (!fits(v.data(), v.count * element))  // count < 2^32, element <= 8: no overflow
      return Error::at_offset(*at, fmt::format("vector of {} elements of {} bytes goes past the "
                                               "end of the file ({} bytes)",
                                               v.count, element, size()));
    return std::optional<Vector>(v);
  }

  // Element i of a vector of tables.
  Expected<Table> element(const Vector& v, uint64_t i) const {
    MSDT_TRY(uint64_t target, follow(v.data() + 4 * i));
    return table(target);
  }

  template <class T>
  T element_value(const Vector& v, uint64_t i) const {
    return static_cast<T>(load_u32le(file_.data() + v.data() + 4 * i));
  }

 private:
  bool fits(uint64_t at, uint64_t n) const { return at <= size() && n <= size() - at; }
  Error past_end(uint64_t at, uint64_t n, std::string_view what) const {
    return Error::at_offset(at, fmt::format("{} of {} bytes goes past the end of the file ({} "
                                            "bytes)",
                                            what, n, size()));
  }

  Bytes file_;
};

using Table = FlatReader::Table;

// Reads one table's fields, recording a bad one as a problem (with the owner's context) and
// giving its default instead.
class FieldReader {
 public:
  FieldReader(const FlatReader& flat, const Table& table, std::string context,
              std::vector<Error>& problems)
      : flat_(flat), table_(table), context_(std::move(context)), problems_(problems) {}

  template <class T>
  T scalar(unsigned id, std::string_view name, T fallback) {
    return keep(flat_.scalar<T>(table_, id, fallback), name, fallback);
  }
  std::string string(unsigned id, std::string_view name) {
    auto text = keep(flat_.string(table_, id), name, std::optional<std::string_view>());
    return text ? std::string(*text) : std::string();
  }
  std::optional<FlatReader::Vector> vector(unsigned id, std::string_view name, unsigned element) {
    return keep(flat_.vector(table_, id, element), name, std::optional<FlatReader::Vector>());
  }
  void problem(Error error, std::string_view name) {
    problems_.push_back(std::move(error).with_context(prefix(name)));
  }
  const std::string& context() const { return context_; }

 private:
  template <class T>
  T keep(Expected<T> value, std::string_view name, T fallback) {
    if (value) return std::move(*value);
    problem(std::move(value).error(), name);
    return fallback;
  }
  std::string prefix(std::string_view name) const {
    return context_.empty() ? std::string(name) : fmt::format("{}: {}", context_, name);
  }

  const FlatReader& flat_;
  Table table_;
  std::string context_;
  std::vector<Error>& problems_;
};

std::vector<uint32_t> uints(const FlatReader& flat, const std::optional<FlatReader::Vector>& v) {
  std::vector<uint32_t> out;
  if (!v) return out;
  out.reserve(v->count);
  for (uint64_t i = 0; i < v->count; ++i) out.push_back(flat.element_value<uint32_t>(*v, i));
  return out;
}

std::string type_candidates(int32_t type_id) {
  std::vector<std::string_view> names;
  // Every row is a release that writes MSL2 (1.2 and later, §9.1) or shares its row with one.
  for (const TypeRow& row : kMovingTypes) {
    const std::string_view name = row.names[static_cast<size_t>(type_id - kFirstMoving)];
    if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end())
      names.push_back(name);
  }
  if (names.empty()) return fmt::format("TypeId {}", type_id);
  std::string list;
  for (size_t i = 0; i < names.size(); ++i)
    list += fmt::format("{}{}", i == 0 ? "" : i + 1 == names.size() ? " or " : ", ", names[i]);
  return fmt::format("TypeId {} ({} by release)", type_id, list);
}

MsLiteExternal read_external(const FlatReader& flat, const Table& t, FieldReader& owner,
                             uint64_t index, std::vector<Error>& problems) {
  FieldReader f(flat, t, fmt::format("{}: externalData[{}]", owner.context(), index), problems);
  MsLiteExternal out;
  out.checksum = f.string(kCheckSum, "checkSum");
  out.location = f.string(kLocation, "location");
  out.offset = f.scalar<int64_t>(kExtOffset, "offset", 0);
  out.length = f.scalar<int64_t>(kExtLength, "length", -1);
  return out;
}

// Checks the externalData entries of `out` and, for one sound entry, sets its range as the
// content's segment (in the file it names).
void check_external(MsLiteTensor& out, FieldReader& f) {
  if (out.external_data.size() != 1) {
    f.problem(Error::at_offset(out.offset, fmt::format("{} entries where one is expected (a "
                                                       "tensor's bytes lie in one file)",
                                                       out.external_data.size())),
              "externalData");
    return;
  }
  const MsLiteExternal& e = out.external_data.front();
  std::string_view damage;
  if (e.offset < 0)
    damage = "a negative offset";
  else if (e.length < 0)
    damage = e.length == -1 ? "no length" : "a negative length";
  else if (e.offset > std::numeric_limits<int64_t>::max() - e.length)
    damage = "an end past 2^63";
  if (!damage.empty()) {
    f.problem(Error::at_offset(out.offset,
                               fmt::format("offset {} length {}: {}", e.offset, e.length, damage)),
              "externalData[0]");
    return;
  }
  out.external_range = 0;
  out.content.segments = {{static_cast<uint64_t>(e.offset), static_cast<uint64_t>(e.length)}};
}

// `type_version` names the release whose TypeIds apply (§9.4); `legacy`: a 0.7-1.0 Tensor, whose
// table ends at quantParams.
MsLiteTensor read_tensor(const FlatReader& flat, const Table& t, uint64_t index,
                         std::string_view type_version, bool legacy, Budget& budget,
                         std::vector<Error>& problems) {
  MsLiteTensor out;
  out.offset = t.at;
  // The name first, so that the other fields' problems can name the tensor.
  FieldReader unnamed(flat, t, fmt::format("allTensors[{}]", index), problems);
  if (!legacy) out.name = unnamed.string(kTensorName, "name");
  FieldReader f(flat, t,
                out.name.empty()
                    ? fmt::format("allTensors[{}]", index)
                    : fmt::format("allTensors[{}] {}", index, quote_for_message(out.name)),
                problems);
  out.node_type = f.scalar<int32_t>(kNodeType, "nodeType", 0);
  out.data_type = f.scalar<int32_t>(kDataType, "dataType", 0);
  const LiteType type = lite_type(out.data_type, type_version);
  out.data_type_name = type.name;
  if (auto dims = f.vector(kDims, "dims", 4))
    for (uint64_t i = 0; i < dims->count; ++i)
      out.dims.push_back(flat.element_value<int32_t>(*dims, i));
  out.format = f.scalar<int32_t>(kFormat, "format", 0);
  out.format_name = std::string(lite_format_name(out.format, legacy));
  if (out.format_name.empty()) out.format_name = fmt::format("Format {}", out.format);
  if (auto q = f.vector(kQuantParams, "quantParams", 4))
    out.quant_params = static_cast<uint32_t>(q->count);
  if (!legacy) {
    out.huffman = f.scalar<uint8_t>(kHuffman, "enableHuffmanCode", 0) != 0;
    out.compress_type = f.scalar<int32_t>(kCompressType, "weightQuantCompressType", 0);
  }
  out.compress_name = std::string(lite_compress_name(out.compress_type));
  if (out.compress_name.empty())
    out.compress_name = fmt::format("WeightQuantCompressType {}", out.compress_type);
  if (auto ext = legacy ? std::nullopt : f.vector(kExternalData, "externalData", 4)) {
    for (uint64_t i = 0; i < ext->count; ++i) {
      auto table = flat.element(*ext, i);
      if (!table) {
        f.problem(std::move(table).error(), fmt::format("externalData[{}]", i));
        continue;
      }
      MsLiteExternal entry = read_external(flat, *table, f, i, problems);
      if (!budget.spend(kTensorCost + entry.location.size() + entry.checksum.size(), table->at,
                        fmt::format("{}: externalData[{}]", f.context(), i)))
        break;
      out.external_data.push_back(std::move(entry));
    }
  }
  out.external = !out.external_data.empty();
  if (budget.spent()) return out;  // dropped by the caller

  Content& c = out.content;
  c.spelling = out.data_type_name;
  c.dtype = type.dtype;
  const auto data = f.vector(kData, "data", 1);
  if (data && data->count > 0) c.segments.push_back({data->data(), data->count});
  const bool negative =
      std::any_of(out.dims.begin(), out.dims.end(), [](int32_t d) { return d < 0; });
  if (!negative) {
    for (int32_t d : out.dims) c.dims.push_back(static_cast<uint64_t>(d));
    c.shape = c.dims;
  }
  // externalData replaces the data vector: the bytes are in the file it names.
  if (out.external) {
    c.segments.clear();
    check_external(out, f);
  }
  if (c.segments.empty()) return out;  // an input, an activation or a damaged external entry
  const uint64_t at = out.external ? out.offset : c.segments.front().offset;
  if (negative) {
    f.problem(Error::at_offset(at, fmt::format("dims [{}] hold a negative dimension, yet the "
                                               "tensor holds {} bytes of data",
                                               fmt::join(out.dims, ", "), c.bytes())),
              out.external ? "externalData" : "data");
    return out;
  }
  if (!c.dtype || out.compressed()) return out;  // no element layout to check against
  if (Status overflow = set_expected_bytes(c)) {
    f.problem(Error::at_offset(at, overflow->message), "dims");
    return out;
  }
  if (!c.consistent())
    f.problem(Error::at_offset(at, fmt::format("holds {} bytes, dims {} {} need {}", c.bytes(),
                                               dims_text(c.dims), c.spelling, *c.expected_bytes)),
              out.external ? "externalData" : "data");
  return out;
}

// A tensor's share apart from its externalData entries (spent as they are read).
uint64_t tensor_cost(const MsLiteTensor& t) {
  return kTensorCost + t.name.size() + t.data_type_name.size() + 20 * t.dims.size();
}

}  // namespace

std::string lite_release(std::string_view version) {
  constexpr std::string_view kPrefix = "MindSpore Lite ";
  if (!version.starts_with(kPrefix)) return {};
  std::string_view rest = version.substr(kPrefix.size());
  const size_t major_end = rest.find('.');
  if (major_end == std::string_view::npos) return {};
  size_t minor_end = major_end + 1;
  while (minor_end < rest.size() && rest[minor_end] >= '0' && rest[minor_end] <= '9') ++minor_end;
  const std::string release(rest.substr(0, minor_end));
  auto number = release_number(release);
  if (!number) return {};
  for (const TypeRow& row : kMovingTypes)
    if (*number >= row.first_minor && *number <= row.last_minor)
      return fmt::format("{}.{}", *number / 100, *number % 100);
  return {};
}

LiteType lite_type(int32_t type_id, std::string_view version) {
  LiteType out;
  if (type_id < kFirstMoving) {
    for (const auto& [id, name] : kStableTypes)
      if (id == type_id) {
        out.name = std::string(name);
        out.dtype = element_type(name);
        out.resolved = true;
        return out;
      }
    out.name = fmt::format("TypeId {}", type_id);
    return out;
  }
  if (type_id >= kFirstMoving + 10) {
    out.name = fmt::format("TypeId {}", type_id);
    return out;
  }
  if (const TypeRow* row = row_of(version)) {
    const std::string_view name = row->names[static_cast<size_t>(type_id - kFirstMoving)];
    if (name.empty()) {
      out.name =
          fmt::format("TypeId {} (past the end of {}'s TypeId)", type_id, lite_release(version));
      return out;
    }
    out.name = std::string(name);
    out.dtype = element_type(name);
    out.resolved = true;
    return out;
  }
  out.name = type_candidates(type_id);
  return out;
}

std::optional<int32_t> lite_type_id(std::string_view name, std::string_view version) {
  for (const auto& [id, stable] : kStableTypes)
    if (stable == name) return id;
  if (const TypeRow* row = row_of(version))
    for (size_t i = 0; i < row->names.size(); ++i)
      if (!row->names[i].empty() && row->names[i] == name)
        return kFirstMoving + static_cast<int32_t>(i);
  return std::nullopt;
}

std::string_view lite_format_name(int32_t format, bool legacy) {
  if (legacy) {
    // 0.7-1.1 ops.fbs: NCHW … NC4 as now, then NC4HW4 = 100, NUM_OF_FORMAT.
    if (format == 100) return "NC4HW4";
    if (format == 101) return "NUM_OF_FORMAT";
    if (format > 12) return {};
  }
  if (format < 0 || static_cast<size_t>(format) >= std::size(kFormats)) return {};
  return kFormats[format];
}

std::string_view lite_legacy_schema_name(LiteLegacySchema schema) {
  return schema == LiteLegacySchema::V1_0 ? "1.0" : "0.7";
}

std::optional<LiteLegacySchema> lite_legacy_schema(Bytes file) {
  if (file.size() < 12) return std::nullopt;
  const std::string_view id(reinterpret_cast<const char*>(file.data()) + 4, 4);
  if (id == "MSL1" || id == "MSL2") return std::nullopt;
  const uint32_t root = load_u32le(file.data());
  if (root % 4 != 0 || root < 8) return std::nullopt;
  const FlatReader flat(file);
  auto table = flat.table(root);
  if (!table) return std::nullopt;
  // The root table is the last one the builder writes, its vtable right in front of it, and the
  // root offset in front of that (with zeros to align): no identifier between them.
  if (table->vtable < 4 || table->vtable + table->vtable_size != root) return std::nullopt;
  for (uint64_t i = 4; i < table->vtable; ++i)
    if (file[i] != std::byte{0}) return std::nullopt;
  // The vtable ends at allTensors, the last field of both schemas.
  const LiteLegacySchema schema = table->vtable_size == 4 + 2 * kGraph1_0.count
                                      ? LiteLegacySchema::V1_0
                                      : LiteLegacySchema::V0_7;
  const MetaGraphFields& ids = graph_fields(schema);
  if (table->vtable_size != 4 + 2 * ids.count) return std::nullopt;
  // Every MetaGraph field is 4 bytes (a uoffset, an int or a uint), aligned to 4 in the table.
  if (table->table_size % 4 != 0 || table->table_size > 4 + 4 * ids.count) return std::nullopt;
  for (unsigned i = 0; i < ids.count; ++i) {
    const uint16_t at = load_u16le(file.data() + table->vtable + 4 + 2 * i);
    if (at != 0 && (at % 4 != 0 || at < 4 || at + 4u > table->table_size)) return std::nullopt;
  }
  // Strings inside the file and NUL-terminated.
  for (unsigned i : {ids.name, ids.version}) {
    if (i == kNone) continue;
    auto text = flat.string(*table, i);
    if (!text) return std::nullopt;
    if (*text) {
      const uint64_t end = static_cast<uint64_t>((*text)->data() + (*text)->size() -
                                                 reinterpret_cast<const char*>(file.data()));
      if (end >= file.size() || file[end] != std::byte{0}) return std::nullopt;
    }
  }
  for (unsigned i : {ids.input_index, ids.output_index, ids.nodes})
    if (!flat.vector(*table, i, 4)) return std::nullopt;
  auto tensors = flat.vector(*table, ids.all_tensors, 4);
  if (!tensors || !*tensors || (*tensors)->count == 0) return std::nullopt;
  // The first tensors are tables of the 0.7-1.0 Tensor (ids 0-7).
  for (uint64_t i = 0; i < std::min<uint64_t>((*tensors)->count, 8); ++i) {
    auto tensor = flat.element(**tensors, i);
    if (!tensor || tensor->vtable_size > 4 + 2 * kLegacyTensorFields) return std::nullopt;
  }
  return schema;
}

std::string_view lite_compress_name(int32_t type) {
  if (type < 0 || static_cast<size_t>(type) >= std::size(kCompressTypes)) return {};
  return kCompressTypes[type];
}

MsLite read_ms_lite(Bytes file) {
  MsLite out;
  out.file_size = file.size();
  if (file.size() < 8) {
    out.problems.push_back(Error::at_offset(
        0, fmt::format("a file of {} bytes is too short for a FlatBuffers root offset and "
                       "identifier (8 bytes)",
                       file.size())));
    return out;
  }
  const std::string_view id(reinterpret_cast<const char*>(file.data()) + 4, 4);
  if (id == "MSL2" || id == "MSL1") out.identifier = std::string(id);
  if (out.identifier.empty()) out.legacy = lite_legacy_schema(file);
  out.supported = out.identifier == "MSL2" || out.legacy;
  if (!out.supported) return out;

  const FlatReader flat(file);
  auto root = flat.follow(0);
  if (!root) {
    out.problems.push_back(std::move(root).error().with_context("root MetaGraph"));
    return out;
  }
  auto graph = flat.table(*root);
  if (!graph) {
    out.problems.push_back(std::move(graph).error().with_context("root MetaGraph"));
    return out;
  }
  const MetaGraphFields& ids = graph_fields(out.legacy);
  FieldReader f(flat, *graph, "MetaGraph", out.problems);
  out.name = f.string(ids.name, "name");
  if (ids.version != kNone) out.version = f.string(ids.version, "version");
  out.release = lite_release(out.version);
  // 0.7-1.0 share one TypeId table (§9.4), whatever the version field says.
  const std::string type_version =
      out.legacy ? fmt::format("MindSpore Lite {}", lite_legacy_schema_name(*out.legacy))
                 : out.version;
  out.fmk_type = f.scalar<int32_t>(ids.fmk_type, "fmkType", 0);
  out.inputs = uints(flat, f.vector(ids.input_index, "inputIndex", 4));
  out.outputs = uints(flat, f.vector(ids.output_index, "outputIndex", 4));
  if (auto nodes = f.vector(ids.nodes, "nodes", 4)) out.node_count = nodes->count;
  if (ids.obfuscate != kNone)
    out.obfuscated = f.scalar<uint8_t>(ids.obfuscate, "obfuscate", 0) != 0;

  Budget budget(file.size(), out.problems);
  if (auto subgraphs =
          ids.sub_graph == kNone ? std::nullopt : f.vector(ids.sub_graph, "subGraph", 4)) {
    out.subgraph_count = subgraphs->count;
    for (uint64_t i = 0; i < subgraphs->count; ++i) {
      const std::string where = fmt::format("subGraph[{}]", i);
      auto table = flat.element(*subgraphs, i);
      if (!table) {
        out.problems.push_back(std::move(table).error().with_context(where));
        continue;
      }
      FieldReader s(flat, *table, where, out.problems);
      std::string name = s.string(0, "name");
      if (!budget.spend(kTensorCost + name.size(), table->at, where)) break;
      out.subgraph_names.push_back(std::move(name));
    }
  }

  if (auto tensors = f.vector(ids.all_tensors, "allTensors", 4)) {
    out.tensor_count = tensors->count;
    for (uint64_t i = 0; i < tensors->count; ++i) {
      const std::string where = fmt::format("allTensors[{}]", i);
      auto table = flat.element(*tensors, i);
      if (!table) {
        out.problems.push_back(std::move(table).error().with_context(where));
        continue;
      }
      MsLiteTensor tensor =
          read_tensor(flat, *table, i, type_version, out.legacy.has_value(), budget, out.problems);
      if (!budget.spend(tensor_cost(tensor), table->at, where) || budget.spent()) break;
      out.tensors.push_back(std::move(tensor));
    }
  }
  return out;
}

}  // namespace msdt::model
