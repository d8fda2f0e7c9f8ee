// Mints that do not wait (issue 34 item 1): `Prefer: respond-async` (RFC 7240)
// answers 202 once the mint is checked and durably queued, Location names its
// status route, and the mint completes on the lane as a waiting one does;
// Idempotency-Keys across waiting and non-waiting callers; kill -9 after a
// burst of 202s; a replica that does not own the lane. The chain is the oracle.

#include <future>
#include <set>
#include <thread>

#include "serve/expect.hpp"
#include "support/chain_server.hpp"
#include "support/eventually.hpp"
#include "support/postgres.hpp"
#include "support/random.hpp"

namespace abci::test::abci_async_tests {
namespace {

using namespace std::chrono_literals;

constexpr const char* kEntityRoute = "/abci/contracts/mint-entity-token";
constexpr const char* kRoleRoute = "/abci/contracts/mint-role-token";
constexpr const char* kStatusPrefix = "/abci/contracts/mints/";
constexpr std::uint64_t kReport = 1000;

Headers async_headers(const std::string& key = {}, const std::string& prefer = "respond-async") {
    Headers headers{{"Prefer", prefer}};
    if (!key.empty()) headers.emplace_back("Idempotency-Key", key);
    return headers;
}

// Asserts `r` is the 202 of a mint that does not wait, with `key` (none:
// null); returns the mint's id.
std::string require_accepted(const HttpResponse& r, const std::string& key = {}) {
    INFO(r.status << " " << r.body);
    REQUIRE(r.status == 202);
    REQUIRE(has_exactly_keys(r.json, {"success", "data"}));
    CHECK(r.json["success"] == true);
    const auto& data = r.json["data"];
    REQUIRE(has_exactly_keys(data, {"mintId", "state", "idempotencyKey"}));
    CHECK(data["state"] == "pending");
    CHECK(data["idempotencyKey"] == (key.empty() ? nlohmann::json(nullptr) : nlohmann::json(key)));
    const auto mint_id = data["mintId"].get<std::string>();
    CHECK(r.header("Location") == kStatusPrefix + mint_id);
    CHECK(r.header("Preference-Applied") == "respond-async");
    CHECK(r.header("Vary") == "Prefer");
    return mint_id;
}

// The mint's status once it is final (state mined or failed), as `token` reads it.
nlohmann::json final_status(const Http& http, const std::string& mint_id, const std::string& token) {
    nlohmann::json data;
    const bool settled = eventually([&] {
        const auto r = http.get(kStatusPrefix + mint_id, token);
        data = r.json["data"];
        return r.status == 200 && data["state"] != "pending";
    });
    INFO(data.dump());
    REQUIRE(settled);
    return data;
}

}  // namespace

TEST_CASE("abci async mint: Prefer respond-async answers 202 after the checks, Location tells the outcome, the chain holds each once",
          "[serve][abci][async]") {
    ChainServer chain;
    auto& server = chain.server();
    const auto http = chain.http();
    const auto admin = server.login_admin();
    Random random(34);
    const auto to = random.address().checksummed();
    const auto start_nonce = chain.nonce(ChainServer::signer());

    // A bad request is its 4xx, never a 202: the body, then a failed pre-flight check.
    auto bad = entity_mint_body(to, "report", "A-0");
    bad.erase("metadata");
    const auto invalid = http.post(kEntityRoute, bad, admin.token, async_headers("bad"));
    require_invalid_request(invalid);
    CHECK_FALSE(invalid.has_header("Preference-Applied"));
    require_error(http.post(kRoleRoute, role_mint_body(to, "producer"), admin.token, async_headers("unlinked")), 422,
                  "unprocessable");
    CHECK(http.get("/abci/contracts/mints?idempotencyKey=unlinked", admin.token).status == 404);

    // Among other preferences, in any case, on a second Prefer line; with and without a key.
    const std::vector<Headers> forms{
        async_headers("a-1"),
        async_headers("a-2", "return=minimal, Respond-Async, wait=10"),
        {{"Prefer", "return=minimal"}, {"Prefer", "RESPOND-ASYNC"}, {"Idempotency-Key", "a-3"}},
        async_headers(),
    };
    std::vector<std::string> mint_ids;
    for (std::size_t i = 0; i < forms.size(); ++i) {
        const auto r = http.post(kEntityRoute, entity_mint_body(to, "report", "A-" + std::to_string(i + 1)), admin.token,
                                 forms[i]);
        mint_ids.push_back(require_accepted(r, i < 3 ? "a-" + std::to_string(i + 1) : ""));
    }
    CHECK(std::set(mint_ids.begin(), mint_ids.end()).size() == forms.size());

    // Each Location gives the outcome, the answer a waiting caller would have had.
    std::set<std::string> hashes;
    for (std::size_t i = 0; i < mint_ids.size(); ++i) {
        const auto status = final_status(http, mint_ids[i], admin.token);
        INFO(status.dump());
        REQUIRE(status["state"] == "mined");
        const auto& result = status["result"];
        CHECK(result["success"] == true);
        CHECK(result["metadata"]["entityId"] == "A-" + std::to_string(i + 1));
        hashes.insert(result["data"]["transactionHash"].get<std::string>());
    }
    CHECK(hashes.size() == mint_ids.size());
    CHECK(chain.chain_balance(to, kReport) == std::to_string(mint_ids.size()));
    CHECK(chain.nonce(ChainServer::signer()) == start_nonce + mint_ids.size());

    // Without the header: the answer of old, 200 with the receipt.
    const auto waited_body = entity_mint_body(to, "report", "A-9");
    const auto waited = http.post(kEntityRoute, waited_body, admin.token, {{"Prefer", "return=minimal"}});
    (void)require_entity_minted(waited, waited_body);
    CHECK_FALSE(waited.has_header("Preference-Applied"));
    CHECK(waited.header("Vary") == "Prefer");

    // The Location is the caller's own: an API key that mints sees its mint, not the admin's.
    const auto key = server.create_api_key("platform", {"abci:mint-entity"});
    const auto own = require_accepted(http.post(kEntityRoute, entity_mint_body(to, "report", "K-1"), key, async_headers()));
    CHECK(final_status(http, own, key)["state"] == "mined");
    CHECK(http.get(kStatusPrefix + mint_ids[0], key).status == 404);
    CHECK(http.get(kStatusPrefix + own, admin.token).status == 200);
    CHECK(chain.chain_balance(to, kReport) == std::to_string(mint_ids.size() + 2));
}

TEST_CASE("abci async mint: an Idempotency-Key across waiting and non-waiting callers", "[serve][abci][async]") {
    ChainServer chain;
    const auto http = chain.http();
    const auto admin = chain.server().login_admin();
    Random random(35);
    const auto to = random.address().checksummed();
    const auto body = entity_mint_body(to, "report", "I-1");
    // Nothing is mined until the test says so.
    (void)chain.node_rpc("evm_setAutomine", {false});

    const auto mint_id = require_accepted(http.post(kEntityRoute, body, admin.token, async_headers("i-1")), "i-1");
    // While pending: the same 202 again; a waiting caller its 409 of old; another body 422.
    CHECK(require_accepted(http.post(kEntityRoute, body, admin.token, async_headers("i-1")), "i-1") == mint_id);
    const auto waiting = http.post(kEntityRoute, body, admin.token, {{"Idempotency-Key", "i-1"}});
    require_error(waiting, 409, "conflict");
    CHECK(waiting.json["mintId"] == mint_id);
    require_error(http.post(kEntityRoute, entity_mint_body(to, "report", "I-2"), admin.token, async_headers("i-1")), 422,
                  "unprocessable");

    // A waiting caller's mint, still pending, repeated by one that does not wait: its 202.
    const auto waited_body = entity_mint_body(to, "report", "I-3");
    auto waited = std::async(std::launch::async,
                             [&] { return http.post(kEntityRoute, waited_body, admin.token, {{"Idempotency-Key", "i-3"}}); });
    std::string waited_id;
    REQUIRE(eventually([&] {
        const auto r = http.get("/abci/contracts/mints?idempotencyKey=i-3", admin.token);
        if (r.status == 200) waited_id = r.json["data"]["mintId"].get<std::string>();
        return r.status == 200 && !r.json["data"]["transactions"].empty();
    }));
    CHECK(require_accepted(http.post(kEntityRoute, waited_body, admin.token, async_headers("i-3")), "i-3") == waited_id);

    // Mined, once both reached the node: every caller of either key gets the final answer.
    REQUIRE(eventually([&] { return chain.nonce(ChainServer::signer(), true) >= chain.nonce(ChainServer::signer()) + 2; }));
    (void)chain.node_rpc("evm_mine");
    const auto waited_answer = waited.get();
    (void)require_entity_minted(waited_answer, waited_body);
    const auto status = final_status(http, mint_id, admin.token);
    REQUIRE(status["state"] == "mined");
    for (const auto& headers : {async_headers("i-1"), Headers{{"Idempotency-Key", "i-1"}}}) {
        const auto again = http.post(kEntityRoute, body, admin.token, headers);
        (void)require_entity_minted(again, body);
        CHECK(again.json == status["result"]);
        CHECK(again.header("Content-Location") == kStatusPrefix + mint_id);
    }
    CHECK(http.post(kEntityRoute, waited_body, admin.token, async_headers("i-3")).json == waited_answer.json);
    CHECK(chain.chain_balance(to, kReport) == "2");

    // A failed mint's key answers its error to either caller: two role mints
    // for one wallet both pass the checks while neither is mined, and the
    // contract refuses the second.
    const auto holder = Anvil::dev_accounts()[5].address;
    chain.server().add_user("holder@example.org", "farmer", "holder pass 12345");
    chain.server().link_wallet("holder@example.org", holder);
    const auto role = role_mint_body(holder, "producer");
    const auto first_role = require_accepted(http.post(kRoleRoute, role, admin.token, async_headers("r-1")), "r-1");
    const auto second_role = require_accepted(http.post(kRoleRoute, role, admin.token, async_headers("r-2")), "r-2");
    REQUIRE(eventually([&] { return chain.nonce(ChainServer::signer(), true) >= chain.nonce(ChainServer::signer()) + 2; }));
    (void)chain.node_rpc("evm_setAutomine", {true});
    (void)chain.node_rpc("evm_mine");
    const auto outcomes = std::set<nlohmann::json>{final_status(http, first_role, admin.token)["state"],
                                                   final_status(http, second_role, admin.token)["state"]};
    CHECK(outcomes == std::set<nlohmann::json>{"mined", "failed"});
    const bool second_failed = final_status(http, second_role, admin.token)["state"] == "failed";
    const auto failed_key = second_failed ? "r-2" : "r-1";
    for (const auto& headers : {async_headers(failed_key), Headers{{"Idempotency-Key", failed_key}}})
        require_error(http.post(kRoleRoute, role, admin.token, headers), 409, "conflict");
    CHECK(chain.chain_balance(holder, 10000) == "1");
    // Now that the chain and the records hold the role, a third is refused before any 202.
    require_error(http.post(kRoleRoute, role, admin.token, async_headers("r-3")), 409, "conflict");
}

TEST_CASE("abci async mint through kill -9 right after a burst of 202s: after the restart each is minted exactly once",
          "[serve][abci][async]") {
    ChainServer::Options options;
    options.anvil.block_time = 2000ms;
    ChainServer chain(options);
    auto& server = chain.server();
    const auto http = chain.http();
    const auto admin = server.login_admin();
    Random random(36);
    const auto nonce = chain.nonce(ChainServer::signer());
    constexpr std::size_t kMints = 24;
    std::vector<std::string> recipients;
    std::vector<std::string> mint_ids;
    for (std::size_t i = 0; i < kMints; ++i) {
        recipients.push_back(random.address().checksummed());
        const auto r = http.post(kEntityRoute, entity_mint_body(recipients.back(), "report", "C-" + std::to_string(i), 3),
                                 admin.token, async_headers("c-" + std::to_string(i)));
        mint_ids.push_back(require_accepted(r, "c-" + std::to_string(i)));
    }
    chain.kill_server();

    server.restart();
    std::set<std::string> hashes;
    for (const auto& mint_id : mint_ids) {
        const auto status = final_status(http, mint_id, admin.token);
        INFO(status.dump());
        REQUIRE(status["state"] == "mined");
        hashes.insert(status["result"]["data"]["transactionHash"].get<std::string>());
    }
    CHECK(hashes.size() == kMints);
    CHECK(chain.nonce(ChainServer::signer()) == nonce + kMints);
    for (const auto& balance : chain.chain_balances(recipients, kReport)) CHECK(balance == "3");
}

TEST_CASE("abci async mint on a replica that does not send for the chain: 202 at once, the owner mints it, either tells",
          "[serve][postgres][anvil][lanes][async]") {
    const Postgres pg;
    const auto url = pg.create_database("async");
    ChainServer a({.env = {{"ABCI_DATABASE_URL", url}}});
    Server b({.config = a.config(), .env = {{"ABCI_DATABASE_URL", url}}});
    const auto admin = a.server().login_admin();
    const auto holder = Anvil::dev_accounts()[7].address;
    const auto start_nonce = a.nonce(ChainServer::signer());
    const auto body = entity_mint_body(holder, "report", "F-1", 2);

    // Nothing is mined meanwhile: the 202 waits for no receipt.
    (void)a.node_rpc("evm_setAutomine", {false});
    const auto accepted = b.http().post(kEntityRoute, body, admin.token, async_headers("f-1"));
    const auto mint_id = require_accepted(accepted, "f-1");
    CHECK(pg.psql("async", "SELECT state FROM mint_requests WHERE id = '" + mint_id + "'") == "pending\n");
    CHECK(require_accepted(b.http().post(kEntityRoute, body, admin.token, async_headers("f-1")), "f-1") == mint_id);
    // The owner sends it: its transaction is journaled, the job gone, and it reaches the node.
    REQUIRE(eventually([&] { return pg.psql("async", "SELECT count(*) FROM mint_jobs") == "0\n"; }));
    REQUIRE(eventually([&] { return a.nonce(ChainServer::signer(), true) == start_nonce + 1; }));
    (void)a.node_rpc("evm_mine");

    for (const auto* server : {&b, &a.server()}) {
        const auto status = final_status(server->http(), mint_id, admin.token);
        CHECK(status["state"] == "mined");
    }
    const auto again = b.http().post(kEntityRoute, body, admin.token, async_headers("f-1"));
    (void)require_entity_minted(again, body);
    CHECK(a.chain_balance(holder, kReport) == "2");
    CHECK(a.nonce(ChainServer::signer()) == start_nonce + 1);
}

}  // namespace abci::test::abci_async_tests
