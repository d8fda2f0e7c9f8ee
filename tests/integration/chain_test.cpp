// The chain layer against a real anvil: deploy, mint, reverts, balances,
// concurrency, a node restart mid-stream, and replacement of a stuck transaction.

#include <catch2/catch.hpp>

#include <algorithm>
#include <future>
#include <thread>

#include "core/chain/chain_client.hpp"
#include "core/chain/token_contract.hpp"
#include "core/chain/tx_sender.hpp"
#include "core/rpc/quantity.hpp"
#include "support/anvil.hpp"
#include "support/eventually.hpp"
#include "support/recording_journal.hpp"

using namespace abci;
using namespace std::chrono_literals;

namespace {

constexpr std::uint64_t kProducer = 10000, kVerifier = 10100, kValuator = 10200, kCertifier = 10300;
constexpr std::uint64_t kReport = 1000, kCertificate = 1300;

chain::ChainSettings settings_for(const test::Anvil& anvil) {
    chain::ChainSettings s;
    s.chain_id = anvil.chain_id();
    s.rpc_urls = {anvil.url()};
    s.poll_interval = 50ms;
    return s;
}

eth::PrivateKey dev_key(std::size_t i) { return eth::PrivateKey::from_hex(test::Anvil::dev_accounts()[i].private_key); }

eth::Address fresh_wallet(std::uint64_t n) {
    std::array<std::uint8_t, 20> bytes{};
    bytes[0] = 0xab;
    for (int i = 0; i < 8; ++i) bytes[19 - i] = static_cast<std::uint8_t>(n >> (8 * i));
    return eth::Address(bytes);
}

// A chain with the token deployed by dev account 0, which holds the minter role.
struct Deployed {
    test::Anvil anvil;
    chain::ChainClient chain;
    chain::TxSender sender;
    chain::TokenContract token;

    explicit Deployed(test::Anvil::Options options = {}, chain::SenderOptions sender_options = {})
        : anvil(std::move(options)),
          chain(settings_for(anvil)),
          sender(chain, std::make_shared<eth::PrivateKey>(dev_key(0)), sender_options),
          token(chain::TokenContract::deploy(sender, sender.address(), "ipfs://").token) {}

    chain::Receipt mint(const eth::Address& to, std::uint64_t id, std::uint64_t amount = 1) {
        return token.mint(sender, to, id, amount, eth::Bytes{}).get();
    }
};

// Waits for every mint: each must succeed, and together they must use exactly
// the nonces first, first+1, … with nothing left over at the node.
void require_contiguous_mints(Deployed& d, std::vector<std::future<chain::Receipt>>& results, std::uint64_t first) {
    std::vector<std::uint64_t> nonces;
    for (auto& r : results) {
        auto receipt = r.get();
        REQUIRE(receipt.success);
        nonces.push_back(receipt.nonce);
    }
    std::sort(nonces.begin(), nonces.end());
    for (std::size_t i = 0; i < nonces.size(); ++i) CHECK(nonces[i] == first + i);
    CHECK(d.chain.pending_nonce(d.sender.address()) == first + nonces.size());
}

}  // namespace

TEST_CASE("deploy: code present, version and deployment time readable", "[chain][anvil]") {
    Deployed d;
    CHECK(d.token.is_deployed());
    CHECK(d.token.version() == "1.0.0");
    CHECK(d.token.deployed_at() > 0);
    CHECK_FALSE(chain::TokenContract(d.chain, fresh_wallet(1)).is_deployed());
    d.chain.verify_chain_id();
}

TEST_CASE("every role mints once, a second mint reverts with the decoded custom error", "[chain][anvil]") {
    Deployed d;
    const auto wallet = fresh_wallet(7);
    for (std::uint64_t id : {kProducer, kVerifier, kValuator, kCertifier}) {
        auto receipt = d.mint(wallet, id);
        CHECK(receipt.success);
        CHECK(receipt.confirmations >= 1);
    }
    const auto balances =
        d.token.balance_of_batch({wallet, wallet, wallet, wallet}, {kProducer, kVerifier, kValuator, kCertifier});
    CHECK(balances == std::vector<eth::U256>{1, 1, 1, 1});
    try {
        (void)d.mint(wallet, kVerifier);
        FAIL("a second role mint must revert");
    } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::conflict);  // a held role is a conflict of state, not a chain failure
        CHECK_THAT(e.what(), Catch::Contains("RoleTokenAlreadyHeld(" + wallet.checksummed() + ", 10100)"));
    }
    CHECK(d.token.balance_of(wallet, kVerifier) == eth::U256(1));
}

TEST_CASE("role tokens cannot be transferred, entity tokens can", "[chain][anvil]") {
    Deployed d;
    chain::TxSender holder_sender(d.chain, std::make_shared<eth::PrivateKey>(dev_key(1)));
    const auto holder = holder_sender.address();
    const auto other = fresh_wallet(99);
    (void)d.mint(holder, kProducer);
    (void)d.mint(holder, kReport, 5);

    try {
        (void)d.token.transfer(holder_sender, other, kProducer, 1).get();
        FAIL("a role transfer must revert");
    } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::chain_rejected);
        CHECK_THAT(e.what(), Catch::Contains("SoulboundToken(10000)"));
    }
    auto receipt = d.token.transfer(holder_sender, other, kReport, 2).get();
    CHECK(receipt.success);
    CHECK(d.token.balance_of_batch({holder, other, holder}, {kReport, kReport, kProducer}) ==
          std::vector<eth::U256>{3, 2, 1});
}

