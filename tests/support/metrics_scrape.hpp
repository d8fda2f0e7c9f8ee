#pragma once
// The metrics listener of a test's server (ABCI_METRICS_LISTEN=127.0.0.1:0):
// where it listens, as its "serving metrics" log line says, and a scrape of it.

#include <string>

#include "support/serve.hpp"

namespace abci::test {

/// The env that turns the listener on at a free loopback port.
[[nodiscard]] inline Env metrics_env() { return {{"ABCI_METRICS_LISTEN", "127.0.0.1:0"}}; }

/// "http://127.0.0.1:PORT" of `server`'s metrics listener; fails the test when its log names none within 20 s.
[[nodiscard]] std::string metrics_url(const Server& server);

}  // namespace abci::test
