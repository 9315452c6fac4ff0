// Binary files damaged by a line-ending conversion: a text-mode copy (git's autocrlf or
// text=auto, FTP's ASCII mode) turned every LF byte (0x0a) into CR LF. Such a file fails its
// reader somewhere after its first LF; undone (CR LF back to LF) it reads again. Undoing is
// lossless when every LF was converted: an original CR LF became CR CR LF and comes back as CR LF.
//
// Every reader's front door (where a tool opens a file and its parse fails) calls
// explain_line_ending_damage with its own parse of the repaired bytes, so that every tool says the
// same one line about such a file. No tool reads the repaired copy in place of the file: the line
// says how to get a good copy instead (the man pages' DIAGNOSTICS say why).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/byte_reader.h"
#include "io/error.h"

namespace msdt {

// The number of LF bytes in `data` when every one of them has a CR right before it and there is
// at least one; 0 otherwise (no LF, or an LF without its CR). Stops at the first bare LF.
uint64_t crlf_damaged_lf_count(Bytes data);

// `data` with every CR LF pair made LF again (what `perl -0777 -pe 's/\r\n/\n/g'` does).
std::vector<std::byte> undo_crlf(Bytes data);
// `data` with every LF made CR LF: the damage itself (mkfixture's "crlf", tests).
std::vector<std::byte> apply_crlf(Bytes data);

// Files larger than this are not copied to check the repair; the damage is then called likely.
inline constexpr uint64_t kCrlfRetryLimit = uint64_t{1} << 30;  // 1 GiB

// Reads the repaired bytes as the caller's format: what they are when they read without a
// problem ("MindSpore graph protobuf", written after "a valid"), nullopt when they do not.
using RepairedParse = std::function<std::optional<std::string>(Bytes repaired)>;

// For a file whose parse failed with `error`: when every LF of `data` has a CR before it and the
// repaired copy parses (`parse`), replaces `error` with the line that says so, how it happened and
// how to get a good copy, and returns true. `path` is the file as the tool names it (the repair
// command's input). A file larger than `retry_limit` is not copied: `error` keeps its text and the
// likely damage is added after it. Otherwise `error` stays as it is and the result is false.
// An error that says so already (from a reader inside the caller's) is kept, and true.
bool explain_line_ending_damage(Error& error, Bytes data, std::string_view path,
                                const RepairedParse& parse, uint64_t retry_limit = kCrlfRetryLimit);

}  // namespace msdt
