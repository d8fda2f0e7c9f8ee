#pragma once
// /readyz as a load balancer reads it: waiting for it to turn, and the
// message of the check that keeps a server unready.

#include <chrono>
#include <string>

#include "support/eventually.hpp"
#include "support/serve.hpp"

namespace abci::test {

/// Whether /readyz answers 200 (`ready`) or 503 (not) within `limit`.
inline bool readyz_turns(const Server& server, bool ready, std::chrono::milliseconds limit = std::chrono::seconds(15)) {
    return eventually([&] { return server.http().get("/readyz").status == (ready ? 200 : 503); }, limit);
}

/// The message of /readyz's check `name` ("" when it has none).
inline std::string readyz_message(const Server& server, const std::string& name) {
    const auto r = server.http().get("/readyz");
    const auto& check = r.json["checks"][name];
    return check.contains("message") ? check["message"].get<std::string>() : "";
}

}  // namespace abci::test
