// Two servers with the same chain and signer on one PostgreSQL database
// (DESIGN.md §9): one sends for the lane at a time, the mints the other takes
// included; when it dies (kill -9) or freezes the other takes the lane over
// and mints, and the chain holds each mint once, on contiguous nonces.

#include <signal.h>

#include <chrono>

#include "serve/expect.hpp"
#include "support/chain_server.hpp"
#include "support/eventually.hpp"
#include "support/postgres.hpp"
#include "core/eth/address.hpp"

namespace abci::test::replica_lanes_tests {

TEST_CASE("replicas: one sends for the lane, the other hands it its mints, and when it is killed the other takes it over",
          "[serve][postgres][anvil][lanes]") {
    const Postgres pg;
    const auto url = pg.create_database("lanes");
    ChainServer a({.env = {{"ABCI_DATABASE_URL", url}}});
    Server b({.config = a.config(), .env = {{"ABCI_DATABASE_URL", url}}});
    const auto admin = a.server().login_admin();
    const auto holder = Anvil::dev_accounts()[5].address;
    const auto start_nonce = a.nonce(ChainServer::signer());
    const auto mint = [&](const Server& server, const std::string& key) {
        return server.http().post("/abci/contracts/mint-entity-token", entity_mint_body(holder, "report", key),
                                  admin.token, {{"Idempotency-Key", key}});
    };

    // a started first and owns the lane: it mints, and it sends what b takes.
    const auto first = mint(a.server(), "R-1");
    INFO(first.body);
    REQUIRE(first.status == 200);
    const auto handed = mint(b, "R-2");
    INFO(handed.body);
    REQUIRE(handed.status == 200);
    CHECK(a.receipt(handed.json["data"]["transactionHash"].get<std::string>())["from"] ==
          eth::Address::parse(ChainServer::signer()).lower());
    // A repeat of a finished key is answered by either.
    for (const auto* server : {&a.server(), &b}) {
        const auto replayed = mint(*server, "R-1");
        CHECK(replayed.status == 200);
        CHECK(replayed.json["data"]["transactionHash"] == first.json["data"]["transactionHash"]);
    }

    a.kill_server();
    const auto killed = std::chrono::steady_clock::now();
    // Taken while the lane has no owner, the mint waits for the next one.
    const auto third = mint(b, "R-3");
    const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - killed);
    INFO(third.body << " (minted " << took.count() << " ms after the kill)");
    REQUIRE(third.status == 200);

    // The chain as the oracle: three mints, three nonces, nothing else sent.
    CHECK(a.chain_balance(holder, 1000) == "3");
    CHECK(a.nonce(ChainServer::signer()) == start_nonce + 3);

    // b owns the lane now, under the next epoch: its health and `admin lanes` say so.
    const auto health = b.http().get("/abci/health", admin.token);
    const auto& lane = health.json["checks"]["lane:devnet"];
    INFO(health.body);
    CHECK(lane["healthy"] == true);
    CHECK(lane["ownedHere"] == true);
    CHECK(lane["epoch"] == 2);
    const auto listed = run_abcictl({"admin", "lanes", "--json"}, "", {{"ABCI_DATABASE_URL", url}});
    INFO(listed.err);
    REQUIRE(listed.exit_code == 0);
    const auto lanes = nlohmann::json::parse(listed.out);
    REQUIRE(lanes.size() == 1);
    CHECK(lanes[0]["lane"] == "devnet/" + eth::Address::parse(ChainServer::signer()).lower());
    CHECK(lanes[0]["epoch"] == 2);
    CHECK_THAT(lanes[0]["owner"].get<std::string>(), Catch::Contains(":" + std::to_string(b.port()) + " pid"));
    CHECK(lanes[0]["leaseHeld"] == true);
    CHECK(lanes[0]["pendingTransactions"] == 0);
}

}  // namespace abci::test::replica_lanes_tests

namespace abci::test::replica_lanes_tests {

TEST_CASE("replicas: a frozen owner is replaced once its lease ran out and sends nothing itself when it wakes",
          "[serve][postgres][anvil][lanes]") {
    const Postgres pg;
    const auto url = pg.create_database("frozen");
    ChainServer a({.env = {{"ABCI_DATABASE_URL", url}}});
    Server b({.config = a.config(), .env = {{"ABCI_DATABASE_URL", url}}});
    const auto admin = a.server().login_admin();
    const auto holder = Anvil::dev_accounts()[6].address;
    const auto start_nonce = a.nonce(ChainServer::signer());
    const auto mint = [&](const Server& server, const std::string& key) {
        return server.http().post("/abci/contracts/mint-entity-token", entity_mint_body(holder, "report", key),
                                  admin.token, {{"Idempotency-Key", key}});
    };
    REQUIRE(mint(a.server(), "before").status == 200);

    // Queued for the frozen owner, the mint is sent by b once it took the lane.
    REQUIRE(::kill(a.server().pid(), SIGSTOP) == 0);
    const auto during = mint(b, "during");
    INFO(during.body);
    REQUIRE(during.status == 200);
    CHECK(b.http().get("/abci/health", admin.token).json["checks"]["lane:devnet"]["ownedHere"] == true);

    // Awake again, a finds its lane gone: what it takes now, b sends.
    REQUIRE(::kill(a.server().pid(), SIGCONT) == 0);
    REQUIRE(eventually([&] {
        return a.http().get("/abci/health", admin.token).json["checks"]["lane:devnet"]["ownedHere"] == false;
    }));
    const auto after = mint(a.server(), "after");
    INFO(after.body);
    CHECK(after.status == 200);

    CHECK(a.chain_balance(holder, 1000) == "3");
    CHECK(a.nonce(ChainServer::signer()) == start_nonce + 3);
}

}  // namespace abci::test::replica_lanes_tests

namespace abci::test::replica_lanes_tests {

TEST_CASE("replicas: the database restarted as after a crash: a lane is taken again and minting resumes once",
          "[serve][postgres][anvil][lanes]") {
    Postgres pg;
    const auto url = pg.create_database("restart");
    ChainServer a({.env = {{"ABCI_DATABASE_URL", url}}});
    Server b({.config = a.config(), .env = {{"ABCI_DATABASE_URL", url}}});
    const auto holder = Anvil::dev_accounts()[7].address;
    const auto start_nonce = a.nonce(ChainServer::signer());
    std::string token = a.server().login_admin().token;
    REQUIRE(a.http().post("/abci/contracts/mint-entity-token", entity_mint_body(holder, "report", "before"), token,
                          {{"Idempotency-Key", "before"}})
                .status == 200);

    pg.restart_immediate();
    // Whichever replica holds the lane now mints what either takes.
    HttpResponse after;
    REQUIRE(eventually([&] {
        for (const auto* server : {&a.server(), &b}) {
            after = server->http().post("/abci/contracts/mint-entity-token", entity_mint_body(holder, "report", "after"),
                                        token, {{"Idempotency-Key", "after"}});
            if (after.status == 200) return true;
        }
        return false;
    }));
    CHECK(a.chain_balance(holder, 1000) == "2");
    CHECK(a.nonce(ChainServer::signer()) == start_nonce + 2);
}

}  // namespace abci::test::replica_lanes_tests
