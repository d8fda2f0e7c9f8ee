// The transaction sender driven into the states that only a misbehaving
// network, node or account brings about, each on a real anvil (with the fault
// proxy between them where the transport must fail): a chain without
// EIP-1559, rounds larger than a batch, a broadcast lost in transport, a nonce
// someone else used or holds, the fee cap, a chain reset, an unfunded signer.
// The method-counting proxy fails chosen calls at the moment a test needs.
// The journal here is the sender's own record of what it signed and settled,
// read by the tests: the store's journal is tested in journal_test.cpp.

#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

#include "core/chain/chain_client.hpp"
#include "core/chain/tx_journal.hpp"
#include "core/chain/tx_sender.hpp"
#include "core/eth/keccak.hpp"
#include "core/eth/tx.hpp"
#include "core/rpc/quantity.hpp"
#include "support/anvil.hpp"
#include "support/recording_journal.hpp"
#include "support/eventually.hpp"
#include "support/fault_proxy.hpp"
#include "support/log_capture.hpp"
#include "support/method_counting_proxy.hpp"

namespace abci::sender_tests {

using namespace std::chrono_literals;
using nlohmann::json;

using test::RecordingJournal;

eth::PrivateKey dev_key(std::size_t i) { return eth::PrivateKey::from_hex(test::Anvil::dev_accounts()[i].private_key); }
eth::Address dev_address(std::size_t i) { return eth::Address::parse(test::Anvil::dev_accounts()[i].address); }

chain::ChainSettings settings_for(const std::string& url, std::uint64_t chain_id) {
    chain::ChainSettings s;
    s.chain_id = chain_id;
    s.rpc_urls = {url};
    s.poll_interval = 50ms;
    s.fee_cache_ttl = 1ms;  // every round asks the node: a round with the node unreachable cannot sign
    s.rpc.call_timeout = 2s;
    s.rpc.backoff_base = 20ms;
    return s;
}

// Maintenance fast enough for a test to see several rounds in a second.
chain::SenderOptions quick(RecordingJournal& journal) {
    chain::SenderOptions o;
    o.maintenance_interval = 50ms;
    o.rebroadcast_after = 150ms;
    o.journal = &journal;
    return o;
}

// A 0-value transfer to dev account 9 with a gas limit of its own (no estimate).
chain::TxRequest transfer(std::string purpose, std::chrono::milliseconds timeout = 20s) {
    chain::TxRequest r;
    r.to = dev_address(9);
    r.gas_limit = 21'000;
    r.timeout = timeout;
    r.purpose = std::move(purpose);
    return r;
}

using test::eventually;

// Whether the node is asked `method` `times` more times (some maintenance rounds) within 15 s, as a
// transfer of these tests waits 20 s.
bool calls_seen(const test::MethodCountingProxy& proxy, const std::string& method, int times = 3) {
    const int before = proxy.count(method);
    return eventually([&] { return proxy.count(method) >= before + times; }, 15s);
}

json node_rpc(chain::ChainClient& chain, const std::string& method, json params = json::array()) {
    return chain.rpc().call(method, std::move(params));
}

// An account's transaction `nonce` as the chain has it (a foreign one: sent by anvil for the unlocked account).
void send_foreign(chain::ChainClient& chain, const eth::Address& from, std::uint64_t nonce) {
    (void)node_rpc(chain, "eth_sendTransaction",
                   {{{"from", from.checksummed()}, {"to", from.checksummed()}, {"nonce", rpc::to_quantity(nonce)},
                     {"gas", "0x5208"}, {"maxFeePerGas", "0x174876e800"}, {"maxPriorityFeePerGas", "0x174876e800"}}});
}

// A 0-value transfer from `key` to dev account 9 with `nonce`, signed here as an earlier run would have.
eth::SignedTransaction sign_transfer(const chain::ChainClient& chain, const eth::PrivateKey& key, std::uint64_t nonce,
                                     const chain::Fees& fees) {
    eth::Transaction tx;
    tx.chain_id = chain.settings().chain_id;
    tx.nonce = nonce;
    tx.max_fee_per_gas = fees.max_fee_per_gas;
    tx.max_priority_fee_per_gas = fees.max_priority_fee_per_gas;
    tx.gas_limit = 21'000;
    tx.to = dev_address(9);
    return eth::sign_transaction(tx, key);
}

// The sender on a chain without EIP-1559 (before London: no base fee) signs
// legacy transactions with a gas price; a type-2 transaction would be refused.
TEST_CASE("sender: a chain without EIP-1559 gets legacy transactions with a gas price", "[sender][anvil]") {
    test::Anvil anvil({.extra_args = {"--hardfork", "berlin"}});
    chain::ChainClient chain(settings_for(anvil.url(), anvil.chain_id()));
    CHECK_FALSE(chain.fee_tiers().eip1559);
    RecordingJournal journal;
    chain::TxSender sender(chain, std::make_shared<eth::PrivateKey>(dev_key(1)), quick(journal));
    const auto receipt = sender.submit(transfer("legacy")).get();
    CHECK(receipt.success);
    const auto tx = node_rpc(chain, "eth_getTransactionByHash", {eth::to_hex(receipt.transaction_hash)});
    CHECK(tx["type"] == "0x0");
    CHECK(tx.contains("gasPrice"));
    CHECK_FALSE(tx.contains("maxFeePerGas"));

    // A legacy transaction journaled by an earlier run is taken back with its gas price.
    eth::Transaction legacy;
    legacy.type = eth::TxType::legacy;
    legacy.chain_id = anvil.chain_id();
    legacy.nonce = 1;
    legacy.gas_price = rpc::quantity_to_u256(tx["gasPrice"], "gasPrice");
    legacy.gas_limit = 21'000;
    legacy.to = dev_address(9);
    const auto signed_tx = eth::sign_transaction(legacy, dev_key(1));
    std::promise<chain::Unwaited> heard;
    sender.on_unwaited([&](const chain::Unwaited& fate) { heard.set_value(fate); });
    sender.adopt({{signed_tx.hash, 1, signed_tx.raw, "legacy, adopted"}});
    const auto fate = heard.get_future().get();
    CHECK(fate.status == chain::TxStatus::mined);
    CHECK(fate.receipt->transaction_hash == signed_tx.hash);
}

// A takeover fenced this sender out (its lane went to another server): the
// journal refuses, and the callers learn at once that nothing was sent,
// rather than when their deadline passes.
TEST_CASE("sender: a journal that closed fails its callers at once as never mined, and sends nothing more",
          "[sender][anvil]") {
    test::Anvil anvil;
    chain::ChainClient chain(settings_for(anvil.url(), anvil.chain_id()));
    RecordingJournal journal;
    chain::TxSender sender(chain, std::make_shared<eth::PrivateKey>(dev_key(1)), quick(journal));
    CHECK(sender.submit(transfer("before")).get().success);

    journal.close("another server owns the lane now");
    // A deadline far off: the answer comes from the closing, not from it.
    auto refused = sender.submit(transfer("after", std::chrono::minutes(10)));
    CHECK_THROWS_AS(refused.get(), chain::SenderClosed);
    CHECK_THROWS_AS(sender.submit(transfer("later")), chain::SenderClosed);
    CHECK(journal.recorded().size() == 1);
    CHECK(chain.pending_nonce(dev_address(1)) == 1);
}

TEST_CASE("sender: more transactions than a round holds go out over several rounds with contiguous nonces",
          "[sender][anvil]") {
    test::Anvil anvil;
    chain::ChainClient chain(settings_for(anvil.url(), anvil.chain_id()));
    RecordingJournal journal;
    auto options = quick(journal);
    options.max_batch = 2;
    chain::TxSender sender(chain, std::make_shared<eth::PrivateKey>(dev_key(1)), options);
    std::vector<std::future<chain::Receipt>> results;
    for (int i = 0; i < 5; ++i) results.push_back(sender.submit(transfer("round-" + std::to_string(i))));
    std::vector<std::uint64_t> nonces;
    for (auto& r : results) nonces.push_back(r.get().nonce);
    std::sort(nonces.begin(), nonces.end());
    CHECK(nonces == std::vector<std::uint64_t>{0, 1, 2, 3, 4});
    CHECK(journal.recorded().size() == 5);
}

// The node never hears the broadcast (the connection closes before it is
// forwarded): the same signed bytes go out again, never a second signature.
TEST_CASE("sender: a broadcast lost in transport is sent again with the same bytes", "[sender][anvil][faults]") {
    test::Anvil anvil;
    test::FaultProxy proxy(anvil.port());
    chain::ChainClient chain(settings_for(proxy.url(), anvil.chain_id()));
    RecordingJournal journal;
    std::once_flag first_record;
    journal.on_record = [&] {
        std::call_once(first_record, [&] { proxy.set_rate(test::Fault::drop_before, 1.0); });
    };
    chain::TxSender sender(chain, std::make_shared<eth::PrivateKey>(dev_key(1)), quick(journal));
    auto mined = sender.submit(transfer("lost in transport"));
    // More drops than one call makes attempts (4): the first broadcast failed whole, and was tried again.
    REQUIRE(eventually([&] { return proxy.injected(test::Fault::drop_before) >= 5; }));
    // Two more whole calls fail (4 attempts each) before the network comes back.
    const auto dropped = proxy.injected(test::Fault::drop_before);
    REQUIRE(eventually([&] { return proxy.injected(test::Fault::drop_before) >= dropped + 8; }));
    proxy.set_rate(test::Fault::drop_before, 0.0);
    const auto receipt = mined.get();
    CHECK(receipt.success);
    const auto versions = journal.recorded();
    REQUIRE(versions.size() == 1);
    CHECK(versions[0].hash == receipt.transaction_hash);
    CHECK(journal.status(receipt.transaction_hash) == chain::TxStatus::mined);
}

// A transaction an earlier run journaled, whose nonce another transaction
// took meanwhile: only its bytes are known, so it cannot be signed again; it
// is settled dropped and its listener hears so, but only once the chain
// proves it (while the node cannot say the account's nonce, it is judged
// again later). A listener that throws is logged and does not stop the
// sender; adopting the same nonce twice keeps one.
TEST_CASE("sender: an adopted transaction whose nonce someone else used is settled dropped", "[sender][anvil]") {
    test::Anvil anvil;
    test::MethodCountingProxy proxy(anvil.port(), {});
    chain::ChainClient chain(settings_for(proxy.url(), anvil.chain_id()));
    auto key = dev_key(1);
    const auto signed_tx = sign_transfer(chain, key, 0, chain.fee_tiers().standard);
    send_foreign(chain, key.address(), 0);  // mined at once: nonce 0 is gone
    proxy.refuse("eth_getTransactionCount", -32000, "header not found");

    RecordingJournal journal;
    chain::TxSender sender(chain, std::make_shared<eth::PrivateKey>(std::move(key)), quick(journal));
    std::promise<chain::Unwaited> heard;
    sender.on_unwaited([&](const chain::Unwaited& fate) {
        heard.set_value(fate);
        throw Error(ErrorKind::unavailable, "the listener's store is down");
    });
    const chain::JournaledTx adopted{signed_tx.hash, 0, signed_tx.raw, "adopted"};
    sender.adopt({adopted});
    sender.adopt({adopted});
    CHECK(sender.in_flight() == 1);
    // Refused as "nonce too low", and judged without an answer at least twice.
    REQUIRE(eventually([&] { return proxy.count("eth_getTransactionCount") >= 3; }));
    CHECK(sender.in_flight() == 1);
    CHECK_FALSE(journal.status(signed_tx.hash));
    proxy.pass("eth_getTransactionCount");
    const auto fate = heard.get_future().get();
    CHECK(fate.purpose == "adopted");
    CHECK(fate.status == chain::TxStatus::dropped);
    CHECK(journal.status(signed_tx.hash) == chain::TxStatus::dropped);
    CHECK(sender.in_flight() == 0);
    // The sender goes on: the next transaction takes nonce 1.
    CHECK(sender.submit(transfer("after the drop")).get().nonce == 1);
}

// A crash after a fee bump leaves two versions of one nonce journaled; the
// older one was mined meanwhile. Adopted together, the mined one settles both.
TEST_CASE("sender: adopted versions of one nonce are settled by the one the chain mined", "[sender][anvil]") {
    test::Anvil anvil;
    chain::ChainClient chain(settings_for(anvil.url(), anvil.chain_id()));
    auto key = dev_key(1);
    const auto fees = chain.fee_tiers().standard;
    const auto older = sign_transfer(chain, key, 1, fees);
    const auto newer = sign_transfer(chain, key, 1, chain::bumped(fees));
    RecordingJournal journal;
    chain::TxSender sender(chain, std::make_shared<eth::PrivateKey>(std::move(key)), quick(journal));
    std::promise<chain::Unwaited> heard;
    sender.on_unwaited([&](const chain::Unwaited& fate) { heard.set_value(fate); });
    // The receipt poller has seen the head before the older version is mined by someone else.
    (void)sender.submit(transfer("before the crash")).get();
    (void)node_rpc(chain, "eth_sendRawTransaction", {eth::to_hex(older.raw)});
    sender.adopt({{older.hash, 1, older.raw, "bumped"}, {newer.hash, 1, newer.raw, "bumped"}});
    const auto fate = heard.get_future().get();
    CHECK(fate.status == chain::TxStatus::mined);
    REQUIRE(fate.receipt);
    CHECK(fate.receipt->transaction_hash == older.hash);
    REQUIRE(eventually([&] { return journal.status(newer.hash) == chain::TxStatus::replaced; }));
    CHECK(journal.status(older.hash) == chain::TxStatus::mined);
    CHECK(sender.in_flight() == 0);
}

// Someone else's transaction holds our nonce in the node's pool at a higher
// fee: ours is refused as an underpriced replacement, which proves nothing
// while the nonce is unmined, so the sender asks again each round; once the
// other is mined, ours is signed again with the next nonce.
TEST_CASE("sender: a nonce held by someone else's pending transaction is judged again until the chain settles it",
          "[sender][anvil]") {
    test::Anvil anvil;
    test::MethodCountingProxy proxy(anvil.port(), {});
    chain::ChainClient chain(settings_for(proxy.url(), anvil.chain_id()));
    (void)node_rpc(chain, "evm_setAutomine", {false});
    const auto signer = dev_address(1);
    RecordingJournal journal;
    chain::TxSender sender(chain, std::make_shared<eth::PrivateKey>(dev_key(1)), quick(journal));
    auto mined = sender.submit(transfer("held by another", 60s));  // several judging rounds, slow under ASan
    REQUIRE(eventually([&] { return chain.pending_nonce(signer) == 1; }));
    send_foreign(chain, signer, 0);  // replaces ours in the pool: a higher fee
    // Ours is found gone from the pool, sent again, refused as underpriced,
    // judged open (nonce 0 is not mined), and judged again in later rounds.
    REQUIRE(calls_seen(proxy, "eth_getTransactionCount", 4));  // some rounds
    REQUIRE(journal.recorded().size() == 1);
    CHECK(journal.recorded()[0].nonce == 0);
    CHECK_FALSE(journal.status(journal.recorded()[0].hash));
    // The node may fail each call that judging ours needs: the nonce is then
    // judged again in later rounds, and nothing is settled meanwhile.
    const bool node_failing = GENERATE(false, true);
    INFO("the node fails the calls that judge the nonce: " << node_failing);
    if (node_failing) {
        proxy.refuse("eth_getTransactionCount", -32603, "internal error", json{signer.checksummed(), "latest"});
        REQUIRE(calls_seen(proxy, "eth_getTransactionCount"));
        proxy.pass("eth_getTransactionCount");
        proxy.refuse("eth_getTransactionReceipt", -32603, "internal error");
        proxy.refuse("eth_getTransactionCount", -32603, "internal error", json{signer.checksummed(), "pending"});
    }
    (void)node_rpc(chain, "evm_mine");
    if (node_failing) {
        REQUIRE(calls_seen(proxy, "eth_getTransactionReceipt"));
        CHECK(journal.recorded().size() == 1);
        proxy.pass("eth_getTransactionReceipt");
        REQUIRE(calls_seen(proxy, "eth_getTransactionCount"));
        CHECK(journal.recorded().size() == 1);
        CHECK_FALSE(journal.status(journal.recorded()[0].hash));
        proxy.pass("eth_getTransactionCount");
    }
    REQUIRE(eventually([&] { return journal.recorded().size() == 2; }));
    // Journaled before it is sent: mined only once the node holds it.
    REQUIRE(eventually([&] { return chain.pending_nonce(signer) == 2; }));
    (void)node_rpc(chain, "evm_mine");
    const auto receipt = mined.get();
    CHECK(receipt.nonce == 1);
    CHECK(journal.status(journal.recorded()[0].hash) == chain::TxStatus::dropped);
    CHECK(journal.recorded()[1].hash == receipt.transaction_hash);
}

// Unmined, the transaction is replaced with higher fees up to the cap and
// then left as it is, shown by stuck() until it is mined.
TEST_CASE("sender: a replacement stops at the fee cap and the transaction shows as stuck until mined",
          "[sender][anvil][replace]") {
    // A node may refuse the replacement at first by its pool's own rules:
    // the earlier version stays pending, and the replacement is offered again.
    const bool refused_at_first = GENERATE(false, true);
    INFO("the replacement refused at first: " << refused_at_first);
    test::Anvil anvil;
    test::MethodCountingProxy proxy(anvil.port(), {});
    chain::ChainClient chain(settings_for(proxy.url(), anvil.chain_id()));
    (void)node_rpc(chain, "evm_setAutomine", {false});
    const auto first = chain.fee_tiers().standard;
    RecordingJournal journal;
    auto options = quick(journal);
    options.replace_after = 200ms;
    // Room for one replacement (more than the 10% a node asks of one), not two.
    options.max_fee_per_gas = first.max_fee_per_gas * eth::U256(111) / eth::U256(100);
    chain::TxSender sender(chain, std::make_shared<eth::PrivateKey>(dev_key(1)), options);
    auto mined = sender.submit(transfer("capped"));
    if (refused_at_first) {
        REQUIRE(eventually([&] { return chain.pending_nonce(sender.address()) == 1; }));
        proxy.refuse("eth_sendRawTransaction", -32000, "replacement transaction underpriced");
        REQUIRE(eventually([&] { return proxy.count("eth_sendRawTransaction") >= 4; }));
        CHECK(sender.stuck().empty());
        proxy.pass("eth_sendRawTransaction");
    }
    REQUIRE(eventually([&] { return !sender.stuck().empty(); }));
    const auto stuck = sender.stuck();
    REQUIRE(stuck.size() == 1);
    CHECK(stuck[0].nonce == 0);
    const auto versions = journal.recorded();
    REQUIRE(versions.size() == 2);
    CHECK(stuck[0].hash == versions[1].hash);
    const auto last = node_rpc(chain, "eth_getTransactionByHash", {eth::to_hex(versions[1].hash)});
    CHECK(rpc::quantity_to_u256(last["maxFeePerGas"], "maxFeePerGas") == options.max_fee_per_gas);
    REQUIRE(calls_seen(proxy, "eth_getTransactionByHash", 3));  // more rounds at the cap: no further version
    CHECK(journal.recorded().size() == 2);
    (void)node_rpc(chain, "evm_mine");
    const auto receipt = mined.get();
    CHECK(receipt.transaction_hash == versions[1].hash);
    CHECK(journal.status(versions[0].hash) == chain::TxStatus::replaced);
    CHECK(sender.stuck().empty());
}

// A congested chain's base fee outgrows a pending transaction's fee cap
// (1000 mints on a chain of mainnet's pace raised it past twice what the
// last of them were signed with): the node refuses that transaction,
// resent or replaced by a 12.5 % bump, as "max fee per gas less than block
// base fee". The sender signs it again above the base fee (the same call,
// the same nonce) rather than failing its caller and filling the nonce;
// where its fee cap forbids that, it waits, shown as stuck, for the base fee
// to fall.
TEST_CASE("sender: a transaction the base fee outgrew is signed again above it, or waits at its cap, and is mined",
          "[sender][anvil][replace]") {
    const bool room_above = GENERATE(true, false);
    INFO("a fee cap above the new base fee: " << room_above);
    test::Anvil anvil;
    chain::ChainClient chain(settings_for(anvil.url(), anvil.chain_id()));
    (void)node_rpc(chain, "evm_setAutomine", {false});
    RecordingJournal journal;
    auto options = quick(journal);
    options.replace_after = 200ms;
    const auto signed_at = chain.fee_tiers().standard.max_fee_per_gas;
    // Without a cap of its own a transaction may offer 4 times its first fees.
    if (room_above) options.max_fee_per_gas = signed_at * eth::U256(100);
    chain::TxSender sender(chain, std::make_shared<eth::PrivateKey>(dev_key(1)), options);
    auto mined = sender.submit(transfer("outgrown"));
    const auto fee_cap_of = [](const chain::SignedTx& version) {
        return eth::decode_transaction(version.raw).tx.max_fee_per_gas;
    };
    REQUIRE(eventually([&] { return journal.recorded().size() == 1; }));
    const auto first_cap = fee_cap_of(journal.recorded()[0]);
    const auto set_base_fee = [&](const eth::U256& fee) {
        (void)node_rpc(chain, "anvil_setNextBlockBaseFeePerGas", json::array({rpc::to_quantity(fee)}));
        (void)node_rpc(chain, "evm_mine");
    };
    set_base_fee(first_cap * eth::U256(20));  // no bump of 12.5 % reaches it
    if (room_above) {
        REQUIRE(eventually([&] { return fee_cap_of(journal.recorded().back()) > first_cap * eth::U256(10); }));
    } else {
        REQUIRE(eventually([&] { return !sender.stuck().empty(); }));
        CHECK(fee_cap_of(journal.recorded().back()) == first_cap * eth::U256(4));
        set_base_fee(first_cap / eth::U256(4));
    }
    REQUIRE(eventually([&] { return chain.pending_nonce(sender.address()) == 1; }));
    (void)node_rpc(chain, "evm_mine");
    const auto receipt = mined.get();
    CHECK(receipt.success);
    // With a cap, the node may have kept the first version, includable again.
    const auto versions = journal.recorded();
    if (room_above) CHECK(receipt.transaction_hash == versions.back().hash);
    CHECK(std::any_of(versions.begin(), versions.end(), [&](const auto& v) { return v.hash == receipt.transaction_hash; }));
    CHECK(chain.latest_nonce(sender.address()) == 1);
    for (const auto& version : versions) CHECK(version.purpose == "outgrown");
    CHECK(sender.stuck().empty());
}

// The same after a restart: a transaction adopted from the journal (its
// call read back from its bytes) is signed again above the base fee that
// outgrew it, under its own purpose, and the chain mines that version.
TEST_CASE("sender: an adopted transaction the base fee outgrew is signed again above it and mined",
          "[sender][anvil][replace]") {
    test::Anvil anvil;
    chain::ChainClient chain(settings_for(anvil.url(), anvil.chain_id()));
    (void)node_rpc(chain, "evm_setAutomine", {false});
    auto key = dev_key(1);
    const auto fees = chain.fee_tiers().standard;
    const auto before_restart = sign_transfer(chain, key, 0, fees);
    RecordingJournal journal;
    auto options = quick(journal);
    options.max_fee_per_gas = fees.max_fee_per_gas * eth::U256(100);
    (void)node_rpc(chain, "anvil_setNextBlockBaseFeePerGas",
                   json::array({rpc::to_quantity(fees.max_fee_per_gas * eth::U256(20))}));
    (void)node_rpc(chain, "evm_mine");
    chain::TxSender sender(chain, std::make_shared<eth::PrivateKey>(std::move(key)), options);
    std::promise<chain::Unwaited> heard;
    sender.on_unwaited([&](const chain::Unwaited& fate) { heard.set_value(fate); });
    sender.adopt({{before_restart.hash, 0, before_restart.raw, "mint before the restart"}});
    REQUIRE(eventually([&] { return chain.pending_nonce(sender.address()) == 1; }));
    (void)node_rpc(chain, "evm_mine");
    const auto fate = heard.get_future().get();
    CHECK(fate.status == chain::TxStatus::mined);
    CHECK(fate.purpose == "mint before the restart");
    REQUIRE(fate.receipt);
    CHECK(fate.receipt->transaction_hash != before_restart.hash);
    const auto versions = journal.recorded();
    REQUIRE(versions.size() == 1);  // the adopted version was journaled before the restart
    CHECK(versions[0].hash == fate.receipt->transaction_hash);
    CHECK(versions[0].purpose == "mint before the restart");
    CHECK(eth::decode_transaction(versions[0].raw).tx.max_fee_per_gas > fees.max_fee_per_gas * eth::U256(20));
    REQUIRE(eventually([&] { return journal.status(before_restart.hash) == chain::TxStatus::replaced; }));
}

// A replacement refused with "nonce too low" while the first version is
// still unmined: the node's word proves nothing, so the nonce is judged by
// the chain each round rather than offered again, and the first version,
// mined, settles both.
TEST_CASE("sender: a replacement refused as nonce too low is judged by the chain, and the first version is mined",
          "[sender][anvil][replace]") {
    test::Anvil anvil;
    test::MethodCountingProxy proxy(anvil.port(), {});
    chain::ChainClient chain(settings_for(proxy.url(), anvil.chain_id()));
    (void)node_rpc(chain, "evm_setAutomine", {false});
    RecordingJournal journal;
    auto options = quick(journal);
    options.replace_after = 200ms;
    chain::TxSender sender(chain, std::make_shared<eth::PrivateKey>(dev_key(1)), options);
    auto mined = sender.submit(transfer("replacement refused"));
    REQUIRE(eventually([&] { return chain.pending_nonce(sender.address()) == 1; }));
    proxy.refuse("eth_sendRawTransaction", -32000, "nonce too low");
    REQUIRE(eventually([&] { return journal.recorded().size() == 2; }));
    const auto judged = proxy.count("eth_getTransactionCount");
    REQUIRE(eventually([&] { return proxy.count("eth_getTransactionCount") >= judged + 2; }));
    const auto versions = journal.recorded();
    CHECK(versions.size() == 2);
    proxy.pass("eth_sendRawTransaction");
    (void)node_rpc(chain, "evm_mine");
    const auto receipt = mined.get();
    CHECK(receipt.transaction_hash == versions[0].hash);
    CHECK(journal.status(versions[1].hash) == chain::TxStatus::replaced);
}

// A caller whose deadline passes is told so while its transaction stays in
// flight; mined later, the listener hears it. A sender stopped after such a
// deadline does not answer that caller twice.
TEST_CASE("sender: a transaction past its caller's deadline is settled for the listener", "[sender][anvil]") {
    test::Anvil anvil;
    chain::ChainClient chain(settings_for(anvil.url(), anvil.chain_id()));
    (void)node_rpc(chain, "evm_setAutomine", {false});
    RecordingJournal journal;
    chain::TxSender sender(chain, std::make_shared<eth::PrivateKey>(dev_key(1)), quick(journal));
    std::promise<chain::Unwaited> heard;
    sender.on_unwaited([&](const chain::Unwaited& fate) { heard.set_value(fate); });
    const auto timed_out = [&](std::future<chain::Receipt> waiting) {
        try {
            (void)waiting.get();
            return false;
        } catch (const Error& e) {
            CHECK_THAT(e.what(), Catch::Contains("still pending"));
            return e.kind() == ErrorKind::timeout;
        }
    };
    CHECK(timed_out(sender.submit(transfer("late", 300ms))));
    CHECK(sender.in_flight() == 1);
    (void)node_rpc(chain, "evm_mine");
    const auto fate = heard.get_future().get();
    CHECK(fate.purpose == "late");
    CHECK(fate.status == chain::TxStatus::mined);

    auto stopped = std::make_unique<chain::TxSender>(chain, std::make_shared<eth::PrivateKey>(dev_key(2)), quick(journal));
    CHECK(timed_out(stopped->submit(transfer("late, then stopped", 300ms))));
    CHECK(stopped->in_flight() == 1);
    stopped.reset();
}

// A journaled transaction of a signer drained while the server was down: the
// node refuses it for funds. Nobody waits for it and its nonce cannot be
// given back (later ones may exist), so a 0-value transfer is to take the
// nonce, which the node refuses too until the signer is funded; then it is
// mined and the adopted transaction is settled as replaced.
TEST_CASE("sender: an adopted transaction of a drained signer keeps its nonce filled until funds arrive",
          "[sender][anvil]") {
    test::Anvil anvil;
    chain::ChainClient chain(settings_for(anvil.url(), anvil.chain_id()));
    auto key = eth::PrivateKey::generate();
    const auto address = key.address();
    const auto signed_tx = sign_transfer(chain, key, 0, chain.fee_tiers().standard);
    RecordingJournal journal;
    chain::TxSender sender(chain, std::make_shared<eth::PrivateKey>(std::move(key)), quick(journal));
    std::promise<chain::Unwaited> heard;
    sender.on_unwaited([&](const chain::Unwaited& fate) { heard.set_value(fate); });
    const test::LogCapture log;
    sender.adopt({{signed_tx.hash, 0, signed_tx.raw, "drained"}});
    REQUIRE(eventually([&] { return journal.recorded().size() >= 1; }));
    // The filler is offered again and refused.
    REQUIRE(eventually([&] { return log.containing("the node refuses the transfer that fills").size() >= 2; }));
    CHECK(sender.in_flight() == 1);
    CHECK(chain.pending_nonce(address) == 0);
    (void)node_rpc(chain, "anvil_setBalance", {address.checksummed(), "0xde0b6b3a7640000"});
    const auto fate = heard.get_future().get();
    CHECK(fate.purpose == "drained");
    CHECK(fate.status == chain::TxStatus::replaced);
    REQUIRE(eventually([&] { return sender.in_flight() == 0; }));
    CHECK(chain.latest_nonce(address) == 1);
    const auto filler = journal.recorded().back();
    CHECK(filler.purpose == "filler");
    CHECK(journal.status(filler.hash) == chain::TxStatus::mined);
}

// Bytes in the journal that are not a transaction (a damaged disk, or a bug):
// the node refuses them, and the nonce they held is taken by a 0-value
// transfer at the chain's current fees, so that nothing after it waits.
TEST_CASE("sender: a journaled transaction whose bytes do not decode has its nonce filled", "[sender][anvil]") {
    test::Anvil anvil;
    chain::ChainClient chain(settings_for(anvil.url(), anvil.chain_id()));
    RecordingJournal journal;
    chain::TxSender sender(chain, std::make_shared<eth::PrivateKey>(dev_key(1)), quick(journal));
    std::promise<chain::Unwaited> heard;
    sender.on_unwaited([&](const chain::Unwaited& fate) { heard.set_value(fate); });
    const eth::Bytes damaged{0x02, 0xf8, 0x6c, 0x00, 0x01};
    const auto hash = eth::keccak256(damaged);
    sender.adopt({{hash, 0, damaged, "damaged"}});
    const auto fate = heard.get_future().get();
    CHECK(fate.purpose == "damaged");
    CHECK(fate.status == chain::TxStatus::replaced);
    CHECK(chain.latest_nonce(sender.address()) == 1);
    CHECK(journal.recorded().back().purpose == "filler");
    CHECK(sender.submit(transfer("after the filler")).get().nonce == 1);
}

// Nodes that do not queue a transaction ahead of the account's nonce answer
// "nonce too high"; the same bytes are offered again until the node takes them.
TEST_CASE("sender: a transaction a node refuses as nonce too high is offered again unchanged", "[sender][anvil]") {
    test::Anvil anvil;
    test::MethodCountingProxy proxy(anvil.port(), {});
    chain::ChainClient chain(settings_for(proxy.url(), anvil.chain_id()));
    proxy.refuse("eth_sendRawTransaction", -32000, "nonce too high");
    RecordingJournal journal;
    chain::TxSender sender(chain, std::make_shared<eth::PrivateKey>(dev_key(1)), quick(journal));
    auto mined = sender.submit(transfer("too high at first"));
    REQUIRE(eventually([&] { return proxy.count("eth_sendRawTransaction") >= 3; }));
    proxy.pass("eth_sendRawTransaction");
    const auto receipt = mined.get();
    REQUIRE(journal.recorded().size() == 1);
    CHECK(journal.recorded()[0].hash == receipt.transaction_hash);
}

// A chain that lost the blocks past a mined transaction (rolled back below
// it, seen twice so that a lagging node is no reason) was reset: the
// transaction is gone with the old chain and its journal entry says dropped.
TEST_CASE("sender: a chain rolled back below a mined transaction settles it as dropped", "[sender][anvil][reset]") {
    test::Anvil anvil;
    chain::ChainClient chain(settings_for(anvil.url(), anvil.chain_id()));
    RecordingJournal journal;
    auto options = quick(journal);
    chain::TxSender sender(chain, std::make_shared<eth::PrivateKey>(dev_key(1)), options);
    const auto receipt = sender.submit(transfer("rolled back")).get();
    CHECK(journal.status(receipt.transaction_hash) == chain::TxStatus::mined);
    (void)node_rpc(chain, "anvil_rollback", {1});
    REQUIRE(eventually([&] { return journal.status(receipt.transaction_hash) == chain::TxStatus::dropped; }));
}

// A chain reset (another genesis block) soon after a transaction was mined,
// before the sender had looked at the settled chain even once, and a new
// chain as long as the old by the time it looks: the mined transaction's
// block is there under another hash, as after a deep reorg. Yet it must not
// be sent again as a reorg's would be: its chain is gone, and the new chain
// would mint it a second time, under a nonce a later transaction expects.
TEST_CASE("sender: a chain reset before the sender first looked is not taken for a reorg", "[sender][anvil][reset]") {
    test::Anvil anvil;
    chain::ChainClient chain(settings_for(anvil.url(), anvil.chain_id()));
    RecordingJournal journal;
    auto options = quick(journal);
    options.rebroadcast_after = 1500ms;  // the settled chain's check: not before the reset
    chain::TxSender sender(chain, std::make_shared<eth::PrivateKey>(dev_key(1)), options);
    const auto receipt = sender.submit(transfer("before the reset")).get();
    (void)node_rpc(chain, "anvil_reset");
    for (std::uint64_t block = 0; block <= receipt.block_number + 2; ++block) (void)node_rpc(chain, "evm_mine");
    REQUIRE(eventually([&] { return journal.status(receipt.transaction_hash) == chain::TxStatus::dropped; }));
    std::this_thread::sleep_for(options.rebroadcast_after * 2);
    CHECK(chain.pending_nonce(sender.address()) == 0);  // nothing sent again on the new chain
}

// The node comes back without its state (a devnet restarted): the chain's
// nonce is behind the sender's pending transaction, which can never be
// mined. Its caller is told at once; the nonces up to it are filled with
// 0-value transfers so that nothing later waits on a gap (also when the
// node cannot say its fees at that moment: the gap is filled at a later check).
TEST_CASE("sender: a chain reset under a waiting transaction fails it and fills the signer's nonces",
          "[sender][anvil][reset]") {
    const bool fees_unreadable = GENERATE(false, true);
    INFO("fees unreadable at the reset: " << fees_unreadable);
    test::Anvil anvil;
    test::MethodCountingProxy proxy(anvil.port(), {});
    chain::ChainClient chain(settings_for(proxy.url(), anvil.chain_id()));
    RecordingJournal journal;
    chain::TxSender sender(chain, std::make_shared<eth::PrivateKey>(dev_key(1)), quick(journal));
    for (int i = 0; i < 2; ++i) CHECK(sender.submit(transfer("before the reset")).get().success);
    (void)node_rpc(chain, "evm_setAutomine", {false});
    auto waiting = sender.submit(transfer("lost in the reset", 60s));
    REQUIRE(eventually([&] { return journal.recorded().size() == 3; }));
    const std::vector<std::string> fee_methods{"eth_feeHistory", "eth_maxPriorityFeePerGas", "eth_gasPrice"};
    if (fees_unreadable)
        for (const auto& method : fee_methods) proxy.refuse(method, -32603, "internal error");
    anvil.stop();
    REQUIRE(calls_seen(proxy, "eth_getTransactionByHash", 2));  // maintenance rounds meet the node down
    anvil.start();  // a new chain: the signer's nonce is 0 again
    try {
        (void)waiting.get();
        FAIL("a transaction of the old chain was mined on the new one");
    } catch (const chain::NeverMined&) {
        FAIL("a transaction that was sent is answered as never sent");
    } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::unavailable);
        CHECK_THAT(e.what(), Catch::Contains("the chain was reset"));
    }
    if (fees_unreadable) {
        REQUIRE(calls_seen(proxy, "eth_feeHistory", 2));  // checks that cannot fill the gap without fees
        CHECK(chain.latest_nonce(sender.address()) == 0);
        for (const auto& method : fee_methods) proxy.pass(method);
    }
    REQUIRE(eventually([&] { return chain.pending_nonce(sender.address()) == 3; }));
    (void)node_rpc(chain, "evm_mine");
    REQUIRE(eventually([&] { return sender.in_flight() == 0; }));
    CHECK(chain.latest_nonce(sender.address()) == 3);
}

