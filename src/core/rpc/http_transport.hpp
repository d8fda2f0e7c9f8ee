#pragma once
// The one HTTP transport under every outbound client (JSON-RPC nodes, Kubo,
// OpenID providers, the CLI's API client): a cpp-httplib client configured
// the same way, and one table from cpp-httplib's transport errors to an
// error kind and plain words, so that a refused connection, a timeout or an
// untrusted certificate reads the same wherever it happens.

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <variant>

#include <httplib.h>

#include "core/error.hpp"
#include "core/rpc/url.hpp"

namespace abci::rpc {

struct HttpTimeouts {
    std::chrono::milliseconds connect;
    std::chrono::milliseconds io;  // each read and each write
};

/// Why an exchange got no answer.
struct TransportFailure {
    enum class Stage {
        not_sent,  // the request never reached the server: any request may be retried
        unsure,    // it may have been received and acted on
    };
    Stage stage = Stage::unsure;
    ErrorKind kind = ErrorKind::unavailable;  // timeout or unavailable
    std::string reason;                       // plain words, e.g. "cannot connect"

    [[nodiscard]] bool timed_out() const noexcept { return kind == ErrorKind::timeout; }
};

/// The table: `error` after `elapsed`, for a client whose reads and writes
/// time out after `io_timeout` (cpp-httplib reports a read or write timeout
/// as a plain read or write error; the elapsed time tells them apart).
[[nodiscard]] TransportFailure transport_failure(httplib::Error error, std::chrono::milliseconds elapsed,
                                                 std::chrono::milliseconds io_timeout);

/// A client for `url`'s origin with `timeouts`, TCP_NODELAY and keep-alive,
/// basic auth when the URL carries credentials, and for https the server's
/// certificate verified (against `ca_file` when given).
[[nodiscard]] std::unique_ptr<httplib::Client> make_http_client(const Url& url, HttpTimeouts timeouts,
                                                                const std::string& ca_file = {});

/// Sends `request` on `client` (whose reads and writes time out after
/// `io_timeout`): the response, or why there is none.
[[nodiscard]] std::variant<httplib::Response, TransportFailure> exchange(httplib::Client& client,
                                                                         const httplib::Request& request,
                                                                         std::chrono::milliseconds io_timeout);

/// exchange(), a failure thrown as Error(kind, "<what>: <reason>").
[[nodiscard]] httplib::Response send_or_throw(httplib::Client& client, const httplib::Request& request,
                                              std::chrono::milliseconds io_timeout, std::string_view what);

}  // namespace abci::rpc
