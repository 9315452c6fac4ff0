// io/report.h's escaping for the terminal: printable_path (table cells, file names in messages)
// and printable_text (whole messages), and Diagnostics printing every message through it.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "io/report.h"

namespace msdt {
namespace {

const std::string kHostile("a\x1b[2Jb\0c\rd\x7f\xc2\x9b\xff", 14);

TEST(Printable, PathEscapesControlsInvalidBytesAndBackslash) {
  EXPECT_EQ(printable_path(kHostile), "a\\x1b[2Jb\\x00c\\x0dd\\x7f\\xc2\\x9b\\xff");
  EXPECT_EQ(printable_path("C:\\tmp"), "C:\\\\tmp");
  EXPECT_EQ(printable_path("层/卷积"), "层/卷积");  // printable UTF-8 stays as it is
}

TEST(Printable, TextKeepsBackslashes) {
  EXPECT_EQ(printable_text(kHostile), "a\\x1b[2Jb\\x00c\\x0dd\\x7f\\xc2\\x9b\\xff");
  EXPECT_EQ(printable_text("C:\\tmp 'x\\xff'"), "C:\\tmp 'x\\xff'");
  // What it gives back is printable: escaping it again changes nothing.
  EXPECT_EQ(printable_text(printable_text(kHostile)), printable_text(kHostile));
  EXPECT_EQ(printable_text(printable_path(kHostile)), printable_path(kHostile));
}

TEST(Printable, DiagnosticsNeverPrintControlBytes) {
  std::ostringstream err;
  Diagnostics diagnostics("tool", err);
  diagnostics.warning("in\rput", Error(std::string("parameter 'w\x1b]0;x\x07' left out")));
  diagnostics.error(Error::at_offset(16, std::string("tag '\0'", 7)));
  EXPECT_EQ(err.str(),
            "tool: warning: 'in\\x0dput': parameter 'w\\x1b]0;x\\x07' left out\n"
            "tool: error: offset 0x10: tag '\\x00'\n");
}

}  // namespace
}  // namespace msdt