TEST_CASE("unknown token ids and role amounts other than one are refused", "[chain][anvil]") {
    Deployed d;
    CHECK_THROWS_WITH(d.mint(fresh_wallet(3), 4242), Catch::Contains("UnknownTokenId(4242)"));
    CHECK_THROWS_WITH(d.mint(fresh_wallet(3), kCertifier, 2), Catch::Contains("InvalidRoleAmount(2)"));
    CHECK(d.mint(fresh_wallet(3), kCertificate, 3).success);
}

TEST_CASE("200 concurrent mints from one signer are all mined with contiguous nonces", "[chain][anvil][load]") {
    Deployed d;
    const std::uint64_t first = d.chain.pending_nonce(d.sender.address());
    constexpr int kMints = 200;
    std::vector<std::future<chain::Receipt>> results(kMints);
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t)
        threads.emplace_back([&, t] {
            for (int i = t; i < kMints; i += 8)
                results[i] = d.token.mint(d.sender, fresh_wallet(1000 + i), kProducer, 1, eth::Bytes{});
        });
    for (auto& t : threads) t.join();
    require_contiguous_mints(d, results, first);
    for (int i = 0; i < kMints; i += 37) CHECK(d.token.balance_of(fresh_wallet(1000 + i), kProducer) == eth::U256(1));
}

TEST_CASE("a node restart in the middle of a stream of mints leaves no nonce gap", "[chain][anvil][restart]") {
    test::Anvil::Options options;
    options.persist_state = true;
    Deployed d(options);
    const std::uint64_t first = d.chain.pending_nonce(d.sender.address());
    constexpr int kMints = 40;
    std::vector<std::future<chain::Receipt>> results;
    for (int i = 0; i < kMints; ++i) {
        if (i == kMints / 2) {
            // anvil's automine answers before its block is committed, and a
            // stop in between can dump the state without the block; a real
            // chain never does that, so let the first half land first.
            for (auto& r : results) r.wait();
            d.anvil.stop();  // broadcasts now fail in transport
        }
        // Gas is given so that submitting does not need the (stopped) node.
        chain::TxRequest mint;
        mint.to = d.token.address();
        mint.data = d.token.mint_calldata(fresh_wallet(5000 + i), kProducer, 1, {});
        mint.gas_limit = 200'000;
        results.push_back(d.sender.submit(mint));
        std::this_thread::sleep_for(10ms);
    }
    // The second half was handed over while the node was down (its first
    // tries failed in transport); the node comes back under the rest.
    d.anvil.start();
    require_contiguous_mints(d, results, first);
    for (int i = 0; i < kMints; ++i) CHECK(d.token.balance_of(fresh_wallet(5000 + i), kProducer) == eth::U256(1));
}

TEST_CASE("a stuck transaction is replaced with both fees raised by at least 10%", "[chain][anvil][replace]") {
    chain::SenderOptions fast_replace;
    fast_replace.maintenance_interval = 100ms;
    fast_replace.rebroadcast_after = 200ms;
    fast_replace.replace_after = 300ms;
    test::RecordingJournal journal;
    fast_replace.journal = &journal;
    Deployed d({}, fast_replace);
    (void)d.chain.rpc().call("evm_setAutomine", {false});
    const auto tiers = d.chain.fee_tiers();
    const auto nonce = d.chain.pending_nonce(d.sender.address());
    auto pending = d.token.mint(d.sender, fresh_wallet(77), kValuator, 1, {});
    // Several replacement rounds pass while nothing is mined: the first version and two replacements.
    REQUIRE(test::eventually([&] { return journal.versions_of(nonce) >= 3; }));
    (void)d.chain.rpc().call("evm_mine");
    auto receipt = pending.get();
    CHECK(receipt.success);
    const auto tx = d.chain.rpc().call("eth_getTransactionByHash", {eth::to_hex(receipt.transaction_hash)});
    const auto max_fee = rpc::quantity_to_u256(tx["maxFeePerGas"], "maxFeePerGas");
    const auto tip = rpc::quantity_to_u256(tx["maxPriorityFeePerGas"], "maxPriorityFeePerGas");
    const auto& original = tiers.standard;
    CHECK(max_fee * eth::U256(10) >= original.max_fee_per_gas * eth::U256(11));
    CHECK(tip * eth::U256(10) >= original.max_priority_fee_per_gas * eth::U256(11));
    CHECK(d.token.balance_of(fresh_wallet(77), kValuator) == eth::U256(1));
}

TEST_CASE("fee tiers are ordered and the chain id is checked", "[chain][anvil]") {
    test::Anvil anvil;
    chain::ChainClient client(settings_for(anvil));
    const auto tiers = client.fee_tiers();
    CHECK(tiers.eip1559);
    CHECK(tiers.low.max_priority_fee_per_gas <= tiers.standard.max_priority_fee_per_gas);
    CHECK(tiers.standard.max_priority_fee_per_gas <= tiers.fast.max_priority_fee_per_gas);
    CHECK(tiers.standard.max_fee_per_gas >= tiers.next_base_fee);
    auto wrong = settings_for(anvil);
    wrong.chain_id = 1;
    chain::ChainClient mistaken(wrong);
    try {
        mistaken.verify_chain_id();
        FAIL("a chain id mismatch must be refused");
    } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::conflict);
    }
}