// A value transfer from an account without funds: refused at once in one
// line that names the signer, its balance (when the node can say it) and the
// value, and its nonce given back.
TEST_CASE("sender: a value transfer the signer cannot pay for is refused naming the value", "[sender][anvil]") {
    const bool balance_unreadable = GENERATE(false, true);
    test::Anvil anvil;
    test::MethodCountingProxy proxy(anvil.port(), {});
    chain::ChainClient chain(settings_for(proxy.url(), anvil.chain_id()));
    if (balance_unreadable) proxy.refuse("eth_getBalance", -32603, "internal error");
    RecordingJournal journal;
    auto key = eth::PrivateKey::generate();
    const auto address = key.address();
    chain::TxSender sender(chain, std::make_shared<eth::PrivateKey>(std::move(key)), quick(journal));
    auto request = transfer("unfunded");
    request.value = eth::U256(1'000'000);
    try {
        (void)sender.submit(request).get();
        FAIL("an unfunded transfer was mined");
    } catch (const chain::NeverMined& e) {
        CHECK(e.kind() == ErrorKind::unavailable);
        CHECK_THAT(e.what(), Catch::Contains(address.checksummed()) &&
                                 Catch::Contains(balance_unreadable ? "has an unknown balance" : "has 0 wei") &&
                                 Catch::Contains("plus a value of 1000000 wei"));
    }
    REQUIRE(journal.recorded().size() == 1);
    CHECK(journal.status(journal.recorded()[0].hash) == chain::TxStatus::refused);
    CHECK(sender.in_flight() == 0);
}

