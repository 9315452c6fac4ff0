// Format names of dump spec §4.2 (kOpFormat_*) and §5.6 (OutputFormat, msaccucmp spellings).
#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tensor/layout.h"

namespace msdt {
namespace {

// msaccucmp's STRING_TO_FORMAT_MAP spelling of each OutputFormat value (dump spec §5.6): the enum
// name without FORMAT_, with the listed exceptions. 47–49 are missing from msaccucmp's map; we use
// the enum names so that newer dumps still show something readable.
constexpr std::array<std::string_view, 50> kAscendFormatNames = {
    "NCHW",                            // 0
    "NHWC",                            // 1
    "ND",                              // 2
    "NC1HWC0",                         // 3
    "FRACTAL_Z",                       // 4
    "NC1C0HWPAD",                      // 5
    "NHWC1C0",                         // 6
    "FSR_NCHW",                        // 7
    "FRACTAL_DECONV",                  // 8
    "C1HWNC0",                         // 9
    "FRACTAL_DECONV_TRANSPOSE",        // 10
    "FRACTAL_DECONV_SP_STRIDE_TRANS",  // 11
    "NC1HWC0_C04",                     // 12
    "FRACTAL_Z_C04",                   // 13
    "CHWN",                            // 14
    "DECONV_SP_STRIDE8_TRANS",         // 15
    "HWCN",                            // 16
    "NC1KHKWHWC0",                     // 17
    "BN_WEIGHT",                       // 18
    "FILTER_HWCK",                     // 19
    "LOOKUP_LOOKUPS",                  // 20
    "LOOKUP_KEYS",                     // 21
    "LOOKUP_VALUE",                    // 22
    "LOOKUP_OUTPUT",                   // 23
    "LOOKUP_HITS",                     // 24
    "C1HWNCoC0",                       // 25
    "MD",                              // 26
    "NDHWC",                           // 27
    "FRACTAL_ZZ",                      // 28
    "FRACTAL_NZ",                      // 29
    "NCDHW",                           // 30: RESERVED in the 2020 metadef copy, NCDHW since
    "DHWCN",                           // 31
    "NDC1HWC0",                        // 32
    "FRACTAL_Z_3D",                    // 33
    "CN",                              // 34
    "NC",                              // 35
    "DHWNC",                           // 36
    "FRACTAL_Z_3D_TRANSPOSE",          // 37
    "FRACTAL_ZN_LSTM",                 // 38
    "FRACTAL_Z_G",                     // 39
    "RESERVED",                        // 40
    "ALL",                             // 41
    "NULL",                            // 42
    "ND_RNN_BIAS",                     // 43
    "FRACTAL_ZN_RNN",                  // 44
    "YUV",                             // 45
    "YUV_A",                           // 46
    "NCL",                             // 47
    "FRACTAL_Z_WINO",                  // 48
    "C1HWC0",                          // 49
};
constexpr uint32_t kAscendFormatMax = 255;

// kOpFormat_* strings, old and new (§4.2), and spellings that only appear in other producers'
// names (adump, the enum names msaccucmp renamed).
constexpr auto kExtraFormatNames = std::to_array<std::string_view>({
    "DefaultFormat",
    "FracZ",
    "NC1KHKWHWC0",
    "ND",
    "NCHW",
    "NHWC",
    "HWCN",
    "NC1HWC0",
    "FRACTAL_NZ",
    "C1HWNCoC0",
    "NC1HWC0_C04",
    "FRACTAL_Z_C04",
    "NDHWC",
    "NCDHW",
    "DHWNC",
    "DHWCN",
    "NDC1HWC0",
    "FRACTAL_Z_3D",
    "FRACTAL_ZN_LSTM",
    "ChannelFirst",
    "ChannelLast",
    "CHWN",
    "FRACTAL_ZN_RNN",
    "ND_RNN_BIAS",
    "NCL",
    "MAX",
    "FRACTAL_DECONV_SP_STRIDE8_TRANS",
    "HASHTABLE_LOOKUP_LOOKUPS",
    "HASHTABLE_LOOKUP_KEYS",
    "HASHTABLE_LOOKUP_VALUE",
    "HASHTABLE_LOOKUP_OUTPUT",
    "HASHTABLE_LOOKUP_HITS",
    "NYUV",
    "NYUV_A",
});

std::vector<std::string_view> build_known_format_names() {
  std::vector<std::string_view> names;
  names.insert(names.end(), kAscendFormatNames.begin(), kAscendFormatNames.end());
  names.insert(names.end(), kExtraFormatNames.begin(), kExtraFormatNames.end());
  // Callers match `_{format}` at the end of a file name (§3.1 step 2); longest first guarantees
  // that FSR_NCHW wins over NCHW and NC1HWC0_C04 over anything it ends with.
  std::stable_sort(names.begin(), names.end(),
                   [](std::string_view a, std::string_view b) { return a.size() > b.size(); });
  // Several names are in more than one list; keep the first of each.
  std::vector<std::string_view> deduplicated;
  for (auto name : names)
    if (std::find(deduplicated.begin(), deduplicated.end(), name) == deduplicated.end())
      deduplicated.push_back(name);
  return deduplicated;
}

}  // namespace

std::span<const std::string_view> known_format_names() {
  static const std::vector<std::string_view> names = build_known_format_names();
  return names;
}

std::string canonical_format(std::string_view name) {
  // kOpFormat_FRAC_Z was "FracZ" up to at least MindSpore 1.6 (§4.2).
  if (name == "FracZ") return "FRACTAL_Z";
  return std::string(name);
}

std::string_view ascend_format_name(uint64_t output_format) {
  // GE ORs sub-format and C0 bits into the high bits of a 32-bit value (§5.6, GetPrimaryFormat);
  // a wire value past 32 bits is no format.
  if (output_format > UINT32_MAX) return {};
  const auto primary = static_cast<uint32_t>(output_format & 0xFFu);
  if (primary < kAscendFormatNames.size()) return kAscendFormatNames[primary];
  if (primary == kAscendFormatMax) return "MAX";
  return {};
}

}  // namespace msdt
