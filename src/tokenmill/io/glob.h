// Glob patterns over locations (local paths, file://, s3://, gs:// URLs alike).
//
// Syntax: `*` matches any run of characters except '/', `?` one character except '/',
// `[abc]`, `[a-z]`, `[!a-z]` (or `[^a-z]`) one byte from (or not from) a set, never '/'; `\x`
// matches x literally. "**" is not supported. Matching is bytewise. ExpandGlobs (declared in
// document_reader.h) lists the longest literal prefix of each pattern with Storage::List and
// keeps the matches.
// Thread-safety: pure functions.
#pragma once

#include <string_view>

#include "tokenmill/base/status.h"

namespace tokenmill {

// True if `pattern` holds an unescaped wildcard ('*', '?' or '[').
bool HasGlobWildcard(std::string_view pattern);

// The part of `pattern` before its first wildcard, with escapes removed.
std::string LiteralGlobPrefix(std::string_view pattern);

// InvalidArgument if `pattern` cannot be matched: "**", an unterminated '[' set, or a
// trailing '\'.
Status ValidateGlob(std::string_view pattern);

// True if `text` matches the whole `pattern`. REQUIRES: ValidateGlob(pattern).ok().
bool GlobMatch(std::string_view pattern, std::string_view text);

}  // namespace tokenmill
