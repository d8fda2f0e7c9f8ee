#include <catch2/catch.hpp>

#include <algorithm>
#include <mutex>
#include <thread>

#include "core/chain/nonce_manager.hpp"
#include "core/chain/send_errors.hpp"
#include "core/error.hpp"

using namespace abci;

TEST_CASE("nonces are handed out once each and contiguously under many threads", "[chain][nonce]") {
    chain::NonceManager nonces;
    CHECK_THROWS_AS(nonces.take(), Error);
    nonces.sync(7);
    std::mutex m;
    std::vector<std::uint64_t> taken;
    std::vector<std::thread> threads;
    for (int t = 0; t < 16; ++t)
        threads.emplace_back([&] {
            for (int i = 0; i < 500; ++i) {
                const auto n = nonces.take();
                std::lock_guard lock(m);
                taken.push_back(n);
            }
        });
    for (auto& t : threads) t.join();
    std::sort(taken.begin(), taken.end());
    REQUIRE(taken.size() == 8000);
    for (std::size_t i = 0; i < taken.size(); ++i) CHECK(taken[i] == 7 + i);
}

TEST_CASE("a resync moves the next nonce forward, never back", "[chain][nonce]") {
    chain::NonceManager nonces;
    nonces.sync(3);
    CHECK(nonces.take() == 3);
    nonces.sync(10);  // someone else used the key
    CHECK(nonces.take() == 10);
    nonces.sync(5);  // a node that lost our pending transactions: ours are still tracked
    CHECK(nonces.peek() == 11);
}

TEST_CASE("node refusals of a broadcast are told apart", "[chain][nonce]") {
    auto refusal = [](const char* message) {
        return chain::classify_send_refusal(rpc::RpcError("eth_sendRawTransaction", -32000, message, nullptr));
    };
    CHECK(refusal("already known") == chain::SendRefusal::already_known);
    CHECK(refusal("nonce too low: next nonce 5, tx nonce 3") == chain::SendRefusal::nonce_too_low);
    CHECK(refusal("Nonce too high") == chain::SendRefusal::nonce_too_high);
    CHECK(refusal("replacement transaction underpriced") == chain::SendRefusal::nonce_taken);
    CHECK(refusal("insufficient funds for gas * price + value") == chain::SendRefusal::insufficient_funds);
    CHECK(refusal("Insufficient funds for gas * price + value") == chain::SendRefusal::insufficient_funds);  // anvil
    CHECK(refusal("max fee per gas less than block base fee: address 0x70997970C51812dc3A010C7d01b50e0d17dc79C8, "
                  "maxFeePerGas: 2000000000, baseFee: 2250000000") == chain::SendRefusal::fee_too_low);  // geth
    CHECK(refusal("max fee per gas less than block base fee") == chain::SendRefusal::fee_too_low);      // anvil
    CHECK(refusal("transaction underpriced") == chain::SendRefusal::fee_too_low);
    CHECK(refusal("fee cap less than block base fee: address 0x1, gasFeeCap: 1 baseFee: 7") ==
          chain::SendRefusal::fee_too_low);  // erigon
    CHECK(refusal("exceeds block gas limit") == chain::SendRefusal::other);
}

TEST_CASE("a nonce given back is handed out again only when it was the last, and a reset moves back", "[chain][nonce]") {
    chain::NonceManager nonces;
    CHECK_FALSE(nonces.give_back(0));  // not synced: nothing was handed out
    nonces.sync(7);
    const auto a = nonces.take();
    const auto b = nonces.take();
    CHECK_FALSE(nonces.give_back(a));  // b came after it
    CHECK(nonces.give_back(b));
    CHECK(nonces.give_back(a));
    CHECK(nonces.take() == 7);
    nonces.reset(3);  // the chain was reset and nothing of ours is in flight
    CHECK(nonces.peek() == 3);
}
