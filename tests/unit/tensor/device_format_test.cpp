// Format names of dump spec §4.2 and the OutputFormat enum of §5.6.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "tensor/layout.h"

namespace msdt {
namespace {

bool is_known(std::string_view name) {
  auto names = known_format_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

TEST(KnownFormatNames, HoldsEveryKOpFormatString) {
  // v1.2.0 utils.h, the later FRACTAL_Z spelling and the newer additions (§4.2).
  for (std::string_view name : {"DefaultFormat",
                                "NC1KHKWHWC0",
                                "ND",
                                "NCHW",
                                "NHWC",
                                "HWCN",
                                "NC1HWC0",
                                "FracZ",
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
                                "FRACTAL_Z",
                                "ChannelFirst",
                                "ChannelLast",
                                "CHWN",
                                "FRACTAL_ZN_RNN",
                                "ND_RNN_BIAS",
                                "NCL"})
    EXPECT_TRUE(is_known(name)) << name;
}

TEST(KnownFormatNames, HoldsEveryMsaccucmpString) {
  for (uint32_t value = 0; value < 256; ++value) {
    std::string_view name = ascend_format_name(value);
    if (!name.empty()) {
      EXPECT_TRUE(is_known(name)) << value << " " << name;
    }
  }
  EXPECT_TRUE(is_known("DECONV_SP_STRIDE8_TRANS"));
  EXPECT_TRUE(is_known("LOOKUP_KEYS"));
  EXPECT_TRUE(is_known("MAX"));
}

TEST(KnownFormatNames, HasNoDuplicates) {
  auto names = known_format_names();
  std::set<std::string_view> unique(names.begin(), names.end());
  EXPECT_EQ(unique.size(), names.size());
}

// Callers match `_{format}` at the end of a file name, first hit wins (§3.1 step 2).
TEST(KnownFormatNames, LongerNameEndingInAnotherComesFirst) {
  auto names = known_format_names();
  for (size_t a = 0; a < names.size(); ++a)
    for (size_t b = 0; b < names.size(); ++b)
      if (names[a].ends_with("_" + std::string(names[b]))) {
        EXPECT_LT(a, b) << names[a] << " ends with _" << names[b] << " but comes after it";
      }
  auto position = [&](std::string_view name) {
    return std::find(names.begin(), names.end(), name) - names.begin();
  };
  EXPECT_LT(position("FSR_NCHW"), position("NCHW"));
  EXPECT_LT(position("NC1HWC0_C04"), position("NC1HWC0"));
  EXPECT_LT(position("FRACTAL_Z_3D"), position("FRACTAL_Z"));
}

TEST(CanonicalFormat, FracZIsFractalZ) {
  EXPECT_EQ(canonical_format("FracZ"), "FRACTAL_Z");
  EXPECT_EQ(canonical_format("FRACTAL_Z"), "FRACTAL_Z");
  EXPECT_EQ(canonical_format("DefaultFormat"), "DefaultFormat");
  EXPECT_EQ(canonical_format("NC1HWC0"), "NC1HWC0");
  EXPECT_EQ(canonical_format("fracz"), "fracz");
  EXPECT_EQ(canonical_format("SomethingNew"), "SomethingNew");
  EXPECT_EQ(canonical_format(""), "");
}

TEST(AscendFormatName, UsesMsaccucmpSpelling) {
  EXPECT_EQ(ascend_format_name(0), "NCHW");
  EXPECT_EQ(ascend_format_name(1), "NHWC");
  EXPECT_EQ(ascend_format_name(2), "ND");
  EXPECT_EQ(ascend_format_name(3), "NC1HWC0");
  EXPECT_EQ(ascend_format_name(4), "FRACTAL_Z");
  EXPECT_EQ(ascend_format_name(11), "FRACTAL_DECONV_SP_STRIDE_TRANS");
  EXPECT_EQ(ascend_format_name(12), "NC1HWC0_C04");
  EXPECT_EQ(ascend_format_name(15), "DECONV_SP_STRIDE8_TRANS");
  EXPECT_EQ(ascend_format_name(16), "HWCN");
  EXPECT_EQ(ascend_format_name(20), "LOOKUP_LOOKUPS");
  EXPECT_EQ(ascend_format_name(21), "LOOKUP_KEYS");
  EXPECT_EQ(ascend_format_name(22), "LOOKUP_VALUE");
  EXPECT_EQ(ascend_format_name(23), "LOOKUP_OUTPUT");
  EXPECT_EQ(ascend_format_name(24), "LOOKUP_HITS");
  EXPECT_EQ(ascend_format_name(25), "C1HWNCoC0");
  EXPECT_EQ(ascend_format_name(29), "FRACTAL_NZ");
  EXPECT_EQ(ascend_format_name(31), "DHWCN");
  EXPECT_EQ(ascend_format_name(32), "NDC1HWC0");
  EXPECT_EQ(ascend_format_name(33), "FRACTAL_Z_3D");
  EXPECT_EQ(ascend_format_name(40), "RESERVED");
  EXPECT_EQ(ascend_format_name(42), "NULL");
  EXPECT_EQ(ascend_format_name(43), "ND_RNN_BIAS");
  EXPECT_EQ(ascend_format_name(44), "FRACTAL_ZN_RNN");
  EXPECT_EQ(ascend_format_name(46), "YUV_A");
  EXPECT_EQ(ascend_format_name(49), "C1HWC0");
  EXPECT_EQ(ascend_format_name(255), "MAX");
}

TEST(AscendFormatName, ThirtyIsNcdhw) { EXPECT_EQ(ascend_format_name(30), "NCDHW"); }

TEST(AscendFormatName, MasksSubFormatAndC0Bits) {
  EXPECT_EQ(ascend_format_name(0x00010004), "FRACTAL_Z");  // sub-format 1 in the high bits
  EXPECT_EQ(ascend_format_name(0x50000003), "NC1HWC0");    // C0 bits
  EXPECT_EQ(ascend_format_name(0xFFFFFF1D), "FRACTAL_NZ");
  EXPECT_EQ(ascend_format_name(0x1FF), "MAX");
}

TEST(AscendFormatName, UnknownIsEmpty) {
  EXPECT_EQ(ascend_format_name(50), "");
  EXPECT_EQ(ascend_format_name(254), "");
  EXPECT_EQ(ascend_format_name(0x132), "");  // 0x32 = 50
  EXPECT_EQ(ascend_format_name(0x120), "NDC1HWC0");
  EXPECT_EQ(ascend_format_name(0x1FE), "");
}

TEST(AscendFormatName, NoFormatPrefix) {
  for (uint32_t value = 0; value < 256; ++value)
    EXPECT_FALSE(ascend_format_name(value).starts_with("FORMAT_")) << value;
}

}  // namespace
}  // namespace msdt
