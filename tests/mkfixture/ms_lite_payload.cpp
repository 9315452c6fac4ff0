// "ms_lite" content (payloads.h).
#include "payloads.h"

namespace msdt::fixture {

std::vector<std::byte> build_ms_lite(const Node& ms_lite) { ms_lite.fail("not written yet"); }

}  // namespace msdt::fixture