// A node answering nonsense (a transaction count that is no number, a
// transaction or block that is no object, a block without a hash, a receipt
// that does not parse) proves nothing: the pending transaction is neither
// sent again nor replaced, the mined one is not taken for reorged, and once
// the node answers properly again everything settles as it should.
TEST_CASE("sender: answers that do not parse prove nothing about pending or mined transactions", "[sender][anvil]") {
    test::Anvil anvil;
    test::MethodCountingProxy proxy(anvil.port(), {});
    chain::ChainClient chain(settings_for(proxy.url(), anvil.chain_id()));
    const auto signer = dev_address(1);
    RecordingJournal journal;
    chain::TxSender sender(chain, std::make_shared<eth::PrivateKey>(dev_key(1)), quick(journal));
    const auto first = sender.submit(transfer("mined, then its block garbled")).get();
    (void)node_rpc(chain, "evm_setAutomine", {false});
    auto pending = sender.submit(transfer("pending among garbled answers"));
    REQUIRE(eventually([&] { return chain.pending_nonce(signer) == 2; }));

    proxy.answer("eth_getTransactionCount", "not a number", json{signer.checksummed(), "latest"});
    for (const json& garbled : {json("not an object"), json::object(), json{{"blockNumber", nullptr}}}) {
        INFO("eth_getTransactionByHash answers " << garbled.dump());
        proxy.answer("eth_getTransactionByHash", garbled);
        REQUIRE(calls_seen(proxy, "eth_getTransactionByHash"));
    }
    // A block that seems changed sends the sender to the receipts, which say the transaction did not move.
    proxy.answer("eth_getBlockByNumber", json::object());
    REQUIRE(calls_seen(proxy, "eth_getTransactionReceipt"));
    proxy.answer("eth_getTransactionReceipt", json{{"garbled", true}});
    for (const json& garbled : {json("not an object"), json{{"hash", 7}}}) {
        INFO("eth_getBlockByNumber answers " << garbled.dump());
        proxy.answer("eth_getBlockByNumber", garbled);
        REQUIRE(calls_seen(proxy, "eth_getBlockByNumber"));
    }
    // The receipts lost in transport, then each call failed with an error instead: no answer proves nothing either.
    proxy.fail_requests("eth_getTransactionReceipt");
    REQUIRE(calls_seen(proxy, "eth_getTransactionReceipt", 12));  // the receipt poller's calls too
    for (const auto* method : {"eth_getTransactionReceipt", "eth_getBlockByNumber", "eth_getTransactionByHash",
                               "eth_getTransactionCount"}) {
        INFO(method << " refused");
        proxy.refuse(method, -32603, "internal error");
        REQUIRE(calls_seen(proxy, method));
    }
    CHECK(journal.recorded().size() == 2);
    CHECK(journal.status(first.transaction_hash) == chain::TxStatus::mined);
    for (const auto* method : {"eth_getTransactionCount", "eth_getTransactionByHash", "eth_getTransactionReceipt",
                               "eth_getBlockByNumber"})
        proxy.pass(method);
    (void)node_rpc(chain, "evm_mine");
    const auto receipt = pending.get();
    CHECK(receipt.nonce == 1);
    CHECK(journal.recorded().size() == 2);
    CHECK(journal.status(first.transaction_hash) == chain::TxStatus::mined);
    CHECK(journal.status(receipt.transaction_hash) == chain::TxStatus::mined);
}

