// A mint taken by a replica that does not own the chain's lane (DESIGN.md
// §9): checked and claimed where it was taken, queued in the database, sent
// by the lane's owner, answered where it was taken. The chain is the oracle.

#include <signal.h>

#include <future>

#include "serve/expect.hpp"
#include "support/chain_server.hpp"
#include "support/eventually.hpp"
#include "support/postgres.hpp"
#include "core/eth/address.hpp"

namespace abci::test::replica_forwarding_tests {

namespace {

constexpr const char* kEntityRoute = "/abci/contracts/mint-entity-token";
constexpr const char* kRoleRoute = "/abci/contracts/mint-role-token";

void admin_with_database(const std::string& url, std::vector<std::string> args, const std::string& input = {}) {
    const auto r = run_abcictl(std::move(args), input, {{"ABCI_DATABASE_URL", url}});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
}

}  // namespace

TEST_CASE("replicas: a mint taken where the lane is not owned is checked there, sent by the owner, answered where taken",
          "[serve][postgres][anvil][lanes]") {
    const Postgres pg;
    const auto url = pg.create_database("forwarding");
    ChainServer a({.env = {{"ABCI_DATABASE_URL", url}}});
    Server b({.config = a.config(), .env = {{"ABCI_DATABASE_URL", url}}});
    const auto admin = a.server().login_admin();
    const auto holder = Anvil::dev_accounts()[5].address;
    const auto linked = Anvil::dev_accounts()[6].address;
    const auto start_nonce = a.nonce(ChainServer::signer());
    admin_with_database(url, {"admin", "user", "add", "--email", "producer@example.org", "--role", "farmer",
                              "--password-stdin"},
                        "producer pass 1234\n");
    admin_with_database(url, {"admin", "user", "link-wallet", "--email", "producer@example.org", "--address", linked});
    const auto post = [&](const char* route, const nlohmann::json& body, const std::string& key) {
        return b.http().post(route, body, admin.token, key.empty() ? Headers{} : Headers{{"Idempotency-Key", key}});
    };

    // An entity: minted by a's signer, its metadata stored on both.
    const auto entity = post(kEntityRoute, entity_mint_body(holder, "report", "R-1", 3), "entity");
    INFO(entity.body);
    REQUIRE(entity.status == 200);
    CHECK(a.chain_balance(holder, 1000) == "3");
    const auto cid = entity.json["metadata"]["ipfsHash"].get<std::string>();
    for (const auto* server : {&a.server(), &b}) {
        const auto metadata = server->http().get(
            "/abci/tokens/metadata/1000?blockchainId=" + std::string(ChainServer::blockchain_id) + "&entityId=R-1",
            admin.token);
        INFO(metadata.body);
        CHECK(metadata.status == 200);
        CHECK(metadata.json["data"] == nlohmann::json::parse(server->http().get("/ipfs/" + cid).body));
    }

    // A role: the pre-flight checks run where it was taken, nothing queued when they refuse.
    require_error(post(kRoleRoute, role_mint_body(holder, "producer"), "unlinked"), 422, "unprocessable");
    const auto role = post(kRoleRoute, role_mint_body(linked, "producer"), "role");
    INFO(role.body);
    REQUIRE(role.status == 200);
    CHECK(a.chain_balance(linked, 10000) == "1");
    require_error(post(kRoleRoute, role_mint_body(linked, "producer"), "role again"), 409, "conflict");
    // Its key: replayed by either server, refused for another body.
    for (const auto* server : {&a.server(), &b}) {
        const auto again = server->http().post(kRoleRoute, role_mint_body(linked, "producer"), admin.token,
                                               {{"Idempotency-Key", "role"}});
        CHECK(again.status == 200);
        CHECK(again.json["data"]["transactionHash"] == role.json["data"]["transactionHash"]);
    }
    require_error(post(kRoleRoute, role_mint_body(linked, "verifier"), "role"), 422, "unprocessable");

    // Without a key too.
    REQUIRE(post(kEntityRoute, entity_mint_body(holder, "report", "R-2"), "").status == 200);

    // The chain as the oracle: three mints on three nonces, and no job is left.
    CHECK(a.chain_balance(holder, 1000) == "4");
    CHECK(a.nonce(ChainServer::signer()) == start_nonce + 3);
    CHECK(pg.psql("forwarding", "SELECT count(*) FROM mint_jobs") == "0\n");
}

TEST_CASE("replicas: the replica that took a mint killed while it is queued: the owner still mints it once, a retry gets it",
          "[serve][postgres][anvil][lanes]") {
    const Postgres pg;
    const auto url = pg.create_database("orphan");
    ChainServer a({.env = {{"ABCI_DATABASE_URL", url}}});
    Server b({.config = a.config(), .env = {{"ABCI_DATABASE_URL", url}}});
    const auto admin = a.server().login_admin();
    const auto holder = Anvil::dev_accounts()[7].address;
    const auto start_nonce = a.nonce(ChainServer::signer());
    const auto body = entity_mint_body(holder, "report", "R-1");
    const Headers key{{"Idempotency-Key", "orphan"}};

    // The owner frozen for a moment (well inside its lease): the job waits in the table.
    REQUIRE(::kill(a.server().pid(), SIGSTOP) == 0);
    auto taken = std::async(std::launch::async, [&] { return b.http().post(kEntityRoute, body, admin.token, key); });
    const bool queued = eventually([&] { return pg.psql("orphan", "SELECT count(*) FROM mint_jobs") == "1\n"; });
    REQUIRE(::kill(b.pid(), SIGKILL) == 0);
    REQUIRE(::kill(a.server().pid(), SIGCONT) == 0);
    REQUIRE(queued);
    (void)taken.get();  // the connection broke

    HttpResponse retry;
    REQUIRE(eventually([&] { return (retry = a.http().post(kEntityRoute, body, admin.token, key)).status != 409; }));
    INFO(retry.body);
    REQUIRE(retry.status == 200);
    CHECK(a.chain_balance(holder, 1000) == "1");
    CHECK(a.nonce(ChainServer::signer()) == start_nonce + 1);
    CHECK(pg.psql("orphan", "SELECT count(*) FROM mint_jobs") == "0\n");
}

}  // namespace abci::test::replica_forwarding_tests

