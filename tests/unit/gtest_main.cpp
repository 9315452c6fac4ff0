// The main of every unit test: GoogleTest's own, except for a run in which every test was skipped
// (GTEST_SKIP: ../shared absent, mkfixture not built), which exits with 77 so that ctest reports
// the test as skipped (SKIP_RETURN_CODE) rather than passed, and scripts/test counts it so.
#include <gtest/gtest.h>

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  const int status = RUN_ALL_TESTS();
  const testing::UnitTest& unit = *testing::UnitTest::GetInstance();
  if (status == 0 && unit.test_to_run_count() > 0 &&
      unit.skipped_test_count() == unit.test_to_run_count())
    return 77;
  return status;
}