// The command line's sender (deploying a contract) keeps no journal and
// watches no reorgs: a transaction unmined too long is still replaced with
// higher fees, and the version the chain mines is the one answered.
TEST_CASE("sender: without a journal an unmined transaction is replaced and its mined version answered",
          "[sender][anvil][replace]") {
    test::Anvil anvil;
    test::MethodCountingProxy proxy(anvil.port(), {});
    chain::ChainClient chain(settings_for(proxy.url(), anvil.chain_id()));
    (void)node_rpc(chain, "evm_setAutomine", {false});
    const auto first = chain.fee_tiers().standard;
    RecordingJournal unused;
    auto options = quick(unused);
    options.journal = nullptr;
    options.reorg_watch_blocks = 0;
    options.replace_after = 200ms;
    chain::TxSender sender(chain, std::make_shared<eth::PrivateKey>(dev_key(1)), options);
    auto mined = sender.submit(transfer("unjournaled"));
    REQUIRE(eventually([&] { return proxy.count("eth_sendRawTransaction") >= 3; }));  // two replacements
    (void)node_rpc(chain, "evm_mine");
    const auto receipt = mined.get();
    CHECK(receipt.nonce == 0);
    const auto tx = node_rpc(chain, "eth_getTransactionByHash", {eth::to_hex(receipt.transaction_hash)});
    CHECK(rpc::quantity_to_u256(tx["maxFeePerGas"], "maxFeePerGas") > first.max_fee_per_gas);
    CHECK(chain.latest_nonce(sender.address()) == 1);
    CHECK(unused.recorded().empty());
}

