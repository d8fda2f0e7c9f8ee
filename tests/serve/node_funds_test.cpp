// Issue 14, item 13: a node that refuses the gas estimate for want of funds
// (some answer eth_estimateGas with -32003 "Insufficient funds for gas * price
// + value"; anvil does not, so a fault proxy in front of it does) gets the
// answer of an unfunded signer, naming its address, its balance and what the
// transaction needs, not the node's raw error; nothing is minted and the key
// is free for the retry once the node takes the transaction.

#include "serve/expect.hpp"
#include "support/chain_server.hpp"
#include "support/tools.hpp"

namespace abci::test::node_funds_tests {

TEST_CASE("abci mint: a gas estimate refused for funds names the signer, its balance and the fees, not the node's error",
          "[serve][abci][funds]") {
    ChainServer::Options options;
    options.fault_proxy = FaultProxy::Options{};
    ChainServer chain(options);
    const auto http = chain.http();
    const auto admin = chain.server().login_admin();
    const auto to = Anvil::dev_accounts()[5].address;
    const auto body = entity_mint_body(to, "report", "FUNDS-1");
    const Headers key{{"Idempotency-Key", "funds-1"}};

    chain.proxy().answer_rpc_error("eth_estimateGas", -32003, "Insufficient funds for gas * price + value");
    const auto refused = http.post("/abci/contracts/mint-entity-token", body, admin.token, key);
    INFO(refused.body);
    CHECK(chain.proxy().rpc_errors_answered() >= 1);
    CHECK(refused.status == 503);
    CHECK(refused.json["error"].is_string());
    const std::string message = refused.json.value("message", "");
    const auto balance = cast({"balance", ChainServer::signer(), "--rpc-url", chain.anvil().url()});
    CHECK(message.find("the signer " + ChainServer::signer() + " has " + balance + " wei but this transaction needs ") !=
          std::string::npos);
    CHECK(message.find(" wei per gas") != std::string::npos);
    CHECK(message.find("fund the signer and try again") != std::string::npos);
    CHECK(message.find("JSON-RPC") == std::string::npos);
    CHECK(message.find('\n') == std::string::npos);
    CHECK(chain.chain_balance(to, 1000) == "0");

    // The node takes it now: the same key mints, once.
    chain.proxy().forward_method("eth_estimateGas");
    (void)require_entity_minted(http.post("/abci/contracts/mint-entity-token", body, admin.token, key), body);
    CHECK(chain.chain_balance(to, 1000) == "1");
}

}  // namespace abci::test::node_funds_tests
