// A mint's outcome off the happy path (issue 12), as the HTTP caller sees it:
// a pre-flight that times out frees its Idempotency-Key; a receipt timeout
// names the mint and its transactions, and the mint is recorded when it
// lands, live; fee bumps and an unfunded signer show in health. Chain resets
// and reorgs under a mint are tested in-process (integration/mint_service_test.cpp).

#include <future>
#include <thread>

#include "serve/expect.hpp"
#include "support/chain_server.hpp"
#include "support/eventually.hpp"
#include "support/random.hpp"
#include "support/tools.hpp"

namespace abci::test::abci_outcome_tests {
namespace {

using namespace std::chrono_literals;

constexpr const char* kRoute = "/abci/contracts/mint-entity-token";
constexpr std::uint64_t kReport = 1000;

Headers key_header(const std::string& key) { return {{"Idempotency-Key", key}}; }


// The body of a mint left unsettled: the mint's id and every hash signed for it.
std::pair<std::string, std::vector<std::string>> unsettled_mint(const HttpResponse& r) {
    INFO(r.status << " " << r.body);
    REQUIRE(r.json.contains("mintId"));
    REQUIRE(r.json.contains("transactionHashes"));
    std::vector<std::string> hashes;
    for (const auto& h : r.json["transactionHashes"]) {
        CHECK(is_tx_hash(h));
        hashes.push_back(h.get<std::string>());
    }
    return {r.json["mintId"].get<std::string>(), hashes};
}

// A devnet server with `devnet_keys` in its chain entry, its admin logged in.
struct Devnet {
    explicit Devnet(const std::string& devnet_keys, std::uint64_t seed, bool fault_proxy = false)
        : chain(options(devnet_keys, fault_proxy)), http(chain.http()), admin(chain.server().login_admin()), random(seed) {}

    static ChainServer::Options options(const std::string& devnet_keys, bool fault_proxy) {
        ChainServer::Options o;
        o.devnet_keys = devnet_keys;
        if (fault_proxy) o.fault_proxy = FaultProxy::Options{};
        return o;
    }

