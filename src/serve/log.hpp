#pragma once
// The server's structured log: one JSON object per line on stderr, written
// whole under a lock so lines of concurrent requests never interleave. Only
// what is passed is logged; callers never pass secrets (bodies, tokens,
// query strings are not logged).

#include <nlohmann/json_fwd.hpp>
#include <string_view>

namespace abci::serve {

/// Writes {"time", "level", "msg", ...fields} as one line.
void log_line(std::string_view level, std::string_view message, const nlohmann::json& fields);

}  // namespace abci::serve
