#pragma once
// The one JSON reader for text an untrusted party wrote (request bodies,
// token segments). Duplicate member names are refused at every depth:
// parsers disagree on which of two wins (nlohmann keeps the last), so a check
// made on one reading could be bypassed by another. Errors are in plain words
// with the place they occur, never the parser library's internals.

#include <cstddef>
#include <string_view>

#include <nlohmann/json.hpp>

namespace abci::util {

/// Parses `text` (all of it) as one JSON document nested at most `max_depth`
/// levels. Error(invalid_input) naming `what` ("the body") otherwise: where
/// the text stops being JSON (line, column, byte), the member named twice,
/// or the depth exceeded.
[[nodiscard]] nlohmann::json parse_strict_json(std::string_view text, std::size_t max_depth,
                                               std::string_view what = "the body");

}  // namespace abci::util
