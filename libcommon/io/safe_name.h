// File names made from names found in the data (tensor names, summary tags, operator names):
// any bytes in, one safe file name out. Every exporter that names files after such names
// (summary-cat --export, ckpt-inspect --export, dump-compare --detail) calls this, so that two
// names never share a file and no name can make a path.
#pragma once

#include <string>
#include <string_view>

namespace msdt {

// The longest file name Linux file systems take (NAME_MAX), in bytes.
inline constexpr size_t kMaxFileNameBytes = 255;

// `raw` (any bytes) as a file name ending in `suffix` (plain ASCII the caller picks: "_3.npy",
// ".csv"), at most kMaxFileNameBytes bytes:
// - each byte other than ASCII letters, digits and "_.-~" is spelled %XX (upper-case hex), from
//   the raw bytes: MindInsight's tag quoting (Python's urllib quote with safe=""), so the result
//   is never a path, never "." or ".." (their dots are %2E too), and distinct names stay distinct;
// - when that passes the limit, the spelling is cut (never inside a %XX) and followed by "%~" and
//   the 32 hex digits of the MD5 of the raw bytes, then `suffix`: "%~" never appears in an uncut
//   name, and distinct names keep distinct digests.
// Names are compared as the bytes of the raw name, so one suffix and two names give two files.
std::string safe_file_name(std::string_view raw, std::string_view suffix = {});

}  // namespace msdt
