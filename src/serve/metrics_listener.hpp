#pragma once
// The Prometheus scrape endpoint (issue 32): GET /metrics on a listener of
// its own ([metrics] listen), never the API's port, so that a scrape meets
// none of the API's rate limits, connection caps or audit log, and the API's
// load never delays a scrape. A scrape is small and rare, but the port takes
// connections from anyone who reaches it, before any token is checked: it is
// held to connection limits of its own (serve/limited_server.hpp), smaller
// than the API's, so that idle or slow sockets cannot hold its threads or
// descriptors without bound, and it refuses request bodies.

#include <cstdint>
#include <memory>

#include "core/metrics/registry.hpp"
#include "serve/settings.hpp"

namespace abci::serve {

class MetricsListener {
public:
    /// Loads the exposition library (metrics::Exposer), binds
    /// settings.listen_host:listen_port (port 0: a free one) and reads the
    /// token file, if any. Error(unavailable) naming the library when it
    /// cannot be loaded, or the address when it cannot be bound; what
    /// os::read_password_file throws for the token.
    MetricsListener(const MetricsSettings& settings, const metrics::Registry& registry);
    /// Stops serving and waits for its thread.
    ~MetricsListener();
    MetricsListener(const MetricsListener&) = delete;
    MetricsListener& operator=(const MetricsListener&) = delete;

    [[nodiscard]] std::uint16_t port() const noexcept;

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace abci::serve
