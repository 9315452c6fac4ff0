// bury(): objects left to the OS at exit are not destroyed while the table has room, and are
// destroyed as usual once it is full; LeakSanitizer (the sanitizer build of this test) finds them
// reachable, so a buried object is no leak report.
#include "io/bury.h"

#include <gtest/gtest.h>

namespace msdt {
namespace {

struct Counted {
  explicit Counted(int& destroyed) : destroyed_(destroyed) {}
  ~Counted() { ++destroyed_; }
  int& destroyed_;
};

TEST(Bury, KeepsObjectsUntilTheTableIsFullThenFreesThem) {
  static int destroyed = 0;  // outlives the buried objects
  int kept = 0;
  while (destroyed == 0 && kept < 100) {
    bury(std::make_unique<Counted>(destroyed));
    if (destroyed == 0) ++kept;
  }
  EXPECT_EQ(kept, 16);
  EXPECT_EQ(destroyed, 1);
  bury(std::make_unique<Counted>(destroyed));
  EXPECT_EQ(destroyed, 2);
}

}  // namespace
}  // namespace msdt