namespace abci::test::replica_forwarding_tests {

TEST_CASE("replicas: the owner stopped while it sends a mint another replica took finishes it first and exits cleanly",
          "[serve][postgres][anvil][lanes]") {
    const Postgres pg;
    const auto url = pg.create_database("stopping");
    ChainServer a({.env = {{"ABCI_DATABASE_URL", url}}});
    Server b({.config = a.config(), .env = {{"ABCI_DATABASE_URL", url}}});
    const auto admin = a.server().login_admin();
    const auto holder = Anvil::dev_accounts()[8].address;

    // Nothing is mined until the test says so: the owner's sending thread waits for the receipt.
    (void)a.node_rpc("evm_setAutomine", {false});
    auto held = std::async(std::launch::async, [&] {
        return b.http().post(kEntityRoute, entity_mint_body(holder, "report", "R-1"), admin.token,
                             {{"Idempotency-Key", "held"}});
    });
    REQUIRE(eventually([&] { return pg.psql("stopping", "SELECT count(*) FROM tx_journal WHERE status = 'pending'") == "1\n"; }));

    auto stopped = std::async(std::launch::async, [&] { return a.server().stop(); });
    // SIGTERM is being handled once the listening socket is closed: the sending thread is being joined.
    REQUIRE(eventually([&] { return a.server().http().get("/readyz").unsent; }));
    (void)a.node_rpc("evm_mine");
    CHECK(stopped.get() == 0);  // not killed after the stop's grace period
    const auto answer = held.get();
    INFO(answer.body);
    CHECK(answer.status == 200);
    CHECK(a.chain_balance(holder, 1000) == "1");
}

}  // namespace abci::test::replica_forwarding_tests

namespace abci::test::replica_forwarding_tests {

// The owner gives up on a receipt after receiptTimeoutMs and answers its own
// callers 504; the replica that took a mint learns so by a notification and
// answers its caller then too, instead of at the end of its own allowance for
// a lane changing hands (15 s past the receipt timeout).
TEST_CASE("replicas: a mint the owner cannot settle within the receipt timeout is answered 504 where taken as the owner gives up",
          "[serve][postgres][anvil][lanes]") {
    const Postgres pg;
    const auto url = pg.create_database("unsettled");
    ChainServer a({.devnet_keys = "receiptTimeoutMs = 1000\n", .env = {{"ABCI_DATABASE_URL", url}}});
    Server b({.config = a.config(), .env = {{"ABCI_DATABASE_URL", url}}});
    const auto admin = a.server().login_admin();
    const auto holder = Anvil::dev_accounts()[9].address;
    const auto body = entity_mint_body(holder, "report", "R-1");

    (void)a.node_rpc("evm_setAutomine", {false});
    const auto asked = std::chrono::steady_clock::now();
    const auto answer = b.http().post(kEntityRoute, body, admin.token, {{"Idempotency-Key", "late"}});
    const auto waited = std::chrono::steady_clock::now() - asked;
    INFO(answer.body);
    REQUIRE(answer.status == 504);
    CHECK(waited < std::chrono::seconds(10));
    const auto mint_id = answer.json["mintId"].get<std::string>();
    CHECK(answer.json["transactionHashes"].size() == 1);

    // Mined later: the mint is recorded, the key replays it on either replica.
    (void)a.node_rpc("evm_mine");
    REQUIRE(eventually([&] {
        return b.http().get("/abci/contracts/mints/" + mint_id, admin.token).json["data"]["state"] == "mined";
    }));
    CHECK(a.http().post(kEntityRoute, body, admin.token, {{"Idempotency-Key", "late"}}).status == 200);
    CHECK(a.chain_balance(holder, 1000) == "1");
}

}  // namespace abci::test::replica_forwarding_tests
