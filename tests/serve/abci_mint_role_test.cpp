// POST /abci/contracts/mint-role-token (spec 4.1) against a real chain: the
// answer field by field and against `cast receipt`, the balance on chain, and
// every pre-flight refusal (DESIGN.md §4) — none of which may reach the chain.

#include <SQLiteCpp/SQLiteCpp.h>

#include <algorithm>
#include <cctype>

#include "core/eth/address.hpp"
#include "serve/expect.hpp"
#include "support/chain_server.hpp"

namespace abci::test::abci_role_tests {
namespace {

constexpr const char* kRoute = "/abci/contracts/mint-role-token";

// The 200 answer of spec 4.1 for `token_id`, field by field and against the
// transaction's receipt; returns the transaction hash.
std::string require_role_minted(const ChainServer& chain, const HttpResponse& r, std::uint64_t token_id) {
    const auto hash = require_role_answer(r, token_id, chain.contract());
    const auto& data = r.json["data"];
    const auto receipt = chain.receipt(hash);
    INFO(receipt.dump());
    CHECK(receipt["status"] == "0x1");
    CHECK(quantity_to_decimal(receipt["blockNumber"]) == std::to_string(data["blockNumber"].get<std::uint64_t>()));
    CHECK(quantity_to_decimal(receipt["gasUsed"]) == data["gasUsed"]);
    CHECK(quantity_to_decimal(receipt["effectiveGasPrice"]) == data["gasPrice"]);
    CHECK(eth::Address::parse(receipt["to"].get<std::string>()).checksummed() == chain.contract());
    CHECK(eth::Address::parse(receipt["from"].get<std::string>()).checksummed() == ChainServer::signer());
    return hash;
}

// Every entry of `needles` is named by some entry of the 400's details.
void require_details_name(const HttpResponse& r, const std::vector<std::string>& needles) {
    require_invalid_request(r);
    if (r.status != 400) return;
    for (const auto& needle : needles) {
        INFO("no detail names " << needle << ": " << r.body);
        bool named = false;
        for (const auto& detail : r.json["details"])
            named = named || (detail.is_string() && detail.get<std::string>().find(needle) != std::string::npos);
        CHECK(named);
    }
}

// Deletes the database's balance row of `address` (lower case) for `token_id`,
// as if the server had never recorded it; how many rows went.
int forget_balance(const ChainServer& chain, const std::string& address, std::uint64_t token_id) {
    SQLite::Database db(chain.database(), SQLite::OPEN_READWRITE);
    db.setBusyTimeout(5000);
    SQLite::Statement remove(db, "DELETE FROM token_balances WHERE address = ? AND token_id = ?");
    remove.bind(1, address);
    remove.bind(2, static_cast<std::int64_t>(token_id));
    return remove.exec();
}

}  // namespace

TEST_CASE("abci mint-role-token: spec 4.1 answer, matching the chain, a second mint is 409, also when only the contract knows",
          "[serve][abci]") {
    ChainServer chain;
    auto& server = chain.server();
    const auto http = chain.http();
    const auto admin = server.login_admin();
    const auto holder = Anvil::dev_accounts()[3].address;
    server.add_user("producer@example.org", "farmer", "producer pass 1234");
    server.link_wallet("producer@example.org", holder);

    auto body = role_mint_body(holder, "producer");
    body["metadata"] = {{"approvalId", "req-17"},
                        {"approvedBy", "admin@example.org"},
                        {"approvedAt", "2026-01-02T03:04:05Z"},
                        {"notes", "approved after the site visit"}};
    const auto minted = http.post(kRoute, body, admin.token);
    (void)require_role_minted(chain, minted, 10000);
    CHECK(chain.chain_balance(holder, 10000) == "1");
    // The body is the spec's; the header names the mint's status route, which tells the same transaction.
    const auto status_route = minted.header("Content-Location");
    REQUIRE(status_route.rfind("/abci/contracts/mints/", 0) == 0);
    const auto status = http.get(status_route, admin.token);
    REQUIRE(status.status == 200);
    CHECK(status.json["data"]["state"] == "mined");
    CHECK(status.json["data"]["result"]["data"]["transactionHash"] == minted.json["data"]["transactionHash"]);

    // A second role of another type for the same wallet is fine, and lower-case addresses are too.
    std::string lower = holder;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    (void)require_role_minted(chain, http.post(kRoute, role_mint_body(lower, "certifier"), admin.token), 10300);
    CHECK(chain.chain_balance(holder, 10300) == "1");

    const auto nonce = chain.nonce(ChainServer::signer());
    // The database knows the role is held.
    require_error(http.post(kRoute, role_mint_body(holder, "producer"), admin.token), 409, "conflict");

    // Forget it in the database: the contract still refuses, before any transaction is sent.
    CHECK(forget_balance(chain, lower, 10000) == 1);
    require_error(http.post(kRoute, role_mint_body(holder, "producer"), admin.token), 409, "conflict");
    CHECK(chain.chain_balance(holder, 10000) == "1");
    CHECK(chain.nonce(ChainServer::signer()) == nonce);
}

TEST_CASE("abci mint-role-token: each failed pre-flight check has its status and sends nothing", "[serve][abci]") {
    ChainServer::Options options;
    options.extra_config =
        chain_entry("paused", "Paused devnet", "{anvil}", "0x5FbDB2315678afecb367f032d93F642f64180aa3", "disabled") +
        chain_entry("empty", "Devnet without the token", "{anvil}", "0x00000000000000000000000000000000DeaDBeef",
                    "testnet");
    ChainServer chain(options);
    auto& server = chain.server();
    const auto http = chain.http();
    const auto admin = server.login_admin();
    const auto linked = Anvil::dev_accounts()[3].address;
    const auto unlinked = Anvil::dev_accounts()[4].address;
    const std::string farmer_password = "farmer pass 12345";
    server.add_users({{"linked@example.org", "farmer", "linked pass 12345"},
                      {"farmer@example.org", "farmer", farmer_password}});
    server.link_wallet("linked@example.org", linked);
    const auto nonce = chain.nonce(ChainServer::signer());

    // 400: every problem of the body at once.
    require_details_name(http.post(kRoute, nlohmann::json::object(), admin.token),
                         {"userAddress", "roleType", "blockchainId"});
    require_details_name(http.post(kRoute,
                                   {{"userAddress", "0x1234"},
                                    {"roleType", "king"},
                                    {"metadata", {{"approvedAt", "yesterday"}, {"colour", "red"}, {"notes", 7}}}},
                                   admin.token),
                         {"userAddress", "roleType", "blockchainId", "approvedAt", "colour", "notes"});
    require_details_name(http.post(kRoute, {{"userAddress", 42}, {"roleType", true}, {"blockchainId", nullptr}},
                                   admin.token),
                         {"userAddress", "roleType", "blockchainId"});
    // A mixed-case address with a wrong EIP-55 checksum, and a metadata that is not an object.
    std::string bad_checksum = linked;
    const auto letter = bad_checksum.find_first_of("abcdefABCDEF", 2);
    bad_checksum[letter] = static_cast<char>(bad_checksum[letter] ^ 0x20);  // flips its case
    auto body = role_mint_body(bad_checksum, "producer");
    body["metadata"] = "approved";
    require_details_name(http.post(kRoute, body, admin.token), {"userAddress", "metadata"});

    require_error(http.post(kRoute, role_mint_body(linked, "producer", "mainnet"), admin.token), 404, "not_found");
    require_error(http.post(kRoute, role_mint_body(linked, "producer", "paused"), admin.token), 409, "conflict");
    require_error(http.post(kRoute, role_mint_body(unlinked, "verifier"), admin.token), 422, "unprocessable");
    require_error(http.post(kRoute, role_mint_body(linked, "producer", "empty"), admin.token), 503, "unavailable");

    // 403 for a user without the admin role, and for an API key whatever its scopes (spec 5.2 rule 4).
    const auto farmer = server.login("farmer@example.org", farmer_password);
    require_forbidden(http.post(kRoute, role_mint_body(linked, "producer"), farmer.token));
    const auto key = server.create_api_key("all-scopes", {"abci:mint-entity", "abci:read", "abci:health"});
    require_forbidden(http.post(kRoute, role_mint_body(linked, "producer"), key));

    CHECK(chain.chain_balance(linked, 10000) == "0");
    CHECK(chain.nonce(ChainServer::signer()) == nonce);
}


// The contract is the final guard also past the estimate (a node that
// estimates without executing, or state that changed in between): a role
// the database does not know is held is 409 when the mint reverts on chain
// and when the node refuses the transaction; a mint of a role not held that
// reverts or that the node refuses is the chain's failure (500), and the
// refused one's key is free for the retry.
TEST_CASE("abci mint-role-token: a role only the contract knows is 409 after the estimate too, a refused mint is 500",
          "[serve][abci][faults]") {
    ChainServer::Options options;
    options.fault_proxy = FaultProxy::Options{};
    ChainServer chain(options);
    auto& server = chain.server();
    const auto http = chain.http();
    const auto admin = server.login_admin();
    const auto holder = Anvil::dev_accounts()[3].address;
    const auto newcomer = Anvil::dev_accounts()[4].address;
    server.add_users({{"holder@example.org", "farmer", "holder pass 12345"},
                      {"newcomer@example.org", "farmer", "newcomer pass 12345"}});
    server.link_wallet("holder@example.org", holder);
    server.link_wallet("newcomer@example.org", newcomer);
    auto& proxy = chain.proxy();

    // Reverted on chain (out of gas: the node's estimate was too low) for a
    // role not held: the chain's failure, nothing held. First, so that no gas
    // learned from an earlier mint of the same shape replaces the estimate.
    proxy.answer_rpc_result("eth_estimateGas", "0x7530");
    const auto reverted = http.post(kRoute, role_mint_body(newcomer, "valuator"), admin.token);
    require_error(reverted, 500, "internal_error");
    CHECK_THAT(reverted.json.value("message", ""), Catch::Contains("reverted in block"));
    CHECK(chain.chain_balance(newcomer, 10200) == "0");
    proxy.forward_method("eth_estimateGas");

    (void)require_role_minted(chain, http.post(kRoute, role_mint_body(holder, "producer"), admin.token), 10000);
    std::string lower = holder;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    proxy.answer_rpc_result("eth_estimateGas", "0x40000");

    // Sent and reverted on chain.
    const auto nonce = chain.nonce(ChainServer::signer());
    CHECK(forget_balance(chain, lower, 10000) == 1);
    require_error(http.post(kRoute, role_mint_body(holder, "producer"), admin.token), 409, "conflict");
    CHECK(chain.nonce(ChainServer::signer()) == nonce + 1);
    CHECK(chain.chain_balance(holder, 10000) == "1");

    // Refused by the node.
    proxy.answer_rpc_error("eth_sendRawTransaction", -32000, "invalid transaction");
    (void)forget_balance(chain, lower, 10000);
    require_error(http.post(kRoute, role_mint_body(holder, "producer"), admin.token), 409, "conflict");
    const Headers key{{"Idempotency-Key", "refused-role"}};
    const auto body = role_mint_body(newcomer, "verifier");
    require_error(http.post(kRoute, body, admin.token, key), 500, "internal_error");

    proxy.forward_method("eth_sendRawTransaction");


    proxy.forward_method("eth_estimateGas");
    (void)require_role_minted(chain, http.post(kRoute, body, admin.token, key), 10100);
    CHECK(chain.chain_balance(newcomer, 10100) == "1");
    CHECK(chain.chain_balance(holder, 10000) == "1");
}

}  // namespace abci::test::abci_role_tests
