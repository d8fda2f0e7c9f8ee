// Minting through the service in-process (no HTTP front: the server's routes
// only parse and render, tested in tests/serve) against a real anvil with the
// token deployed: the answer matches the chain, a repeat of an
// Idempotency-Key replays it, and a chain that resets or reorganises under a
// mint ends with the mint on chain once. The chain, read by cast, is the oracle.

#include <catch2/catch.hpp>

#include <future>

#include "core/rpc/quantity.hpp"
#include "core/service/service.hpp"
#include "core/wire/requests.hpp"
#include "support/chain_node.hpp"
#include "support/chain_server.hpp"
#include "support/eventually.hpp"
#include "support/log_capture.hpp"
#include "support/random.hpp"

namespace abci::mint_service_tests {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using nlohmann::json;
using test::ChainNode;
using test::eventually;

constexpr std::uint64_t kReport = 1000;
constexpr const char* kActor = "user-1";

service::MintOptions keyed(std::optional<std::string> key) {
    service::MintOptions options;
    options.actor = kActor;
    options.idempotency_key = std::move(key);
    return options;
}
service::MintOptions unkeyed() { return keyed(std::nullopt); }

service::MintEntityRequest report(const eth::Address& to, const std::string& entity_id, std::uint64_t amount = 1) {
    return wire::parse_mint_entity(test::entity_mint_body(to.checksummed(), "report", entity_id, amount));
}

ChainNode::Options with_network(std::function<void(service::NetworkConfig&)> change) {
    return {.network = std::move(change)};
}

json receipt(const ChainNode& node, const std::string& hash) {
    return json::parse(node.cast_rpc({"receipt", hash, "--json"}));
}

std::uint64_t block_of(const json& receipt) { return rpc::quantity_to_u64(receipt["blockNumber"], "block"); }

// The mint named by the MintUnsettled that `mint` throws.
std::string unsettled_mint_id(const std::function<void()>& mint) {
    try {
        mint();
    } catch (const service::MintUnsettled& e) {
        CHECK_FALSE(e.transaction_hashes().empty());
        return e.mint_id();
    }
    FAIL("the mint settled");
    return {};
}

}  // namespace

TEST_CASE("mint service: the answer matches the chain's receipt, a repeated key replays it, another body is refused",
          "[mint][anvil]") {
    ChainNode node;
    test::Random random(31);
    const auto to = random.address();
    auto& abci = node.service();

    const auto request = report(to, "IN-PROCESS-1", 5);
    const auto first = abci.mint_entity(request, keyed("k-1"));
    const auto r = receipt(node, first.transaction_hash);
    CHECK(r["status"] == "0x1");
    CHECK(first.block_number == block_of(r));
    CHECK(first.amount == 5);
    CHECK(first.entity_id == "IN-PROCESS-1");
    CHECK(node.chain_balance(to, kReport) == "5");

    const auto replayed = abci.mint_entity(request, keyed("k-1"));
    CHECK(replayed.transaction_hash == first.transaction_hash);
    CHECK(replayed.block_number == first.block_number);
    CHECK(node.chain_balance(to, kReport) == "5");

    const auto other = report(to, "IN-PROCESS-2", 5);
    CHECK_THROWS_MATCHES(abci.mint_entity(other, keyed("k-1")), Error,
                         Catch::Predicate<Error>([](const Error& e) { return e.kind() == ErrorKind::unprocessable; }));
    CHECK(node.nonce() == 2);  // the deployment and the one mint
}

TEST_CASE("mint service: a devnet reset without its state: the next mint starts from the chain's nonce", "[mint][anvil]") {
    ChainNode node;
    test::LogCapture log;
    test::Random random(14);
    auto& abci = node.service();
    for (int i = 0; i < 3; ++i) (void)abci.mint_entity(report(random.address(), "BEFORE-" + std::to_string(i)), unkeyed());
    REQUIRE(node.nonce() == 4);

    node.reset_chain();
    const auto to = random.address();
    const auto minted = abci.mint_entity(report(to, "AFTER-RESET"), unkeyed());
    CHECK(receipt(node, minted.transaction_hash)["status"] == "0x1");
    CHECK(node.chain_balance(to, kReport) == "1");
    CHECK(node.nonce() == 2);  // the deployment, then this mint
    CHECK_FALSE(log.containing("the chain has fewer transactions of the signer").empty());
}

