// Issue 14 ("off the happy path") through the real binary against a real
// `abcictl serve` on a real anvil: chains status says what is known and what
// is not (node down, a node of another chain), health's nagios verdicts,
// mint-entity's flags over a metadata file, the cached chain list's age and
// its invalidation by a server restart, a login's server remembered, EIP-55
// wallets, role names as token ids, "no tokens", block-explorer links, the
// role-requests command and errors that name the next step.

#include <regex>

#include <nlohmann/json.hpp>

#include "cli/client_chain_fixture.hpp"

namespace abci::test::client {
namespace {

using nlohmann::json;

// Any address will do for a chain whose node is not the one it names.
constexpr const char* kFirstContract = "0x5FbDB2315678afecb367f032d93F642f64180aa3";

// A chain configured as the devnet's chain id (31337) whose node serves another (1337).
ChainServer::Options with_wrong_chain(const Anvil& other) {
    ChainServer::Options options;
    options.extra_config = chain_entry("wrongnet", "Misconfigured", other.url(), kFirstContract, "testnet");
    return options;
}

/// `chains status …` of a degraded chain: its record, with health's CRITICAL (2) as the exit code.
std::string degraded(Terminal& t, const std::vector<std::string>& args) {
    const auto r = t.run(args);
    INFO(r.out << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.empty());
    return r.out;
}

}  // namespace

TEST_CASE("client chains status says what is known: a node of another chain, a node down, and health agrees",
          "[client][offpath]") {
    Anvil other({.chain_id = 1337});
    Fixture f(with_wrong_chain(other));
    auto& admin = f.admin;

    // A healthy chain: 0, as health's OK.
    CHECK(field(admin.ok({"chains", "status", "devnet"}), "status") == "healthy");
    // The node answers for another chain: nothing it says is about this network.
    const auto wrong = degraded(admin, {"chains", "status", "wrongnet"});
    INFO(wrong);
    CHECK(field(wrong, "status") == "degraded");
    CHECK(field(wrong, "rpc").rfind("wrong chain", 0) == 0);
    CHECK(field(wrong, "contract") == std::string(kFirstContract) + " (unknown: the node did not answer)");
    const auto wrong_json = json::parse(degraded(admin, {"--json", "chains", "status", "wrongnet"}));
    CHECK(wrong_json["data"]["contractStatus"]["deployed"].is_null());
    CHECK(wrong_json["data"]["health"]["rpcConnectivity"] == "wrong-chain");
    const auto health = json::parse(admin.run({"health", "--format", "json"}).out);
    CHECK(health["checks"]["network:wrongnet"]["healthy"] == false);

    // Errors name the next step.
    const auto nowhere = one_line_failure(admin.run({"chains", "status", "nowhere"}), 2);
    CHECK(nowhere.find("abcictl chains list") != std::string::npos);

    // The node stops: whether the contract is deployed is unknown, not false.
    f.chain.anvil().stop();
    const auto down = degraded(admin, {"chains", "status", "devnet"});
    INFO(down);
    CHECK(field(down, "status") == "degraded");
    CHECK(field(down, "contract") == f.chain.contract() + " (unknown: the node did not answer)");
    CHECK(field(down, "blockTime") == "unknown");
    CHECK(field(down, "latestBlock") == "unknown");
    CHECK(field(down, "rpc") == "unreachable");
    const auto down_json = json::parse(degraded(admin, {"--json", "chains", "status", "devnet"}));
    CHECK(down_json["data"]["contractStatus"]["deployed"].is_null());
    CHECK(down_json["data"]["blockTime"].is_null());

    // Nagios: a dead node has no latency in the perfdata.
    const auto nagios = admin.run({"health", "--format", "nagios"});
    INFO(nagios.out);
    CHECK(nagios.exit_code == 2);
    CHECK(nagios.out.find("network_devnet_latency") == std::string::npos);
    CHECK(nagios.out.find("0ms") == std::string::npos);

    // The server stops: CRITICAL, as check_http says, in every format.
    f.chain.server().stop();
    const auto unreachable = admin.run({"health", "--format", "nagios"});
    CHECK(unreachable.exit_code == 2);
    CHECK(unreachable.out.rfind("ABCI CRITICAL - cannot reach the server at " + f.chain.server().url(), 0) == 0);
    const auto text = admin.run({"health"});
    CHECK(text.exit_code == 2);
    CHECK(text.out.rfind("CRITICAL: cannot reach", 0) == 0);
    CHECK(json::parse(admin.run({"health", "--format", "json"}).out)["status"] == "unreachable");
}

TEST_CASE("client off the happy path: metadata flags merged, explorer links, EIP-55, role names, no tokens, "
          "role-requests, cache age",
          "[client][offpath]") {
    Fixture f;
    auto& admin = f.admin;
    auto& farmer = f.farmer;
    const std::string holder_lower = lower(f.holder);
    REQUIRE(holder_lower != f.holder);  // the dev account's address has upper-case letters

    // An empty balance says so instead of printing a bare header.
    CHECK(admin.ok({"balance", "--address", holder_lower, "--chain", "devnet"}) ==
          "no tokens: " + holder_lower + " holds none on devnet\n");
    // Wallets in EIP-55 form.
    CHECK(field(farmer.ok({"whoami"}), "wallets") == f.holder);

    // --metadata FILE with flags: the flags replace or add, none is dropped.
    const auto file = admin.home().write(
        "report.json",
        json{{"name", "File report"},
             {"description", "from the file"},
             {"attributes", json::array({{{"trait_type", "hectares"}, {"value", 5}}, {{"trait_type", "crop"}, {"value", "wheat"}}})}}
            .dump());
    const auto run = admin.run(with(f.mint_report("rep-merge"), "-v", "--metadata", file, "--description", "from the flags",
                                     "--attr", "hectares=12", "--attr", "soil=loam"));
    const auto& minted = run.out;
    INFO(minted << run.err);
    REQUIRE(run.exit_code == 0);
    CHECK(field(minted, "explorer") == "https://explorer.example/tx/" + field(minted, "transactionHash"));
    const auto record = json::parse(admin.ok({"--json", "tokens", "metadata", "report", "--chain", "devnet",
                                              "--entity-id", "rep-merge"}))["data"];
    CHECK(record["name"] == "File report");
    CHECK(record["description"] == "from the flags");
    REQUIRE(record["attributes"].size() >= 3);  // the server adds its own (entityId) after ours
    CHECK(json(std::vector<json>(record["attributes"].begin(), record["attributes"].begin() + 3)) ==
          json::array({{{"trait_type", "hectares"}, {"value", 12}},
                       {{"trait_type", "crop"}, {"value", "wheat"}},
                       {{"trait_type", "soil"}, {"value", "loam"}}}));

    // A role name where a token id is expected.
    (void)admin.ok(with({"-q"}, "mint-role", "--address", f.holder, "--role", "producer", "--chain", "devnet"));
    CHECK(admin.ok({"-q", "balance", "--address", f.holder, "--chain", "devnet", "--token", "producer"}) == "1\n");

    // role-requests list, approve and reject: the workflow without curl.
    const auto& server = f.chain.server();
    const auto requester = server.login("producer@example.org", "producer pass 1234");
    const auto request = [&](const std::string& role) {
        const auto r = server.http().post("/v1/role-requests",
                                          {{"roleType", role}, {"walletAddress", f.holder}, {"blockchainId", "devnet"},
                                           {"note", "field work"}},
                                          requester.token);
        INFO(r.body);
        REQUIRE(r.status == 201);
        return r.json["data"]["id"].get<std::string>();
    };
    const auto verifier = request("verifier");
    const auto valuator = request("valuator");

    const auto table = lines_of(admin.ok({"role-requests", "list", "--status", "pending"}));
    REQUIRE(table.size() == 3);
    CHECK(table[0].rfind("ID", 0) == 0);
    CHECK(table[1].rfind(verifier, 0) == 0);
    for (const auto& line : {table[1], table[2]}) {
        CHECK(line.find("pending") != std::string::npos);
        CHECK(line.find(f.holder) != std::string::npos);  // EIP-55
        CHECK(line.find("producer@example.org") != std::string::npos);
    }

    // Approve: the role token is minted, and the command says so.
    const auto approved = admin.run({"role-requests", "approve", verifier});
    INFO(approved.err);
    REQUIRE(approved.exit_code == 0);
    CHECK(field(approved.out, "status") == "minted");
    CHECK(approved.err.find("approved role request " + verifier + ": the verifier role token was minted to " + f.holder) !=
          std::string::npos);
    CHECK(f.chain.receipt(field(approved.out, "transactionHash"))["status"] == "0x1");
    CHECK(f.chain.chain_balance(f.holder, 10100) == "1");

    // Reject: nothing minted; rejecting again is the same answer; approving it is refused.
    CHECK(admin.ok({"-q", "role-requests", "reject", valuator}) == "rejected\n");
    CHECK(admin.ok({"-q", "role-requests", "reject", valuator}) == "rejected\n");
    CHECK(one_line_failure(admin.run({"role-requests", "approve", valuator}), 2).find("rejected") != std::string::npos);
    CHECK(one_line_failure(admin.run({"role-requests", "reject", verifier}), 2).find("minted") != std::string::npos);
    CHECK(f.chain.chain_balance(f.holder, 10200) == "0");
    CHECK(admin.ok({"-q", "role-requests", "list", "--status", "rejected"}) == valuator + "\n");
    const auto listed = json::parse(admin.ok({"--json", "role-requests", "list"}));
    REQUIRE(listed["data"].size() == 2);

    // Not an admin: 4; not an id: 2 before anything is sent.
    (void)one_line_failure(farmer.run({"role-requests", "list"}), 4);
    (void)one_line_failure(admin.run({"role-requests", "approve", "../users"}), 2);
    CHECK(admin.ok({"role-requests", "list", "--status", "approved"}) == "no role requests with status approved\n");

    // The chain list: fetched, then shown from the cache with its age…
    (void)admin.ok({"chains", "list", "--refresh"});
    const auto cached = admin.run({"chains", "list"});
    CHECK(cached.exit_code == 0);
    CHECK(std::regex_search(cached.err, std::regex(R"(\(cached \d+ s ago; abcictl chains list --refresh asks the server\))")));
    // …until the server restarts (a new devnet may have other chains): asked again.
    f.chain.server().restart();
    const auto after_restart = admin.run({"chains", "list"});
    CHECK(after_restart.exit_code == 0);
    CHECK(after_restart.err.find("cached") == std::string::npos);
    CHECK(admin.run({"chains", "list"}).err.find("cached") != std::string::npos);
}

TEST_CASE("client login remembers its server: the next command without --server talks to it", "[client][offpath]") {
    Server server;
    const CleanHome home;
    const auto env = home.env();  // no ABCICTL_SERVER: the default would be 127.0.0.1:8080
    const auto login = run_abcictl({"--server", server.url(), "login", "--email", Server::admin_email, "--password-stdin"},
                                   std::string(Server::admin_password) + "\n", env);
    INFO(login.err);
    REQUIRE(login.exit_code == 0);
    const auto whoami = run_abcictl({"whoami"}, {}, env);
    INFO(whoami.err);
    CHECK(whoami.exit_code == 0);
    CHECK(field(whoami.out, "server") == server.url());
    CHECK(field(whoami.out, "email") == Server::admin_email);
    // A flag still wins: another server is asked, and says it has no session.
    const auto elsewhere = run_abcictl({"--server", "http://127.0.0.1:9", "whoami"}, {}, env);
    CHECK(elsewhere.exit_code == 4);
}

}  // namespace abci::test::client
