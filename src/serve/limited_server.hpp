#pragma once
// The HTTP(S) server with connection limits in front of every route.
//
// Debian's cpp-httplib 0.11.4 gives each connection a thread, learns the peer
// only with the request, and times single reads, never a whole request head:
// a client sending one byte a second held a thread for as long as it liked,
// and 2,100 such sockets starved the server (issue 13). It has no hook for
// any of that, but its per-connection loop is a private virtual
// (process_and_close_socket) and its request parser is protected
// (process_request), so a subclass owns the loop: it admits the connection by
// its peer address (serve/connection_limiter.hpp), reads each request head
// whole under one deadline and within the header-line cap
// (serve/head_reader.hpp), then its body under a deadline of its own and
// within the body limit, framed and decoded by the server itself
// (serve/body_framing.hpp: cpp-httplib's own body reading has no bound), and
// only then lets cpp-httplib parse and route the request from the bytes
// already read, never from the socket. HTTPS gets the same loop over OpenSSL.

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "serve/settings.hpp"

namespace httplib {
class Server;
}

namespace abci::serve {

class HttpMetrics;

/// What a listener holds its clients to.
struct ListenerLimits {
    ConnectionLimits connections;
    std::size_t max_body_bytes = 0;
    std::vector<std::string> trusted_proxies;  // speak for many clients: only the total cap applies to them
};

/// An httplib::Server, or an SSLServer when settings.tls(); Error(invalid_input)
/// when the certificate or key cannot be loaded. `metrics` counts the
/// connections the limits refuse and must outlive the server.
[[nodiscard]] std::unique_ptr<httplib::Server> make_limited_server(const Settings& settings, HttpMetrics& metrics);

/// A plain HTTP server held to `limits`, whose refusals nothing counts (the
/// metrics listener's: its scraper sees a refusal as a failed scrape).
[[nodiscard]] std::unique_ptr<httplib::Server> make_limited_server(const ListenerLimits& limits);

/// httplib::Server::stop() for a server make_limited_server() made: stops
/// accepting and closes the connections waiting between keep-alive requests,
/// so that in-flight requests are all that the stop waits for.
void stop_limited_server(httplib::Server& server);

}  // namespace abci::serve