TEST_CASE("mint service: a devnet reset under a pending mint: cancelled by a filler, its key freed, the retry mints once",
          "[mint][anvil]") {
    ChainNode node(with_network([](auto& c) { c.receipt_timeout = 1s; }));
    test::LogCapture log;
    test::Random random(16);
    auto& abci = node.service();
    for (int i = 0; i < 2; ++i) (void)abci.mint_entity(report(random.address(), "EARLIER-" + std::to_string(i)), unkeyed());
    const auto to = random.address();
    const auto request = report(to, "CAUGHT-IN-RESET", 4);
    (void)node.anvil.rpc("evm_setAutomine", {false});
    const auto mint_id = unsettled_mint_id([&] { (void)abci.mint_entity(request, keyed("reset-1")); });

    node.reset_chain();
    // The sender sees the chain behind its transaction, replaces it and fills the gap below it.
    REQUIRE(eventually([&] { return abci.mint_status(mint_id, kActor, false).mint.state == store::MintState::failed; }));
    CHECK_FALSE(log.containing("the chain was reset or lost blocks").empty());
    CHECK(node.chain_balance(to, kReport) == "0");

    const auto retried = abci.mint_entity(request, keyed("reset-1"));
    CHECK(receipt(node, retried.transaction_hash)["status"] == "0x1");
    CHECK(node.chain_balance(to, kReport) == "4");
    CHECK(node.nonce(true) == node.nonce());  // nothing left queued
}

TEST_CASE("mint service: a reorg that removes a mint before it is final: sent again, answered with the block it lands in",
          "[mint][anvil]") {
    ChainNode node(with_network([](auto& c) { c.confirmations = 3; }));
    test::Random random(17);
    auto& abci = node.service();
    const auto to = random.address();
    (void)node.anvil.rpc("evm_setAutomine", {false});
    auto answer = std::async(std::launch::async, [&] { return abci.mint_entity(report(to, "REORGED-1", 6), keyed("reorg-1")); });
    REQUIRE(eventually([&] { return node.nonce(true) > node.nonce(); }));
    (void)node.anvil.rpc("evm_mine");
    const auto first_block = node.anvil.block_number();
    // anvil_rollback drops the block and its transactions: the node forgets the mint.
    (void)node.anvil.rpc("anvil_rollback", {1});
    CHECK(node.nonce(true) == node.nonce());
    // Blocks keep coming; the sender notices the mint is gone and sends it again.
    for (const auto deadline = Clock::now() + 40s;
         answer.wait_for(500ms) != std::future_status::ready && Clock::now() < deadline;)
        (void)node.anvil.rpc("evm_mine");
    REQUIRE(answer.wait_for(0s) == std::future_status::ready);
    const auto minted = answer.get();
    const auto r = receipt(node, minted.transaction_hash);
    CHECK(r["status"] == "0x1");
    CHECK(minted.block_number == block_of(r));
    CHECK(minted.block_number >= first_block);
    CHECK(minted.confirmations >= 3);
    CHECK(node.chain_balance(to, kReport) == "6");
}

TEST_CASE("mint service: a reorg deeper than the confirmations after the answer is logged and the mint sent again",
          "[mint][anvil]") {
    ChainNode node;
    test::LogCapture log;
    test::Random random(18);
    auto& abci = node.service();
    const auto to = random.address();
    const auto request = report(to, "DEEP-REORG-1", 7);
    const auto answered = abci.mint_entity(request, keyed("deep-1"));

    // The block that held it is replaced by an empty one. anvil may still
    // hold the transaction in its pool when the rollback comes right after
    // the mint (it did once, in a loaded run) and mine it again itself: it
    // is dropped, so that only the sender can bring it back.
    (void)node.anvil.rpc("anvil_rollback", {1});
    (void)node.anvil.rpc("anvil_dropTransaction", {answered.transaction_hash});
    (void)node.anvil.rpc("evm_mine");
    CHECK(node.chain_balance(to, kReport) == "0");

    // The sender notices the block's hash changed, logs it and sends the same bytes again.
    REQUIRE(eventually([&] { return node.chain_balance(to, kReport) == "7"; }));
    const auto r = receipt(node, answered.transaction_hash);
    CHECK(r["status"] == "0x1");
    const auto landed = block_of(r);
    CHECK(landed > answered.block_number);
    CHECK_FALSE(log.containing("a reorg deeper than the confirmations removed a mined transaction").empty());
    // The journal follows the chain; the mint was recorded once.
    REQUIRE(eventually([&] {
        const auto status = abci.mint_status_by_key("deep-1", kActor);
        return status.transactions.size() == 1 && status.transactions[0].status == chain::TxStatus::mined &&
               status.transactions[0].block_number == landed;
    }));
    CHECK(node.entities_of(answered.transaction_hash) == 1);
    const auto balances = abci.user_balance(service::UserBalanceQuery::parse(to.checksummed(), "devnet"));
    REQUIRE(balances.holdings.size() == 1);
    CHECK(balances.holdings[0].row.balance == "7");
    CHECK(abci.mint_entity(request, keyed("deep-1")).transaction_hash == answered.transaction_hash);
}

}  // namespace abci::mint_service_tests
