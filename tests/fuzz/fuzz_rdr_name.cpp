// Feeds the input to the recorder file-name grammar (spec rdr.md §2), the timestamp formatting
// and the classification by extension and content (§5): the first line is taken as a file name,
// the rest as the file's text. Nothing is rejected here; what must never happen is a crash or a
// hang. An accepted name keeps what the grammar promises: a violation stops the fuzzer.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "io/text.h"
#include "rdr/recorders.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  size_t newline = input.find('\n');
  std::string_view name = input.substr(0, newline);
  std::string_view text = newline == std::string_view::npos ? "" : input.substr(newline + 1);

  std::string_view extension;
  if (size_t dot = name.rfind('.'); dot != std::string_view::npos) extension = name.substr(dot);
  if (auto parsed = msdt::rdr::parse_recorder_name(name)) {
    if (!msdt::is_digits(parsed->timestamp, 14) || parsed->module.empty() || parsed->name.empty() ||
        parsed->extension != extension)
      __builtin_trap();
    if (msdt::rdr::readable_time(parsed->timestamp).size() != 19) __builtin_trap();
  }
  (void)msdt::rdr::readable_time(name);

  std::string detail;
  for (std::string_view ext :
       {extension, std::string_view(".ir"), std::string_view(".txt"), std::string_view(".json")}) {
    auto kind = msdt::rdr::classify(ext, text, &detail);
    if (msdt::rdr::kind_name(kind).empty() || msdt::rdr::kind_key(kind).empty()) __builtin_trap();
    if (!detail.empty() && kind != msdt::rdr::Kind::Graph) __builtin_trap();
  }
  return 0;
}
