// The anvil fixture itself: its published dev keys are the node's accounts,
// interval mining works, and a restart on the same port keeps the chain.

#include <catch2/catch.hpp>
#include <cctype>

#include "core/rpc/client.hpp"
#include "core/rpc/quantity.hpp"
#include "support/anvil.hpp"
#include "support/eventually.hpp"
#include "support/tools.hpp"

using namespace abci;
using nlohmann::json;
using namespace std::chrono_literals;

TEST_CASE("anvil fixture: dev accounts are the node's, keys match addresses", "[anvil]") {
    test::Anvil anvil({.accounts = 3});
    rpc::Client client({anvil.url()});
    auto accounts = anvil.accounts();
    REQUIRE(accounts.size() == 3);
    auto listed = client.call("eth_accounts");
    REQUIRE(listed.size() == 3);
    auto lower = [](std::string s) {
        for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return s;
    };
    for (std::size_t i = 0; i < 3; ++i) CHECK(lower(listed[i].get<std::string>()) == lower(accounts[i].address));
    // Every published key derives its address (cast as the oracle), all ten.
    for (const auto& a : test::Anvil::dev_accounts())
        CHECK(test::cast({"wallet", "address", "--private-key", a.private_key}) == a.address);
}

TEST_CASE("anvil fixture: interval mining", "[anvil]") {
    test::Anvil anvil({.block_time = 200ms});
    rpc::Client client({anvil.url()});
    // Blocks come with no transaction to mine: two of them, however long a loaded machine takes.
    CHECK(test::eventually([&] { return rpc::quantity_to_u64(client.call("eth_blockNumber"), "block number") >= 2; }));
}

TEST_CASE("anvil fixture: restart on the same port keeps the chain state", "[anvil]") {
    test::Anvil anvil({.persist_state = true});
    rpc::Client client({anvil.url()});
    const auto& from = test::Anvil::dev_accounts()[0];
    const auto& to = test::Anvil::dev_accounts()[1];
    auto hash = client.call("eth_sendTransaction", {{{"from", from.address}, {"to", to.address}, {"value", "0x2a"}}},
                            {.idempotent = false});
    // Automine answers before its block is committed: wait for the receipt, so
    // that the state dumped on stop is the state after the block.
    REQUIRE(test::eventually([&] { return !client.call("eth_getTransactionReceipt", {hash}).is_null(); }));
    const auto balance = client.call("eth_getBalance", {to.address, "latest"});
    CHECK(balance != "0x21e19e0c9bab2400000");
    const auto port = anvil.port();

    anvil.stop();
    CHECK_FALSE(anvil.running());
    CHECK_THROWS_AS(client.call("eth_chainId", {}, {.timeout = 500ms}), Error);

    anvil.start();
    CHECK(anvil.port() == port);
    CHECK(rpc::quantity_to_u64(client.call("eth_blockNumber"), "block number") == 1);
    CHECK(client.call("eth_getBalance", {to.address, "latest"}) == balance);
    CHECK(client.call("eth_getTransactionReceipt", {hash})["status"] == "0x1");
}
