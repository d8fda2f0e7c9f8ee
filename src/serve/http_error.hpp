#pragma once
// The one place where core's error kinds become HTTP statuses and the spec's
// error bodies (spec §7, docs/api.md).

#include <string>
#include <string_view>

#include "core/error.hpp"

namespace httplib {
struct Response;
}

namespace abci::serve {

/// The `code` of a 401 body: why the caller is not authenticated.
enum class Unauthorized { missing_token, invalid_token, invalid_credentials };

[[nodiscard]] int status_for(ErrorKind kind) noexcept;

/// Sets status, JSON body and (for rate limits) Retry-After on `res` for `error`.
/// `why` is the code a 401 carries.
void render_error(httplib::Response& res, const Error& error, Unauthorized why);

/// A body for a status the HTTP layer produced itself (unknown route, 413,
/// malformed request): leaves `res` alone when a handler already wrote one.
void render_status(httplib::Response& res);

/// A whole HTTP/1.1 response, "Connection: close", with the spec's error body:
/// for what the connection layer refuses before cpp-httplib parses anything
/// (400 broken body framing, 408 head or body too slow, 413 body too large,
/// 415 compressed body, 431 head too large, 503 too many connections).
/// `retry_after` > 0 adds Retry-After.
[[nodiscard]] std::string connection_refusal(int status, std::string_view message, int retry_after = 0);

}  // namespace abci::serve
