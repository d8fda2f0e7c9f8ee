// ChainClient::estimate_gas on a real anvil, through a proxy that counts the
// node's calls by method: a call shaped like one estimated before (contract,
// function, calldata size) is checked by one eth_call with the learned limit
// instead of a new estimate; when that limit is too small for it (a fresh
// balance slot costs more than an existing one) or the call reverts, the
// estimate decides, as without the shortcut.

#include <catch2/catch.hpp>

#include "core/chain/chain_client.hpp"
#include "core/chain/token_contract.hpp"
#include "core/chain/tx_sender.hpp"
#include "core/error.hpp"
#include "support/anvil.hpp"
#include "support/method_counting_proxy.hpp"

using namespace std::chrono_literals;

// Everything in a namespace of its own: the suite is built as one translation unit.
namespace gas_estimate_test {

using namespace abci;
using test::Anvil;

constexpr std::uint64_t kProducer = 10000, kReport = 1000;

struct Chain {
    Anvil anvil;
    test::MethodCountingProxy proxy{anvil.port(), {}};
    chain::ChainClient client{[this] {
        chain::ChainSettings s;
        s.chain_id = anvil.chain_id();
        s.rpc_urls = {proxy.url()};
        s.poll_interval = 50ms;
        return s;
    }()};
    chain::TxSender sender{client, std::make_shared<eth::PrivateKey>(eth::PrivateKey::from_hex(Anvil::dev_accounts()[0].private_key))};
    chain::TokenContract token = chain::TokenContract::deploy(sender, sender.address(), "ipfs://").token;

    // A mint with 59 bytes of data (a CID's length), or `data_size` bytes.
    chain::Receipt mint(std::size_t account, std::uint64_t id, std::uint64_t amount, std::size_t data_size = 59) {
        return token.mint(sender, eth::Address::parse(Anvil::dev_accounts()[account].address), id, amount,
                          eth::Bytes(data_size, 'a'))
            .get();
    }
    // The gas limit the node holds for the transaction.
    std::uint64_t gas_limit(const chain::Receipt& r) {
        const auto tx = client.rpc().call("eth_getTransactionByHash", {eth::to_hex(r.transaction_hash)});
        return std::stoull(tx.at("gas").get<std::string>(), nullptr, 16);
    }
};

TEST_CASE("gas estimate: a call shaped like an estimated one is checked by one eth_call", "[chain][anvil][gas]") {
    Chain c;
    const auto first = c.mint(3, kProducer, 1);
    const int estimates = c.proxy.count("eth_estimateGas");
    const int calls = c.proxy.count("eth_call");
    const auto second = c.mint(4, kProducer, 1);  // the same shape: another fresh wallet
    REQUIRE(first.success);
    REQUIRE(second.success);
    CHECK(c.proxy.count("eth_estimateGas") == estimates);
    CHECK(c.proxy.count("eth_call") == calls + 1);
    CHECK(c.gas_limit(second) == c.gas_limit(first));
}

TEST_CASE("gas estimate: a learned limit too small for the call, or a revert, goes to the estimate",
          "[chain][anvil][gas]") {
    Chain c;
    // Learned on a wallet that holds the token already (from a mint of
    // another shape: no data): an existing balance slot is cheap.
    REQUIRE(c.mint(3, kReport, 1, 0).success);
    const auto cheap_limit = c.gas_limit(c.mint(3, kReport, 1));
    // A fresh wallet needs a new slot: the learned limit fails the eth_call, the estimate gives more.
    const int estimates = c.proxy.count("eth_estimateGas");
    const auto fresh = c.mint(5, kReport, 1);
    CHECK(fresh.success);
    CHECK(c.proxy.count("eth_estimateGas") == estimates + 1);
    CHECK(c.gas_limit(fresh) > cheap_limit);

    // A second role token for a wallet reverts in the eth_call and again in the estimate, which is what is thrown.
    REQUIRE(c.mint(6, kProducer, 1).success);
    try {
        (void)c.mint(6, kProducer, 1);
        FAIL("a second role mint must be refused");
    } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::conflict);
        CHECK_THAT(e.what(), Catch::Contains("RoleTokenAlreadyHeld"));
    }
}

}  // namespace gas_estimate_test
