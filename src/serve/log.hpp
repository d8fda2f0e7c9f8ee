#pragma once
// The server's structured log: one JSON object per line on stderr, written
// whole under a lock so lines of concurrent requests never interleave. Only
// what is passed is logged; callers never pass secrets (bodies, tokens,
// query strings are not logged).

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

namespace abci::serve {

/// Writes {"time", "level", "msg", ...fields} as one line.
void log_line(std::string_view level, std::string_view message, const nlohmann::json& fields);

/// Adds a field to the log line of the request being served on this thread
/// (a mint's transaction hash). cpp-httplib routes a request and writes its
/// log line on one thread, so the fields are kept per thread until taken.
void add_request_log_field(const std::string& key, const nlohmann::json& value);
/// The fields added since the last call (an object), forgotten now.
[[nodiscard]] nlohmann::json take_request_log_fields();

}  // namespace abci::serve
