// "mindir" content (payloads.h).
#include "payloads.h"

namespace msdt::fixture {

std::vector<std::byte> build_mindir(const Node& mindir) { mindir.fail("not written yet"); }

}  // namespace msdt::fixture
