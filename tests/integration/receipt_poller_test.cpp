// The receipt poller against a real anvil with 1-second blocks, through a
// loopback proxy that records every JSON-RPC method it passes on: a burst of
// transactions is completed from the new blocks' eth_getBlockReceipts, with
// each receipt the one the node gives for its hash; and a node that does not
// know eth_getBlockReceipts (the proxy refuses it) still completes them all,
// by looking each hash up.

#include <httplib.h>

#include <catch2/catch.hpp>

#include "core/chain/chain_client.hpp"
#include "core/chain/tx_sender.hpp"
#include "core/eth/bytes.hpp"
#include "support/anvil.hpp"
#include "support/method_counting_proxy.hpp"

using nlohmann::json;
using namespace std::chrono_literals;

// Everything in a namespace of its own: the suite is built as one translation unit.
namespace receipt_poller_test {

using namespace abci;
using test::Anvil;

// Sends `n` 0-value transfers to dev account 5 at once through the proxy and
// checks each answer against the node's own receipt for its hash.
void send_burst_and_check(const Anvil& anvil, const test::MethodCountingProxy& proxy, int n) {
    chain::ChainSettings settings;
    settings.chain_id = anvil.chain_id();
    settings.rpc_urls = {proxy.url()};
    settings.poll_interval = 50ms;
    chain::ChainClient client(settings);
    chain::TxSender sender(client, std::make_shared<eth::PrivateKey>(eth::PrivateKey::from_hex(Anvil::dev_accounts()[1].private_key)));
    std::vector<std::future<chain::Receipt>> sent;
    chain::TxRequest transfer;
    transfer.to = eth::Address::parse(Anvil::dev_accounts()[5].address);
    transfer.gas_limit = 21'000;
    for (int i = 0; i < n; ++i) sent.push_back(sender.submit(transfer));
    httplib::Client node("127.0.0.1", anvil.port());
    for (auto& s : sent) {
        const auto receipt = s.get();
        const auto hash = eth::to_hex(receipt.transaction_hash);
        INFO(hash);
        const auto r = node.Post("/", json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "eth_getTransactionReceipt"}, {"params", {hash}}}.dump(),
                                 "application/json");
        REQUIRE(r);
        const auto expected = json::parse(r->body).at("result");
        REQUIRE(expected.is_object());
        CHECK(receipt.success);
        CHECK(expected.at("status") == "0x1");
        CHECK(receipt.block_number == std::stoull(expected.at("blockNumber").get<std::string>(), nullptr, 16));
        CHECK(receipt.gas_used == std::stoull(expected.at("gasUsed").get<std::string>(), nullptr, 16));
    }
}

TEST_CASE("receipt poller: a burst is completed from the new blocks' receipts", "[chain][anvil][poller]") {
    Anvil anvil({.block_time = 1000ms});
    test::MethodCountingProxy proxy(anvil.port(), {});
    send_burst_and_check(anvil, proxy, 40);
    CHECK(proxy.count("eth_getBlockReceipts") >= 1);
    // Not sent yet when watched, so never looked up one by one while the head
    // stood still: at most the first poll's look at every watch (before the
    // poller knew a head to scan from) and nothing per transaction after.
    CHECK(proxy.count("eth_getTransactionReceipt") <= 40);
}

TEST_CASE("receipt poller: a node without eth_getBlockReceipts gets every hash looked up", "[chain][anvil][poller]") {
    Anvil anvil({.block_time = 1000ms});
    test::MethodCountingProxy proxy(anvil.port(), {.refuse_block_receipts = true});
    send_burst_and_check(anvil, proxy, 40);
    CHECK(proxy.count("eth_getBlockReceipts") <= 2);  // asked for one head change's blocks, then never again
    CHECK(proxy.count("eth_getTransactionReceipt") >= 40);
}

}  // namespace receipt_poller_test