// The caller stopped waiting (its deadline passed); then the node forgets
// the transaction and refuses it when it is sent again. Nobody is waiting to
// be told, so the listener hears of it: refused for want of funds, the nonce
// is given back and the transaction settled refused; refused for anything
// else, the nonce is filled and the transaction settled replaced once the
// filler is mined.
TEST_CASE("sender: a transaction refused after its caller stopped waiting is settled for the listener",
          "[sender][anvil]") {
    const bool for_funds = GENERATE(false, true);
    INFO("refused for want of funds: " << for_funds);
    test::Anvil anvil;
    test::MethodCountingProxy proxy(anvil.port(), {});
    chain::ChainClient chain(settings_for(proxy.url(), anvil.chain_id()));
    (void)node_rpc(chain, "evm_setAutomine", {false});
    RecordingJournal journal;
    chain::TxSender sender(chain, std::make_shared<eth::PrivateKey>(dev_key(1)), quick(journal));
    std::promise<chain::Unwaited> heard;
    sender.on_unwaited([&](const chain::Unwaited& fate) {
        if (fate.purpose == "given up on") heard.set_value(fate);
    });
    auto waiting = sender.submit(transfer("given up on", 300ms));
    try {
        (void)waiting.get();
        FAIL("an unmined transaction was answered as mined");
    } catch (const chain::NeverMined&) {
        FAIL("a transaction that was sent is answered as never sent");
    } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::timeout);
    }
    proxy.answer("eth_getTransactionByHash", nullptr);
    proxy.refuse("eth_sendRawTransaction", -32000,
                 for_funds ? "insufficient funds for gas * price + value" : "invalid transaction");
    if (for_funds) {
        const auto fate = heard.get_future().get();
        CHECK(fate.status == chain::TxStatus::refused);
        CHECK(journal.status(journal.recorded()[0].hash) == chain::TxStatus::refused);
        CHECK(sender.in_flight() == 0);
        return;
    }
    REQUIRE(eventually([&] { return journal.recorded().size() >= 2; }));
    proxy.pass("eth_getTransactionByHash");
    proxy.pass("eth_sendRawTransaction");
    // Mined once a filler, at higher fees, has taken the first version's place in the node's pool.
    REQUIRE(eventually([&] {
        return !node_rpc(chain, "eth_getTransactionByHash", {eth::to_hex(journal.recorded().back().hash)}).is_null();
    }));
    (void)node_rpc(chain, "evm_mine");
    const auto fate = heard.get_future().get();
    CHECK(fate.status == chain::TxStatus::replaced);
    REQUIRE(eventually([&] { return sender.in_flight() == 0; }));
    CHECK(journal.status(journal.recorded()[0].hash) == chain::TxStatus::replaced);
    CHECK(chain.latest_nonce(sender.address()) == 1);
}

