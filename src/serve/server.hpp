#pragma once
// `abcictl serve`: the HTTP(S) server of the ABCI API. Construction does all
// the fallible setup (data directory, database and migrations, JWT secret,
// first admin, listening socket), so a misconfiguration fails before anything
// is served; run() then serves until stop().

#include <cstdint>
#include <memory>
#include <string>

#include "serve/settings.hpp"

namespace abci::serve {

class Server {
public:
    /// Error(invalid_input/unavailable/...) when the setup fails (the port is
    /// taken: Error(unavailable) naming it). `revision` is the build's commit,
    /// which its metrics name (abcictl_build_info).
    Server(Settings settings, const std::string& revision);
    ~Server();
    Server(const Server&) = delete;
    Server& operator=(const Server&) = delete;

    /// The bound port (useful with port 0).
    [[nodiscard]] std::uint16_t port() const noexcept;
    /// The metrics listener's bound port; 0 when [metrics] listen is off.
    [[nodiscard]] std::uint16_t metrics_port() const noexcept;

    /// Serves until stop(); returns after in-flight requests have finished.
    void run();
    /// Stops accepting connections; safe from any thread, idempotent.
    void stop();

private:
    struct State;
    std::unique_ptr<State> state_;
};

/// Whether settings.listen_host:listen_port can be bound now (port 0 always
/// can): checked before a devnet is built, so that a busy port costs no anvil,
/// deployment or admin. Error(unavailable) as the server's own, saying how to
/// choose another port.
void check_can_listen(const Settings& settings);

}  // namespace abci::serve
