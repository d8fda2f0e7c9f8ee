// Issue 14, items 17 and 20: a wrong setup is said at start, one log line per
// failing check, and in /readyz and /abci/health by name; --strict refuses to
// start; /livez and /readyz need no credentials.

#include <filesystem>
#include <sstream>
#include <thread>

#include "serve/expect.hpp"
#include "support/anvil.hpp"
#include "support/chain_server.hpp"
#include "support/tools.hpp"

namespace abci::test::startup_check_tests {
namespace {

using namespace std::chrono_literals;

constexpr const char* kNoCode = "0x000000000000000000000000000000000000dEaD";

/// Whether the server's log has a line reporting a failed start-up check of `check`.
bool start_check_logged(const Server& server, const std::string& check) {
    std::istringstream log(server.log());
    for (std::string line; std::getline(log, line);)
        if (line.find("\"msg\":\"start-up check failed\"") != std::string::npos &&
            line.find("\"check\":\"" + check + "\"") != std::string::npos)
            return true;
    return false;
}

/// /readyz until `check` is as `healthy` says (its answers are reused for a second).
HttpResponse readyz_once(const Http& http, const std::string& check, bool healthy) {
    auto r = http.get("/readyz");
    for (int i = 0; i < 50 && r.json["checks"][check]["healthy"] != healthy; ++i) {
        std::this_thread::sleep_for(100ms);
        r = http.get("/readyz");
    }
    return r;
}

}  // namespace

TEST_CASE("start-up checks: each failure logged at start, named in /readyz and health, refused by --strict", "[serve][readyz]") {
    ChainServer::Options options;
    options.extra_config = chain_entry("nocode", "No code", "{anvil}", kNoCode, "active") +
                           chain_entry("down", "Down", "http://127.0.0.1:1", "", "active") +
                           chain_entry("off", "Off", "http://127.0.0.1:1", "", "disabled");
    ChainServer chain(options);
    auto& server = chain.server();
    const auto http = chain.http();

    const auto live = http.get("/livez");
    CHECK(live.status == 200);
    CHECK(live.json == nlohmann::json{{"status", "alive"}});

    auto ready = http.get("/readyz");  // no credentials needed
    INFO(ready.body);
    CHECK(ready.status == 503);
    CHECK(ready.json["status"] == "not ready");
    for (const char* good : {"network:devnet", "contract:devnet", "minter:devnet", "signer:devnet", "database", "network:nocode"})
        CHECK(ready.json["checks"][good]["healthy"] == true);
    CHECK(ready.json["checks"]["contract:nocode"]["healthy"] == false);
    CHECK(ready.json["checks"]["contract:nocode"]["message"].get<std::string>().find("no contract deployed at") !=
          std::string::npos);
    CHECK(ready.json["checks"]["network:down"]["healthy"] == false);
    CHECK(ready.json["checks"]["network:down"]["message"].get<std::string>().find("does not answer") != std::string::npos);
    CHECK_FALSE(ready.json["checks"].contains("network:off"));  // a disabled chain is not needed to be ready
    CHECK(start_check_logged(server, "contract:nocode"));
    CHECK(start_check_logged(server, "network:down"));
    CHECK_FALSE(start_check_logged(server, "minter:devnet"));

    // The signer loses its minter role and its funds: both named, in health too.
    const auto admin_key = Anvil::dev_accounts()[0].private_key;
    const auto role = cast({"keccak", "MINTER_ROLE"});
    cast({"send", chain.contract(), "revokeRole(bytes32,address)", role.substr(0, role.find('\n')), ChainServer::signer(),
          "--private-key", admin_key, "--rpc-url", chain.anvil().url()});
    chain.node_rpc("anvil_setBalance", {ChainServer::signer(), "0x0"});
    ready = readyz_once(http, "minter:devnet", false);
    CHECK(ready.json["checks"]["minter:devnet"]["message"].get<std::string>().find("does not hold MINTER_ROLE") !=
          std::string::npos);
    CHECK(ready.json["checks"]["signer:devnet"]["healthy"] == false);
    const auto health = http.get("/abci/health", server.login_admin().token);
    CHECK(health.json["checks"]["minter:devnet"]["healthy"] == false);

    server.restart();
    CHECK(start_check_logged(server, "minter:devnet"));
    CHECK(start_check_logged(server, "signer:devnet"));

    // --strict: the same setup refuses to start, naming what failed.
    CleanHome home;
    const auto config = (std::filesystem::path(server.data_dir()).parent_path() / "config.toml").string();
    const auto strict = run_abcictl({"serve", "--strict", "--config", config, "--data-dir", home / "data", "--listen",
                                     "127.0.0.1:" + std::to_string(os::free_loopback_port())},
                                    {}, home.env());
    INFO(strict.err);
    CHECK(strict.exit_code == 1);
    CHECK(strict.err.find("--strict: start-up checks failed (") != std::string::npos);
    for (const char* failed : {"contract:nocode", "network:down", "minter:devnet", "signer:devnet"})
        CHECK(strict.err.find(failed) != std::string::npos);
}

}  // namespace abci::test::startup_check_tests
