// The `.dat` graph text of MindSpore 1.x (spec ir.md §8), and the 1.x `analyze_fail.dat` written
// in that grammar (§13.1): `# [No.K] <graph>` blocks, `funcgraph fg_<id>[fg_<parent>](…) {`,
// `%para<N> : <type>    # name` parameter lines, `%k : <type> = Primitive::<Op>{…}[attrs](args)
// #(<arg types>) #scope: <scope>` node lines, `FuncGraph::fg_<id>` graph references, `# order:`
// blocks and the `# num of function graphs in stack: N` trailer; read into the same graph model as
// the `.ir` text.
#pragma once

#include <string_view>

#include "io/error.h"
#include "ir/graph.h"

namespace msdt::ir {

// Whether the text is `.dat` graph text (a `# [No.` header or a `funcgraph fg_` line near the top).
bool looks_like_dat_text(std::string_view text);

Expected<Module> parse_dat_text(std::string_view text);

}  // namespace msdt::ir
