// `abcictl health` as a monitoring check against a real server on a real
// anvil: exit 0 OK in its three formats, with a session or with an API key in
// ABCICTL_TOKEN (no login, as in a cron line); 2 CRITICAL within seconds of
// the node stopping or with the server down; 3 UNKNOWN when it refuses the key.

#include <chrono>
#include <future>
#include <thread>

#include <nlohmann/json.hpp>

#include "cli/client_test.hpp"
#include "support/chain_server.hpp"
#include "support/eventually.hpp"

namespace abci::test::client {
namespace {

using nlohmann::json;

/// A Nagios plugin's output: one line, the status text, '|', then perfdata.
void require_nagios_line(const std::string& out, const std::string& state) {
    INFO(out);
    REQUIRE(lines_of(out).size() == 1);
    CHECK(out.back() == '\n');
    CHECK(out.rfind("ABCI " + state + " - ", 0) == 0);
    const auto bar = out.find(" | ");
    REQUIRE(bar != std::string::npos);
    CHECK(out.find("checks=", bar) == bar + 3);
    CHECK(out.find("unhealthy=", bar) != std::string::npos);
}

}  // namespace

TEST_CASE("client health: 0 OK (text, json, nagios, session or ABCICTL_TOKEN), 2 once the node stops or the server is down",
          "[client]") {
    ChainServer chain;
    auto& server = chain.server();
    Terminal admin(server.url());
    admin.login(Server::admin_email, Server::admin_password);
    Terminal monitor(server.url(), {{"ABCICTL_TOKEN", server.create_api_key("monitor", {"abci:health"})}});
    Terminal reader(server.url(), {{"ABCICTL_TOKEN", server.create_api_key("reader", {"abci:read"})}});

    const auto text = admin.ok({"health"});
    CHECK(text.rfind("OK: healthy\n", 0) == 0);
    CHECK(text.find("  database: healthy") != std::string::npos);
    const auto body = json::parse(admin.ok({"health", "--format", "json"}));
    CHECK(body["status"] == "healthy");
    CHECK(body["checks"].is_object());
    CHECK(json::parse(admin.ok({"--json", "health"}))["status"] == "healthy");
    require_nagios_line(admin.ok({"health", "--format", "nagios"}), "OK");
    CHECK(admin.ok({"-q", "health"}) == "OK\n");

    // A cron line: no login, an API key with abci:health.
    CHECK(monitor.ok({"-q", "health", "--timeout", "5"}) == "OK\n");
    const auto refused = reader.run({"health"});
    CHECK(refused.exit_code == 3);
    CHECK(refused.out.rfind("UNKNOWN: ", 0) == 0);

    // The node stops: CRITICAL within a few seconds.
    chain.anvil().stop();
    const auto stopped = std::chrono::steady_clock::now();
    os::CommandResult critical;
    do {
        critical = monitor.run({"health", "--format", "nagios", "--timeout", "5"});
        if (critical.exit_code != 2) std::this_thread::sleep_for(std::chrono::milliseconds(250));
    } while (critical.exit_code != 2 && std::chrono::steady_clock::now() - stopped < std::chrono::seconds(10));
    CHECK(critical.exit_code == 2);
    CHECK(std::chrono::steady_clock::now() - stopped < std::chrono::seconds(6));
    require_nagios_line(critical.out, "CRITICAL");
    CHECK(critical.out.find("failing: ") != std::string::npos);
    const auto degraded = admin.run({"health"});
    CHECK(degraded.exit_code == 2);
    CHECK(degraded.out.rfind("CRITICAL: degraded\n", 0) == 0);

    // The server stops: CRITICAL, as check_http says of a server that does not answer.
    server.stop();
    const auto down = monitor.run({"health"});
    CHECK(down.exit_code == 2);
    CHECK(down.out.rfind("CRITICAL: cannot reach the server at " + server.url(), 0) == 0);
    const auto nagios = admin.run({"health", "--format", "nagios"});
    CHECK(nagios.exit_code == 2);
    CHECK(lines_of(nagios.out).size() == 1);
    CHECK(nagios.out.rfind("ABCI CRITICAL - ", 0) == 0);
    CHECK(json::parse(admin.run({"health", "--format", "json"}).out)["status"] == "unreachable");
}

// Issue 32 item 7: the lane's figures a dashboard shows, from the server's health answer.
TEST_CASE("client health -v: each lane's owner, pending transactions by state and the oldest's age, the journal's and "
          "the chain's next nonce",
          "[client]") {
    ChainServer chain;
    Terminal admin(chain.server().url());
    admin.login(Server::admin_email, Server::admin_password);
    const auto nonce = chain.nonce(ChainServer::signer());
    const auto nonces = [](std::uint64_t journal, std::uint64_t latest, std::uint64_t pending) {
        return "    next nonce: journal " + std::to_string(journal) + ", chain latest " + std::to_string(latest) +
               ", chain pending " + std::to_string(pending) + "\n";
    };
    auto out = admin.ok({"-v", "health"});
    INFO(out);
    CHECK(out.find("  lane:devnet: healthy\n    owner: ") != std::string::npos);
    CHECK(out.find(" (epoch 1, this server)\n") != std::string::npos);
    CHECK(out.find("    pending: 0 (queued 0, signed 0, sent 0, stuck 0), oldest 0 s\n") != std::string::npos);
    CHECK(out.find(nonces(nonce, nonce, nonce)) != std::string::npos);
    CHECK(admin.ok({"health"}).find("    owner: ") == std::string::npos);

    // A mint the chain does not mine yet: sent, journaled, pending at the node.
    (void)chain.node_rpc("evm_setAutomine", {false});
    const auto session = chain.server().login_admin();
    auto minted = std::async(std::launch::async, [&] {
        return chain.http().post("/abci/contracts/mint-entity-token",
                                 entity_mint_body(Anvil::dev_accounts()[3].address, "report", "CLI-LANE-1"), session.token);
    });
    CHECK(eventually([&] {
        out = admin.ok({"-v", "health"});
        return out.find("    pending: 1 (queued 0, signed 0, sent 1, stuck 0), oldest ") != std::string::npos;
    }));
    INFO(out);
    CHECK(out.find(nonces(nonce + 1, nonce, nonce + 1)) != std::string::npos);
    (void)chain.node_rpc("evm_mine");
    CHECK(minted.get().status == 200);
}

// The contract: UNKNOWN (3) also for bad arguments, so a monitoring
// system never reads a typo as CRITICAL.
TEST_CASE("client health: bad arguments are UNKNOWN (3)", "[client]") {
    const CleanHome home;
    for (const std::vector<std::string>& args : {std::vector<std::string>{"health", "--format", "xml"},
                                                {"health", "--timeout", "-1"},
                                                {"health", "--no-such-flag"}}) {
        const auto r = run_abcictl(args, {}, home.env({{"ABCICTL_SERVER", "http://127.0.0.1:9"}}));
        INFO(Terminal::join(args) << "\n" << r.out << r.err);
        CHECK(r.exit_code == 3);
    }
}

}  // namespace abci::test::client
