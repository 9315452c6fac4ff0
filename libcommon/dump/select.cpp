#include "dump/select.h"

#include <fmt/format.h>

#include <algorithm>

#include "io/regex.h"
#include "io/text.h"

namespace msdt::dump {

bool IdList::contains(uint64_t id) const {
  return std::any_of(ranges_.begin(), ranges_.end(),
                     [id](const auto& range) { return range.first <= id && id <= range.second; });
}

namespace {

template <class F>
Status for_each_item(std::string_view text, F&& item) {
  size_t start = 0;
  while (true) {
    size_t comma = text.find(',', start);
    std::string_view piece = trim_blanks(
        text.substr(start, comma == std::string_view::npos ? text.npos : comma - start));
    MSDT_CHECK(item(piece));
    if (comma == std::string_view::npos) return std::nullopt;
    start = comma + 1;
  }
}

}  // namespace

Expected<IdList> parse_id_list(std::string_view text) {
  IdList list;
  auto status = for_each_item(text, [&](std::string_view item) -> Status {
    if (item.empty()) return Error(fmt::format("empty item in list {}", quote_for_message(text)));
    size_t dash = item.find('-');
    if (dash == std::string_view::npos) {
      auto value = parse_unsigned<uint64_t>(item);
      if (!value)
        return Error(fmt::format("{}: expected a non-negative integer or a range like 5-8",
                                 quote_for_message(item)));
      list.ranges_.emplace_back(*value, *value);
      return std::nullopt;
    }
    auto first = parse_unsigned<uint64_t>(trim_blanks(item.substr(0, dash)));
    auto last = parse_unsigned<uint64_t>(trim_blanks(item.substr(dash + 1)));
    if (!first || !last)
      return Error(fmt::format("{}: expected a range of two non-negative integers like 5-8",
                               quote_for_message(item)));
    if (*last < *first)
      return Error(fmt::format("{}: range end {} is before its start {}", quote_for_message(item),
                               *last, *first));
    list.ranges_.emplace_back(*first, *last);
    return std::nullopt;
  });
  if (status) return std::move(*status);
  return list;
}

Expected<std::vector<DType>> parse_dtype_list(std::string_view text) {
  std::vector<DType> dtypes;
  auto status = for_each_item(text, [&](std::string_view item) -> Status {
    auto dtype = parse_dtype_spelling(item);
    if (!dtype) return Error(fmt::format("{}: unknown dtype", quote_for_message(item)));
    dtypes.push_back(*dtype);
    return std::nullopt;
  });
  if (status) return std::move(*status);
  return dtypes;
}

Expected<Selector> Selector::create(const Selection& selection) {
  Selector selector;
  if (!selection.op.empty()) {
    auto compiled = compile_user_regex(selection.op);
    if (!compiled)
      return Error(
          fmt::format("--op: {}: {}", quote_for_message(selection.op), compiled.error().message));
    selector.op_ = std::move(*compiled);
  }
  auto list = [](std::string_view option, const std::string& text,
                 std::optional<IdList>& into) -> Status {
    if (text.empty()) return std::nullopt;
    auto parsed = parse_id_list(text);
    if (!parsed) return Error(fmt::format("{}: {}", option, parsed.error().message));
    into = std::move(*parsed);
    return std::nullopt;
  };
  MSDT_CHECK(list("--iteration", selection.iterations, selector.iterations_));
  MSDT_CHECK(list("--rank", selection.ranks, selector.ranks_));
  MSDT_CHECK(list("--graph", selection.graphs, selector.graphs_));
  if (!selection.io.empty()) {
    if (selection.io != "input" && selection.io != "output")
      return Error(
          fmt::format("--io: {}: expected input or output", quote_for_message(selection.io)));
    selector.io_ = selection.io;
  }
  if (!selection.dtypes.empty()) {
    auto dtypes = parse_dtype_list(selection.dtypes);
    if (!dtypes) return Error(fmt::format("--dtype: {}", dtypes.error().message));
    selector.dtypes_ = std::move(*dtypes);
  }
  return selector;
}

namespace {

template <class T>
bool matches(const std::optional<IdList>& list, const std::optional<T>& value) {
  return !list || (value && list->contains(*value));
}

}  // namespace

bool Selector::accepts_location(const DumpLocation& where) const {
  return matches(iterations_, where.iteration) && matches(ranks_, where.rank) &&
         matches(graphs_, where.graph);
}

bool Selector::accepts(const DumpLocation& where, const DumpFile& file,
                       const DumpTensor& tensor) const {
  if (!accepts_location(where)) return false;
  if (!io_.empty() && tensor.io != io_) return false;
  // The stored dtype or the one the name gives: 2.4+ stores bfloat16 as float32 under a
  // ".bfloat16.npy" name (dump spec §5.2), and a user asking for bfloat16 means those.
  auto wanted = [&](const std::optional<DType>& dtype) {
    return dtype && std::find(dtypes_.begin(), dtypes_.end(), *dtype) != dtypes_.end();
  };
  if (!dtypes_.empty() && !wanted(tensor.dtype) && !wanted(file.name.dtype)) return false;
  if (op_ && !op_->search(tensor.op_name)) return false;
  return true;
}

}  // namespace msdt::dump
