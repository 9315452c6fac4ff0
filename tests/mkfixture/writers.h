// Writing what a description asks for: a tree of files, one file, or a generated benchmark tree.
#pragma once

#include <filesystem>

#include "description.h"

namespace msdt::fixture {

// {"kind": "tree", "files": [...]}: OUT becomes a directory (created if needed).
void write_tree(const Node& description, const std::filesystem::path& out);
// {"kind": "file", <one entry without "path">}: OUT becomes a file.
void write_single_file(const Node& description, const std::filesystem::path& out);
// {"kind": "generate", …}: a realistic dump tree for benchmarks, streamed to disk.
void write_generated(const Node& description, const std::filesystem::path& out);
// {"summary": {"generate": …}}: a large summary or tfevents file for benchmarks, streamed to `out`.
void write_generated_summary(const Node& summary, const std::filesystem::path& out);

// {"kind": "generate_ckpt", …}: a large .ckpt for benchmarks, streamed to `out`.
void write_generated_checkpoint(const Node& description, const std::filesystem::path& out);

}  // namespace msdt::fixture
