#pragma once
// Debian's haproxy in front of abcictl replicas, configured from
// examples/haproxy-replicas.cfg itself: what the tests run behind is what the
// README tells a deployment to run, and a change to the example that the
// tests cannot follow fails them instead of drifting away from them.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/os/process.hpp"
#include "support/cli_runner.hpp"
#include "support/serve.hpp"

namespace abci::test {

/// examples/haproxy-replicas.cfg (read now) with its frontend bound to
/// 127.0.0.1:`port` and one `server replica-<port> 127.0.0.1:<port>` line per
/// replica in place of its two; with ` check` on each and the example's
/// GET /readyz check settings when `health_checks`, without any check
/// otherwise (each replica then takes its share even while it is not ready).
/// Fails the test (Catch2) when the example lacks a line this replaces.
[[nodiscard]] std::string haproxy_config(std::uint16_t port, const std::vector<std::uint16_t>& replica_ports,
                                         bool health_checks);

/// `/usr/sbin/haproxy -db` on haproxy_config(), a child of the test: its
/// config checked (`haproxy -c`) first, its output in a log of its own whose
/// tail is printed when the test is failing, and stopped with the fixture.
class Haproxy {
public:
    struct Options {
        std::vector<std::uint16_t> replica_ports;
        bool health_checks = true;
        /// The port to listen on; 0: a free one (another one when it was
        /// taken before haproxy bound it).
        std::uint16_t port = 0;
    };

    /// Fails the test (Catch2) with the log's tail when haproxy does not
    /// listen within 5 s.
    explicit Haproxy(Options options);
    ~Haproxy();
    Haproxy(const Haproxy&) = delete;
    Haproxy& operator=(const Haproxy&) = delete;

    [[nodiscard]] std::uint16_t port() const noexcept { return port_; }
    /// "127.0.0.1:<port>".
    [[nodiscard]] std::string host() const;
    [[nodiscard]] Http http() const { return Http("http://" + host()); }

private:
    TempDir dir_;  // haproxy.cfg, haproxy.log
    std::uint16_t port_ = 0;
    std::optional<os::Process> process_;
};

}  // namespace abci::test