    ChainServer chain;
    Http http;
    Session admin;
    Random random;
};

}  // namespace

TEST_CASE("abci mint: a pre-flight that times out frees its Idempotency-Key, the retry mints once",
          "[serve][abci][outcome]") {
    Devnet d("rpcTimeoutMs = 1500\n", 12, true);
    auto& [chain, http, admin, random] = d;
    const auto to = random.address().checksummed();
    const auto body = entity_mint_body(to, "report", "PREFLIGHT-1", 3);

    chain.proxy().set_rate(Fault::hang, 1.0);
    const auto timed_out = http.post(kRoute, body, admin.token, key_header("preflight-1"));
    INFO(timed_out.body);
    require_error(timed_out, 504, "timeout");
    // Nothing was signed, so nothing names a transaction.
    CHECK_FALSE(timed_out.json.contains("transactionHashes"));

    chain.proxy().set_rate(Fault::hang, 0.0);
    const auto minted = http.post(kRoute, body, admin.token, key_header("preflight-1"));
    (void)require_entity_minted(minted, body);
    CHECK(http.post(kRoute, body, admin.token, key_header("preflight-1")).json == minted.json);
    CHECK(chain.chain_balance(to, kReport) == "3");
}

TEST_CASE("abci mint: after a receipt timeout the outcome is learned live, by key and by mint id",
          "[serve][abci][outcome]") {
    Devnet d("receiptTimeoutMs = 1000\n", 13);
    auto& [chain, http, admin, random] = d;
    const auto keyed_to = random.address().checksummed();
    const auto keyless_to = random.address().checksummed();
    const auto keyed = entity_mint_body(keyed_to, "report", "LATE-1", 2);
    const auto keyless = entity_mint_body(keyless_to, "report", "LATE-2", 5);

    // Nothing is mined until the test says so.
    (void)chain.node_rpc("evm_setAutomine", {false});
    const auto first = http.post(kRoute, keyed, admin.token, key_header("late-1"));
    REQUIRE(first.status == 504);
    const auto [mint_id, hashes] = unsettled_mint(first);
    REQUIRE(hashes.size() == 1);
    const auto no_key = http.post(kRoute, keyless, admin.token);
    REQUIRE(no_key.status == 504);
    const auto keyless_id = unsettled_mint(no_key).first;
    CHECK(keyless_id != mint_id);

    // While unmined: 409 with the same mint and its hashes; the status says pending.
    const auto repeat = http.post(kRoute, keyed, admin.token, key_header("late-1"));
    CHECK(repeat.status == 409);
    CHECK(unsettled_mint(repeat) == std::pair{mint_id, hashes});
    const auto pending = http.get("/abci/contracts/mints/" + mint_id, admin.token);
    REQUIRE(pending.status == 200);
    CHECK(pending.json["data"]["state"] == "pending");
    CHECK(pending.json["data"]["idempotencyKey"] == "late-1");
    CHECK(pending.json["data"]["transactions"][0]["hash"] == hashes[0]);
    CHECK(pending.json["data"]["result"].is_null());

    // Mined: recorded without a restart; the key replays the answer the status gives.
    (void)chain.node_rpc("evm_mine");
    REQUIRE(eventually([&] {
        return http.get("/abci/contracts/mints/" + mint_id, admin.token).json["data"]["state"] == "mined" &&
               http.get("/abci/contracts/mints/" + keyless_id, admin.token).json["data"]["state"] == "mined";
    }));
    const auto status = http.get("/abci/contracts/mints/" + mint_id, admin.token);
    const auto answer = http.post(kRoute, keyed, admin.token, key_header("late-1"));
    (void)require_entity_minted(answer, keyed);
    CHECK(answer.json["data"]["transactionHash"] == hashes[0]);
    CHECK(status.json["data"]["result"] == answer.json);
    CHECK(http.get("/abci/contracts/mints?idempotencyKey=late-1", admin.token).json["data"]["mintId"] == mint_id);
    const auto keyless_result = http.get("/abci/contracts/mints/" + keyless_id, admin.token).json["data"]["result"];
    CHECK(keyless_result["success"] == true);
    CHECK(keyless_result["data"]["amount"] == 5);
    CHECK(keyless_result["metadata"]["entityId"] == "LATE-2");

    // The bookkeeping of both mints happened when they landed.
    const auto balances = http.get("/abci/tokens/user-balance?blockchainId=devnet&userAddress=" + keyed_to, admin.token);
    REQUIRE(balances.status == 200);
    CHECK(balances.json["data"]["balances"][0]["balance"] == "2");
    const auto entity = http.get("/abci/tokens/metadata/1000?blockchainId=devnet&entityId=LATE-2", admin.token);
    CHECK(entity.status == 200);
    CHECK(chain.chain_balance(keyed_to, kReport) == "2");
    CHECK(chain.chain_balance(keyless_to, kReport) == "5");

    // Another caller does not see the mint; an unknown id is 404.
    CHECK(http.get("/abci/contracts/mints/not-a-mint", admin.token).status == 404);
}

TEST_CASE("abci mint: fee bumps stop at the cap, and health shows the stuck transaction with its nonce and age",
          "[serve][abci][outcome]") {
    // Blocks cost 1 gwei of base fee and nothing is mined: the mint is bumped
    // every second until its fee reaches the 3 gwei cap, then left as it is.
    Devnet d("replaceAfterMs = 1000\nmaxFeePerGasGwei = 3\nreceiptTimeoutMs = 1000\n", 19);
    auto& [chain, http, admin, random] = d;
    const auto to = random.address().checksummed();
    const auto body = entity_mint_body(to, "report", "STUCK-1", 1);
    (void)chain.node_rpc("evm_setAutomine", {false});
    const auto timed_out = http.post(kRoute, body, admin.token, key_header("stuck-1"));
    REQUIRE(timed_out.status == 504);
    const auto mint_id = unsettled_mint(timed_out).first;

    nlohmann::json signer;
    REQUIRE(eventually([&] {
        signer = http.get("/abci/health", admin.token).json["checks"]["signer:devnet"];
        return signer.contains("stuck");
    }));
    CHECK(signer["healthy"] == false);
    REQUIRE(signer["stuck"].size() == 1);
    CHECK(signer["stuck"][0]["nonce"] == 1);
    CHECK(signer["stuck"][0]["ageSeconds"].is_number_integer());
    CHECK(signer["message"].get<std::string>().find("fee cap") != std::string::npos);
    // It was bumped (each version journaled with the mint), then no more.
    const auto versions = http.get("/abci/contracts/mints/" + mint_id, admin.token).json["data"]["transactions"].size();
    CHECK(versions >= 2);
    std::this_thread::sleep_for(2500ms);  // two more rounds: no further version at the cap
    CHECK(http.get("/abci/contracts/mints/" + mint_id, admin.token).json["data"]["transactions"].size() == versions);

    // Mined at last: one of the versions lands, the mint is recorded once.
    (void)chain.node_rpc("evm_mine");
    REQUIRE(eventually([&] {
        return http.get("/abci/contracts/mints/" + mint_id, admin.token).json["data"]["state"] == "mined";
    }));
    CHECK(chain.chain_balance(to, kReport) == "1");
    const auto mined = http.post(kRoute, body, admin.token, key_header("stuck-1"));
    (void)require_entity_minted(mined, body);
    const auto tx = nlohmann::json::parse(cast({"tx", mined.json["data"]["transactionHash"].get<std::string>(), "--json",
                                                "--rpc-url", chain.anvil().url()}));
    CHECK(std::stoull(quantity_to_decimal(tx["maxFeePerGas"])) <= 3'000'000'000ULL);
    CHECK_FALSE(http.get("/abci/health", admin.token).json["checks"]["signer:devnet"].contains("stuck"));
}

TEST_CASE("abci mint: an unfunded signer is refused in one line, health names it, funds bring it back",
          "[serve][abci][outcome]") {
    Devnet d("", 15);
    auto& [chain, http, admin, random] = d;
    (void)chain.node_rpc("anvil_setBalance", {ChainServer::signer(), "0x0"});

    const auto to = random.address().checksummed();
    const auto body = entity_mint_body(to, "report", "UNFUNDED-1");
    const auto refused = http.post(kRoute, body, admin.token, key_header("unfunded-1"));
    INFO(refused.body);
    CHECK(refused.status == 503);
    const std::string message = refused.json.value("message", "");
    CHECK(message.find(ChainServer::signer()) != std::string::npos);
    CHECK(message.find("has 0 wei but this transaction needs up to") != std::string::npos);
    CHECK(message.find('\n') == std::string::npos);

    const auto health = http.get("/abci/health", admin.token);
    CHECK(health.status == 503);
    const auto& signer = health.json["checks"]["signer:devnet"];
    CHECK(signer["healthy"] == false);
    CHECK(signer["balance"] == "0");
    CHECK(signer["message"].get<std::string>().find("fund it") != std::string::npos);

    (void)chain.node_rpc("anvil_setBalance", {ChainServer::signer(), "0x3635C9ADC5DEA00000"});  // 1000 ETH
    const auto minted = http.post(kRoute, body, admin.token, key_header("unfunded-1"));
    (void)require_entity_minted(minted, body);
    CHECK(chain.chain_balance(to, kReport) == "1");
    CHECK(http.get("/abci/health", admin.token).json["checks"]["signer:devnet"]["healthy"] == true);
}

}  // namespace abci::test::abci_outcome_tests

namespace abci::test::abci_outcome_tests {

// Two role mints of one wallet while the first is unmined: the second passes
// the pre-flight and the estimate (nothing is held yet) and reverts once mined
// after the first. The contract is the final guard: its caller gets the 409
// of a held role, as if the pre-flight had seen it, and its key replays that.
TEST_CASE("abci mint: a role mint repeating one still unmined reverts on chain and answers the 409 of a held role",
          "[serve][abci]") {
    Devnet devnet("", 66);
    auto& [chain, http, admin, random] = devnet;
    const auto wallet = random.address().checksummed();
    chain.server().link_wallet(Server::admin_email, wallet);
    const auto body = role_mint_body(wallet, "certifier");
    (void)chain.node_rpc("evm_setAutomine", {false});
    const auto nonce = chain.nonce(ChainServer::signer());
    const auto mint = [&](const std::string& key) {
        return http.post("/abci/contracts/mint-role-token", body, admin.token, key_header(key));
    };
    auto first = std::async(std::launch::async, mint, "role-1");
    REQUIRE(eventually([&] { return chain.nonce(ChainServer::signer(), true) == nonce + 1; }));
    auto second = std::async(std::launch::async, mint, "role-2");
    REQUIRE(eventually([&] { return chain.nonce(ChainServer::signer(), true) == nonce + 2; }));
    (void)chain.node_rpc("evm_mine");
    (void)chain.node_rpc("evm_setAutomine", {true});

    const auto hash = require_role_answer(first.get(), 10300, chain.contract());
    CHECK(chain.receipt(hash)["status"] == "0x1");
    const auto refused = second.get();
    require_error(refused, 409, "conflict");
    require_error(mint("role-2"), 409, "conflict");
    CHECK(chain.chain_balance(wallet, 10300) == "1");
    CHECK(chain.nonce(ChainServer::signer()) == nonce + 2);  // the reverted mint was mined
}

}  // namespace abci::test::abci_outcome_tests
