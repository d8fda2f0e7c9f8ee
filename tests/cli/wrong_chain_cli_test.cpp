// Issue 14, items 3 and 17 for a node that serves another chain than the
// config names (anvil started with --chain-id 5 where the config says 31337):
// serve says so at start in its log, in /readyz and in /abci/health by the
// chain's check, --strict refuses to start, and `abcictl chains status` says
// "wrong chain" instead of "healthy". Black box: real anvil, real server.

#include <filesystem>
#include <sstream>

#include "cli/client_test.hpp"
#include "support/anvil.hpp"
#include "support/chain_server.hpp"
#include "support/serve.hpp"

namespace abci::test::client {

TEST_CASE("serve against a node of the wrong chain id: said at start, in readyz and health, refused by --strict, and "
          "by chains status",
          "[serve-cli][readyz][wrong-chain]") {
    Anvil::Options node;
    node.chain_id = 5;
    Anvil anvil(node);
    const auto config = "[signer]\nanvilKey = true\n" + chain_entry("wrong", "Wrong chain", anvil.url(), "", "active");
    Server server(Server::Options{.config = config});
    const auto says_wrong = [&](const nlohmann::json& check) {
        INFO(check.dump());
        CHECK(check["healthy"] == false);
        CHECK(check["message"] == "the node at " + anvil.url() +
                                      " serves chain id 5, not the configured chainId 31337: check rpcUrls and chainId");
    };

    std::istringstream log(server.log());
    int logged = 0;
    for (std::string line; std::getline(log, line);)
        logged += line.find("\"msg\":\"start-up check failed\"") != std::string::npos &&
                  line.find("\"check\":\"network:wrong\"") != std::string::npos &&
                  line.find("serves chain id 5") != std::string::npos;
    CHECK(logged == 1);

    const auto http = server.http();
    const auto ready = http.get("/readyz");
    CHECK(ready.status == 503);
    says_wrong(ready.json["checks"]["network:wrong"]);
    const auto health = http.get("/abci/health", server.login_admin().token);
    CHECK(health.status == 503);
    says_wrong(health.json["checks"]["network:wrong"]);

    Terminal admin(server.url());
    admin.login(Server::admin_email, Server::admin_password);
    // Degraded: health's CRITICAL (2).
    const auto status = admin.run({"chains", "status", "wrong"});
    INFO(status.out << status.err);
    CHECK(status.exit_code == 2);
    CHECK(field(status.out, "status") != "healthy");
    CHECK(field(status.out, "rpc") == "wrong chain: the node serves another chain id than configured (see abcictl health)");
    CHECK(admin.run({"-q", "chains", "status", "wrong"}).out != "healthy\n");

    CleanHome home;
    const auto strict = run_abcictl({"serve", "--strict", "--config", home.write("serve.toml", config), "--data-dir",
                                     home / "data", "--listen", "127.0.0.1:" + std::to_string(os::free_loopback_port())},
                                    {}, home.env());
    INFO(strict.err);
    CHECK(strict.exit_code == 1);
    CHECK(strict.err.find("--strict: start-up checks failed (") != std::string::npos);
    CHECK(strict.err.find("network:wrong") != std::string::npos);
}

}  // namespace abci::test::client
