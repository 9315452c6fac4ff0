// Output names of dump-convert, exactly as msaccucmp names them (dump spec §10.1, §3.8).
#include <fmt/format.h>

#include <algorithm>

#include "dump/convert.h"
#include "io/hash.h"

namespace msdt::dump {
namespace {

std::string join_dims(std::span<const uint64_t> shape, std::string_view separator) {
  return fmt::format("{}", fmt::join(shape, separator));
}

}  // namespace

std::string npy_output_name(std::string_view basename, std::string_view io, uint32_t index) {
  return fmt::format("{}.{}.{}.npy", basename, io, index);
}

std::string formatted_npy_output_name(std::string_view basename, std::string_view io,
                                      uint32_t index, std::span<const uint64_t> shape) {
  return fmt::format("{}.{}.{}.{}.npy", basename, io, index, join_dims(shape, "x"));
}

std::string bin_output_name(std::string_view basename, std::string_view io, uint32_t index,
                            std::span<const uint64_t> shape, std::string_view dtype,
                            std::string_view format) {
  return fmt::format("{}.{}.{}.{}.{}.{}.bin", basename, io, index, join_dims(shape, "_"), dtype,
                     format);
}

std::string device_bin_output_name(std::string_view basename, std::string_view io, uint32_t index,
                                   uint64_t element_count, std::string_view dtype,
                                   std::string_view format) {
  return fmt::format("{}.{}.{}.{}.{}.{}.bin", basename, io, index, element_count, dtype, format);
}

std::string msnpy_output_name(std::string_view basename, std::string_view op_name,
                              std::string_view io, uint32_t index, std::string_view format) {
  std::string base(basename);
  if (!op_name.empty() && std::count(basename.begin(), basename.end(), '.') == 4) {
    size_t first = basename.find('.');
    size_t second = basename.find('.', first + 1);
    size_t slash = op_name.rfind('/');
    std::string_view short_name =
        slash == std::string_view::npos ? op_name : op_name.substr(slash + 1);
    base = fmt::format("{}.{}{}", basename.substr(0, first), short_name, basename.substr(second));
  }
  return fmt::format("{}.{}.{}.{}.npy", base, io, index, format);
}

std::string buffer_output_name(std::string_view basename, uint32_t buffer_type, uint32_t index) {
  // msaccucmp's BUFFER_TYPE_MAP knows only L1 (OpBuffer.BufferType, dump spec §5.4).
  std::string type = buffer_type == 0 ? std::string("l1") : fmt::format("type{}", buffer_type);
  return fmt::format("{}.{}buffer.{}.bin", basename, type, index);
}

std::string workspace_output_name(std::string_view basename, uint32_t index) {
  return fmt::format("{}.space.{}.bin", basename, index);
}

std::string overflow_output_name(std::string_view basename, uint32_t index) {
  return fmt::format("{}.output.{}.json", basename, index);
}

std::string raw_tensor_output_name(std::string_view basename) {
  if (basename.ends_with(".bin") && basename.size() > 4)
    return fmt::format("{}.npy", basename.substr(0, basename.size() - 4));
  return fmt::format("{}.npy", basename);
}

std::string uuid3_dns_hex(std::string_view name) { return uuid3_hex(kUuidNamespaceDns, name); }

OutputName shorten_long_name(std::string name, std::string_view suffix) {
  // msaccucmp ConstManager.LINUX_FILE_NAME_MAX_LEN = 255, compared with >=.
  if (name.size() < 255) return {std::move(name), std::nullopt};
  std::string short_name = uuid3_dns_hex(name) + std::string(suffix);
  std::string line = fmt::format("{},{}", short_name, name);
  return {std::move(short_name), std::move(line)};
}

}  // namespace msdt::dump
