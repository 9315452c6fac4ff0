// A MindIR model's graphs (model/mindir.h, mindir spec §3.2, §7 item 4) as the graph model of
// ir/graph.h, so that ir-to-dot draws them like any other graph file: one graph per `graph` and
// `functions` entry, nodes labelled with the primitive's op_type resolved through `primitives`
// (`REF::Conv2D:1` → Conv2D, with the primitive's attributes), `REF::<graph>` as calls of that
// graph, `REF::<node>` as calls of a node, the other `REF::` forms shown as written; the domain
// (fullname_with_scope) as the node's full name and scope; Constant nodes as the graph's
// constants, folded into the nodes that read them; weights and graph inputs as parameters; the
// graph outputs as a Return node.
#pragma once

#include "io/byte_reader.h"
#include "io/error.h"
#include "ir/graph.h"
#include "model/mindir.h"

namespace msdt::ir {

// The graphs of a decoded model; its problems become the module's warnings.
Module mindir_module(const model::MindIR& mindir);
// read_mindir then mindir_module: an error when the file holds no graph at all.
Expected<Module> parse_mindir(Bytes file);

}  // namespace msdt::ir