// Stopped (the server shutting down) while an adopted transaction is still
// unmined: nothing waits for it, and its journal entry stays unsettled for
// the next start to adopt again.
TEST_CASE("sender: a sender stopped with an adopted transaction pending leaves it unsettled", "[sender][anvil]") {
    test::Anvil anvil;
    chain::ChainClient chain(settings_for(anvil.url(), anvil.chain_id()));
    (void)node_rpc(chain, "evm_setAutomine", {false});
    auto key = dev_key(1);
    const auto signed_tx = sign_transfer(chain, key, 0, chain.fee_tiers().standard);
    RecordingJournal journal;
    {
        chain::TxSender sender(chain, std::make_shared<eth::PrivateKey>(std::move(key)), quick(journal));
        sender.adopt({{signed_tx.hash, 0, signed_tx.raw, "adopted, unmined at the stop"}});
        REQUIRE(eventually([&] { return chain.pending_nonce(dev_address(1)) == 1; }));
    }
    CHECK_FALSE(journal.status(signed_tx.hash));
    (void)node_rpc(chain, "evm_mine");
    CHECK(chain.latest_nonce(dev_address(1)) == 1);
}

// A node that refuses to estimate for a signer that cannot pay, and cannot
// say its fees either: the refusal still names the signer and says what to do.
TEST_CASE("sender: an estimate refused for want of funds while fees are unreadable names the signer",
          "[sender][anvil]") {
    test::Anvil anvil;
    test::MethodCountingProxy proxy(anvil.port(), {});
    chain::ChainClient chain(settings_for(proxy.url(), anvil.chain_id()));
    RecordingJournal journal;
    chain::TxSender sender(chain, std::make_shared<eth::PrivateKey>(dev_key(1)), quick(journal));
    proxy.refuse("eth_estimateGas", -32003, "insufficient funds for gas * price + value");
    for (const auto* method : {"eth_feeHistory", "eth_maxPriorityFeePerGas", "eth_gasPrice"})
        proxy.refuse(method, -32603, "internal error");
    auto request = transfer("estimated");
    request.gas_limit.reset();  // estimated by the node
    request.value = eth::U256(5);
    try {
        (void)sender.submit(request);
        FAIL("an estimate refused for want of funds was taken");
    } catch (const chain::NeverMined& e) {
        CHECK(e.kind() == ErrorKind::unavailable);
        CHECK_THAT(e.what(), Catch::Contains(dev_address(1).checksummed()) &&
                                 Catch::Contains("its gas plus a value of 5 wei") &&
                                 !Catch::Contains("per gas") && Catch::Contains("fund the signer"));
    }
    CHECK(journal.recorded().empty());
}

}  // namespace abci::sender_tests
