#pragma once
// The one JSON reader for text an untrusted party wrote (request bodies,
// token segments). Duplicate member names are refused at every depth:
// parsers disagree on which of two wins (nlohmann keeps the last), so a check
// made on one reading could be bypassed by another. Errors are in plain words
// with the place they occur, never the parser library's internals.

#include <cstddef>
#include <limits>
#include <string_view>

#include <nlohmann/json.hpp>

namespace abci::util {

/// Parses `text` (all of it) as one JSON document nested at most `max_depth`
/// levels and of at most `max_values` values (objects, arrays, members'
/// values and items all count). Error(invalid_input) naming `what` ("the
/// body") otherwise: where the text stops being JSON (line, column, byte),
/// the member named twice, the depth or the count exceeded. The count bounds
/// the memory a parse takes: a megabyte of `{"k1":0,"k2":0,…}` is 15 MB
/// parsed, and an unauthenticated client may send many at once.
[[nodiscard]] nlohmann::json parse_strict_json(std::string_view text, std::size_t max_depth,
                                               std::string_view what = "the body",
                                               std::size_t max_values = std::numeric_limits<std::size_t>::max());

}  // namespace abci::util
