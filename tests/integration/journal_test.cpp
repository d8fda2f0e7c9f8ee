// The transaction journal (DESIGN.md §4, durability) with every part real: a
// service::Registry over a SQLite store and an anvil with the token deployed.
// Each signed transaction is in the journal, byte for byte, before the node
// sees it and is settled with its fate; a refused one is dropped and its nonce
// filled; and AbciService::reconcile() finishes at start the mints a crash
// left journaled, whether they reached the chain or not.

#include <catch2/catch.hpp>

#include <SQLiteCpp/SQLiteCpp.h>

#include <map>
#include <set>
#include <thread>

#include "core/service/mint_record.hpp"
#include "core/service/registry.hpp"
#include "core/service/service.hpp"
#include "core/chain/token_contract.hpp"
#include "core/content/content_store.hpp"
#include "core/eth/keccak.hpp"
#include "core/eth/tx.hpp"
#include "core/metrics/registry.hpp"
#include "core/rpc/client.hpp"
#include "core/rpc/quantity.hpp"
#include "core/store/store.hpp"
#include "support/anvil.hpp"
#include "support/chain_node.hpp"
#include "support/cli_runner.hpp"
#include "support/eventually.hpp"
#include "support/log_capture.hpp"
#include "support/method_counting_proxy.hpp"
#include "support/tools.hpp"

namespace abci::journal_tests {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

constexpr const char* kChain = "devnet";
constexpr const char* kEntityRoute = "POST /abci/contracts/mint-entity-token";
constexpr const char* kActor = "user-1";  // the caller whose mints the crash interrupted
constexpr std::uint64_t kReportToken = 1000, kCertificateToken = 1300;

eth::Bytes bytes_of(std::string_view text) { return {text.begin(), text.end()}; }

// A server's chain side without its HTTP front: store, content, registry, service.
using Node = test::ChainNode;

// `rpc_timeout`: how long a JSON-RPC call (retries included) may take;
// `proxied`: the registry reaches anvil through a method-counting proxy.
test::ChainNode::Options node_options(test::Anvil::Options anvil, std::chrono::milliseconds rpc_timeout = 30s,
                                      bool proxied = false) {
    return {.anvil = std::move(anvil), .rpc_timeout = rpc_timeout, .proxied = proxied};
}

using test::eventually;

// The journal entry of `hash` matches the transaction the chain has under that
// hash, byte for byte: keccak256(raw) is the hash, cast returns the same raw
// bytes, and they decode to our signer, `nonce` and the call to `to`.
void require_journaled_exactly(const Node& node, const store::JournalEntry& entry, std::uint64_t nonce,
                               const std::optional<eth::Address>& to) {
    INFO(entry.hash << " " << entry.raw);
    const auto raw = eth::from_hex(entry.raw, "journaled raw");
    CHECK(eth::to_hex(eth::keccak256(raw)) == entry.hash);
    CHECK(node.cast_rpc({"tx", entry.hash, "--raw"}) == entry.raw);
    const auto decoded = eth::decode_transaction(raw);
    CHECK(decoded.from.lower() == node.signer());
    CHECK(decoded.tx.nonce == nonce);
    CHECK(decoded.tx.to == to);
    CHECK(entry.nonce == nonce);
    CHECK(entry.sender == node.signer());
    CHECK(entry.blockchain_id == kChain);
}

// The record the service journals with an entity mint.
json entity_mint_purpose(const eth::Address& to, const std::string& entity_id, const std::string& cid,
                         const std::string& key) {
    service::MintRecord record;
    record.mint_id = "mint-" + key;
    record.kind = store::MintKind::entity;
    record.to = to;
    record.token_id = kCertificateToken;
    record.amount = 1;
    record.cid = cid;
    record.entity_type = "certificate";
    record.entity_id = entity_id;
    record.actor = kActor;
    record.key = key;
    return record.to_json();
}

// The mint the service records for an entity mint by kActor with Idempotency-Key `key`.
store::MintRequest entity_mint_request(const std::string& key) {
    store::MintRequest mint;
    mint.id = "mint-" + key;
    mint.actor = kActor;
    mint.kind = store::MintKind::entity;
    mint.blockchain_id = kChain;
    mint.idempotency_key = key;
    mint.fingerprint = "fingerprint-" + key;
    return mint;
}

// A pending entity mint claimed with Idempotency-Key `key`, its metadata stored; the metadata's cid.
std::string claim_entity_mint(Node& node, const std::string& key) {
    const auto cid = node.content->put(bytes_of(json{{"name", "Certificate " + key}}.dump())).to_string();
    REQUIRE_FALSE(node.store->mints().begin(entity_mint_request(key)));
    return cid;
}

// The entity mint `record` as journaled before mints had ids: no mint id,
// no version, its route where the kind is now.
json legacy_record(json record) {
    record.erase("mintId");
    record.erase("version");
    record.erase("kind");
    record["route"] = kEntityRoute;
    return record;
}

// Where a crash interrupted a mint, after the service had stored the metadata,
// recorded the mint with its Idempotency-Key and journaled the signed mint (linked to it).
enum class CrashAfter {
    journal,      // nothing was sent
    broadcast,    // the node has it (mined: anvil automines); the journal still says pending
    settle,       // the journal says mined; none of the bookkeeping happened
    bookkeeping,  // also the balance and the entity were recorded; the claim was not answered yet
};

struct CrashedMint {
    std::string entity_id, key, cid, hash;
    eth::Bytes metadata;
};

// Signs a call of the token with `calldata` and `nonce` and journals it with
// `purpose`, linked to `mint_id`, as the sender does before broadcast.
store::JournalEntry journal_signed(Node& node, std::uint64_t nonce, const chain::Fees& fees, eth::Bytes calldata,
                                   const json& purpose, const std::string& mint_id) {
    eth::Transaction tx;
    tx.chain_id = node.anvil.chain_id();
    tx.nonce = nonce;
    tx.max_fee_per_gas = fees.max_fee_per_gas;
    tx.max_priority_fee_per_gas = fees.max_priority_fee_per_gas;
    tx.gas_limit = 500'000;  // given: a call that reverts is not refused by an estimate
    tx.to = node.network.contract().address();
    tx.data = std::move(calldata);
    const auto signed_tx = eth::sign_transaction(tx, *node.key);
    store::JournalEntry entry;
    entry.hash = eth::to_hex(signed_tx.hash);
    entry.blockchain_id = kChain;
    entry.sender = node.signer();
    entry.nonce = nonce;
    entry.raw = eth::to_hex(signed_tx.raw);
    entry.purpose = purpose.dump();
    entry.mint_ids = {mint_id};
    node.store->journal().add({entry});
    return entry;
}

// Sends a journaled transaction (anvil mines it at once); its block, once its
// receipt shows `status` ("0x1" or "0x0").
std::uint64_t publish(Node& node, const store::JournalEntry& entry, const std::string& status) {
    REQUIRE(node.cast_rpc({"publish", "--async", entry.raw}) == entry.hash);
    const auto receipt = json::parse(node.cast_rpc({"receipt", entry.hash, "--json"}));
    REQUIRE(receipt["status"] == status);
    return rpc::quantity_to_u64(receipt["blockNumber"], "block");
}

// Leaves a certificate mint of `recipient` with `nonce` as a crash after `stage` would.
CrashedMint crash_mint(Node& node, const eth::Address& recipient, std::uint64_t nonce, const chain::Fees& fees,
                       CrashAfter stage, const std::string& name) {
    CrashedMint c{name, "key-" + name, "", "", bytes_of(json{{"name", "Certificate " + name}}.dump())};
    c.cid = node.content->put(c.metadata).to_string();
    REQUIRE_FALSE(node.store->mints().begin(entity_mint_request(c.key)));
    const auto calldata = chain::TokenContract::mint_calldata(recipient, kCertificateToken, 1, bytes_of(c.cid));
    const auto purpose = entity_mint_purpose(recipient, c.entity_id, c.cid, c.key);
    const auto entry = journal_signed(node, nonce, fees, calldata, purpose, entity_mint_request(c.key).id);
    c.hash = entry.hash;
    if (stage == CrashAfter::journal) return c;

    const auto block = publish(node, entry, "0x1");
    if (stage == CrashAfter::broadcast) return c;

    node.store->journal().settle({{c.hash, chain::TxStatus::mined, block}});
    if (stage == CrashAfter::settle) return c;

    // What AbciService::finish() records before it answers the claim.
    store::MintRecord mint;
    mint.blockchain_id = kChain;
    mint.address = recipient.lower();
    mint.token_id = kCertificateToken;
    mint.amount = "1";
    mint.token_type = "entity";
    mint.category = "certificate";
    mint.tx_hash = c.hash;
    mint.block_number = block;
    mint.time = std::chrono::system_clock::now();
    node.store->tokens().record_mint(mint);
    store::Entity entity;
    entity.blockchain_id = kChain;
    entity.entity_type = "certificate";
    entity.entity_id = c.entity_id;
    entity.token_id = kCertificateToken;
    entity.recipient = recipient.lower();
    entity.amount = 1;
    entity.cid = c.cid;
    entity.metadata = std::string(c.metadata.begin(), c.metadata.end());
    entity.tx_hash = c.hash;
    entity.block_number = block;
    (void)node.store->entities().record(entity);
    return c;
}

// After reconcile(): `c` is mined once with its journaled bytes, its entity
// recorded once, and its mint answered for a retry to replay.
void require_finished(const Node& node, const CrashedMint& c, const eth::Address& recipient) {
    INFO(c.entity_id);
    const auto entry = node.store->journal().find(c.hash);
    REQUIRE(entry);
    CHECK(entry->status == chain::TxStatus::mined);
    const auto receipt = json::parse(node.cast_rpc({"receipt", c.hash, "--json"}));
    CHECK(receipt["status"] == "0x1");
    CHECK(receipt["blockNumber"] == rpc::to_quantity(entry->block_number));
    require_journaled_exactly(node, *entry, entry->nonce, node.network.contract().address());

    const auto entity = node.store->entities().find(kChain, kCertificateToken, c.entity_id);
    REQUIRE(entity);
    CHECK(entity->entity_type == "certificate");
    CHECK(entity->recipient == recipient.lower());
    CHECK(entity->amount == 1);
    CHECK(entity->cid == c.cid);
    CHECK(entity->metadata == std::string(c.metadata.begin(), c.metadata.end()));
    CHECK(entity->tx_hash == c.hash);
    CHECK(entity->block_number == entry->block_number);
    CHECK(node.entities_of(c.hash) == 1);

    const auto answered = node.store->mints().begin(entity_mint_request(c.key));
    REQUIRE(answered);
    CHECK(answered->state == store::MintState::done);
    const auto answer = service::MintResult::parse(answered->answer);
    CHECK(answer.transaction_hash == c.hash);
    CHECK(answer.entity_id == c.entity_id);
    CHECK(answer.cid == c.cid);
}

}  // namespace

TEST_CASE("journal: a mint is journaled with its exact bytes before broadcast and settled mined", "[journal][anvil]") {
    Node node;
    auto& sender = node.sender();
    const auto to = eth::Address::parse(test::Anvil::dev_accounts()[3].address);
    const auto nonce = sender.chain().pending_nonce(sender.address());
    const std::string purpose = R"({"op":"test","what":"journal of a mint"})";

    const auto receipt = node.network.contract().mint(sender, to, kReportToken, 5, bytes_of("bafkreitest"), purpose).get();
    REQUIRE(receipt.success);
    const auto hash = eth::to_hex(receipt.transaction_hash);
    // Settled before the caller hears of the receipt: nothing to wait for.
    const auto entry = node.store->journal().find(hash);
    REQUIRE(entry);
    CHECK(entry->status == chain::TxStatus::mined);
    CHECK(entry->block_number == receipt.block_number);
    CHECK(entry->purpose == purpose);
    CHECK(receipt.nonce == nonce);
    require_journaled_exactly(node, *entry, nonce, node.network.contract().address());
    CHECK(eth::decode_transaction(eth::from_hex(entry->raw, "raw")).tx.data ==
          chain::TokenContract::mint_calldata(to, kReportToken, 5, bytes_of("bafkreitest")));
    CHECK(node.journaled(purpose) == std::vector<std::string>{hash});
    CHECK(node.store->journal().pending(kChain).empty());
    CHECK(node.network.contract().balance_of(to, kReportToken) == eth::U256(5));
}

TEST_CASE("journal: the mints of one block are settled together, before any caller hears of them",
          "[journal][anvil]") {
    Node node(node_options({.block_time = 1000ms}));
    auto& sender = node.sender();
    const std::string purpose = R"({"op":"test","what":"a block of mints"})";
    std::vector<std::future<chain::Receipt>> mints;
    for (int i = 0; i < 20; ++i)
        mints.push_back(node.network.contract().mint(sender, eth::Address::parse(test::Anvil::dev_accounts()[3].address),
                                                     kReportToken, 1, {}, purpose));
    std::map<std::uint64_t, int> per_block;
    for (auto& m : mints) {
        const auto receipt = m.get();
        REQUIRE(receipt.success);
        ++per_block[receipt.block_number];
        // Settled when its caller hears of it.
        CHECK(node.store->journal().find(eth::to_hex(receipt.transaction_hash))->status == chain::TxStatus::mined);
    }
    // One journal write per poller round: the entries of a block share the time of their settling.
    std::map<std::uint64_t, std::set<std::int64_t>> settled_at;
    auto db = node.database();
    SQLite::Statement query(db, "SELECT block_number, updated_at FROM tx_journal WHERE purpose = ?");
    query.bind(1, purpose);
    while (query.executeStep()) settled_at[query.getColumn(0).getInt64()].insert(query.getColumn(1).getInt64());
    REQUIRE(settled_at.size() == per_block.size());
    for (const auto& [block, times] : settled_at) {
        INFO("block " << block << " holds " << per_block[block] << " of the mints");
        CHECK(times.size() == 1);
    }
}

TEST_CASE("journal: a transaction the node refuses is replaced by a filler that keeps its nonce", "[journal][anvil]") {
    Node node;
    auto& sender = node.sender();
    const auto nonce = sender.chain().pending_nonce(sender.address());
    const std::string purpose = R"({"op":"test","what":"more gas than a block holds"})";

    // Gas is given, so nothing is estimated: the node itself refuses it at broadcast.
    chain::TxRequest request;
    request.to = eth::Address::parse(test::Anvil::dev_accounts()[4].address);
    request.gas_limit = 1'000'000'000;  // anvil's blocks hold 30 million
    request.purpose = purpose;
    auto refused = sender.submit(request);
    CHECK_THROWS_AS(refused.get(), chain::NeverMined);

    // The refused transaction was journaled (so it was never broadcast unrecorded);
    // once the filler with its nonce is mined, it is settled as replaced.
    const auto hashes = node.journaled(purpose);
    REQUIRE(hashes.size() == 1);
    REQUIRE(eventually([&] { return node.store->journal().find(hashes[0])->status == chain::TxStatus::replaced; }));
    const auto replaced = node.store->journal().find(hashes[0]);
    CHECK(replaced->nonce == nonce);
    CHECK(replaced->block_number == 0);
    CHECK(replaced->purpose == purpose);
    CHECK(eth::to_hex(eth::keccak256(eth::from_hex(replaced->raw, "raw"))) == replaced->hash);
    CHECK(node.network.client().rpc().call("eth_getTransactionByHash", json::array({hashes[0]})).is_null());

    // Its nonce went to a 0-value transfer to ourselves, journaled as a filler and mined.
    REQUIRE(eventually([&] { return sender.chain().pending_nonce(sender.address()) == nonce + 1 && sender.in_flight() == 0; }));
    std::optional<store::JournalEntry> filler;
    for (const auto& hash : node.journaled("filler"))
        if (auto entry = node.store->journal().find(hash); entry && entry->nonce == nonce) filler = entry;
    REQUIRE(filler);
    CHECK(filler->status == chain::TxStatus::mined);
    CHECK(filler->block_number > 0);
    require_journaled_exactly(node, *filler, nonce, sender.address());
    CHECK(eth::decode_transaction(eth::from_hex(filler->raw, "raw")).tx.value == eth::U256(0));
    CHECK(node.store->journal().pending(kChain).empty());

    // No gap: the next transaction takes the following nonce.
    const auto next = node.network.contract().mint(sender, request.to.value(), kReportToken, 1, {}, "after").get();
    CHECK(next.nonce == nonce + 1);
    CHECK(node.store->journal().find(eth::to_hex(next.transaction_hash))->status == chain::TxStatus::mined);
}

// Issue 12, defect 6: an unfunded signer made broadcast() and fill() call each
// other until the stack was gone. Now the refusal names the signer, its
// balance and what the transaction needs, and its nonce goes to the next one.
TEST_CASE("journal: a transaction the signer cannot pay for is refused in one line and gives its nonce back",
          "[journal][anvil]") {
    Node node;
    auto& sender = node.sender();
    const auto nonce = sender.chain().pending_nonce(sender.address());
    const std::string purpose = R"({"op":"test","what":"more value than the account holds"})";

    chain::TxRequest request;
    request.to = eth::Address::parse(test::Anvil::dev_accounts()[4].address);
    request.value = eth::U256::parse("1000000000000000000000000000");  // 10^27 wei; the account has 10^22
    request.gas_limit = 21'000;
    request.purpose = purpose;
    auto refused = sender.submit(request);
    try {
        (void)refused.get();
        FAIL("an unpayable transaction was accepted");
    } catch (const chain::NeverMined& e) {
        CHECK(e.kind() == ErrorKind::unavailable);
        const std::string message = e.what();
        INFO(message);
        CHECK(message.find(sender.address().checksummed()) != std::string::npos);
        CHECK(message.find(" wei but this transaction needs up to ") != std::string::npos);
        CHECK(message.find("fund the signer") != std::string::npos);
    }
    const auto hashes = node.journaled(purpose);
    REQUIRE(hashes.size() == 1);
    CHECK(node.store->journal().find(hashes[0])->status == chain::TxStatus::refused);
    CHECK(sender.in_flight() == 0);
    CHECK(node.journaled("filler").empty());

    // A burst the node refuses as a whole gives every nonce back.
    std::vector<std::future<chain::Receipt>> burst;
    for (int i = 0; i < 5; ++i) burst.push_back(sender.submit(request));
    for (auto& f : burst) CHECK_THROWS_AS(f.get(), chain::NeverMined);
    REQUIRE(eventually([&] { return sender.in_flight() == 0; }));

    // The next transaction takes the nonce nothing consumed.
    const auto next = node.network.contract().mint(sender, request.to.value(), kReportToken, 1, {}, "after").get();
    CHECK(next.nonce == nonce);
    CHECK(node.journaled("filler").empty());
}

TEST_CASE("journal: reconcile() at start finishes mints a crash left journaled, sent or settled", "[journal][anvil]") {
    Node node;
    auto& client = node.network.client();
    const auto recipient = eth::Address::parse(test::Anvil::dev_accounts()[5].address);
    const auto first_nonce = client.pending_nonce(node.key->address());
    const auto fees = client.fee_tiers().standard;
    std::vector<CrashedMint> crashed;
    for (const auto& [stage, name] : {std::pair{CrashAfter::broadcast, "crash-after-broadcast"},
                                      std::pair{CrashAfter::settle, "crash-after-settle"},
                                      std::pair{CrashAfter::journal, "crash-after-journal"}})
        crashed.push_back(crash_mint(node, recipient, first_nonce + crashed.size(), fees, stage, name));
    CHECK(client.pending_nonce(node.key->address()) == first_nonce + 2);
    CHECK(node.store->journal().pending(kChain).size() == 2);
    CHECK(node.store->mints().pending().size() == 3);
    CHECK_FALSE(node.store->tokens().find_balance(kChain, recipient.lower(), kCertificateToken));

    auto& abci = node.service();
    abci.reconcile();
    REQUIRE(eventually([&] { return node.store->mints().pending().empty(); }));

    // All three on chain exactly once, with the journaled bytes, and recorded once.
    CHECK(node.network.contract().balance_of(recipient, kCertificateToken) == eth::U256(3));
    CHECK(client.pending_nonce(node.key->address()) == first_nonce + 3);
    CHECK(node.store->journal().pending(kChain).empty());
    for (const auto& c : crashed) require_finished(node, c, recipient);
    const auto balance = node.store->tokens().find_balance(kChain, recipient.lower(), kCertificateToken);
    REQUIRE(balance);
    CHECK(balance->balance == "3");

    // A second start finds nothing to do.
    abci.reconcile();
    CHECK(client.pending_nonce(node.key->address()) == first_nonce + 3);
    CHECK(node.store->tokens().find_balance(kChain, recipient.lower(), kCertificateToken)->balance == "3");
    for (const auto& c : crashed) CHECK(node.entities_of(c.hash) == 1);
}

// finish() may run again at start for a mined mint that was not answered:
// every record it writes is idempotent per transaction.
TEST_CASE("journal: reconcile() after a crash in the middle of a mint's bookkeeping records it once",
          "[journal][anvil]") {
    Node node;
    auto& client = node.network.client();
    const auto recipient = eth::Address::parse(test::Anvil::dev_accounts()[6].address);
    const auto c = crash_mint(node, recipient, client.pending_nonce(node.key->address()), client.fee_tiers().standard,
                              CrashAfter::bookkeeping, "crash-after-bookkeeping");
    auto& abci = node.service();
    abci.reconcile();
    REQUIRE(eventually([&] { return node.store->mints().pending().empty(); }));
    require_finished(node, c, recipient);
    CHECK(node.store->tokens().find_balance(kChain, recipient.lower(), kCertificateToken)->balance == "1");
}


// The node's head behind the block of a mined mint's receipt (a node behind
// its peers after a failover): reconcile() still finishes the mint, with one
// confirmation rather than a count that wraps around.
TEST_CASE("journal: reconcile() finishes a mined mint while the node's head lags behind its block", "[journal][anvil]") {
    Node node(node_options({}, 30s, true));
    auto& client = node.network.client();
    const auto recipient = eth::Address::parse(test::Anvil::dev_accounts()[6].address);
    const auto c = crash_mint(node, recipient, client.pending_nonce(node.key->address()), client.fee_tiers().standard,
                              CrashAfter::settle, "head-behind");
    node.proxy->answer("eth_blockNumber", "0x0");
    auto& abci = node.service();
    abci.reconcile();
    REQUIRE(eventually([&] { return node.store->mints().pending().empty(); }));
    require_finished(node, c, recipient);
}

// A batch journaled before mints had ids names each of its mints by caller,
// route and Idempotency-Key only: reconcile() finishes the one mint whose
// three all match, not another caller's with the same key nor another key's.
TEST_CASE("journal: reconcile() finds a mint in a batch journaled before mints had ids by caller, route and key",
          "[journal][anvil]") {
    Node node;
    auto& client = node.network.client();
    const auto recipient = eth::Address::parse(test::Anvil::dev_accounts()[7].address);
    const std::string key = "legacy-batch";
    const auto cid = claim_entity_mint(node, key);
    const auto legacy = [&](const std::string& actor, const std::string& route, const std::string& record_key) {
        auto record = legacy_record(entity_mint_purpose(recipient, "legacy-" + actor + "-" + record_key, cid, record_key));
        record["actor"] = actor;
        record["route"] = route;
        return record.dump();
    };
    const auto purpose = json::parse(service::combine_mint_records(
        {legacy("user-2", kEntityRoute, key), legacy(kActor, "POST /abci/contracts/mint-role-token", key),
         legacy(kActor, kEntityRoute, "another-key"), legacy(kActor, kEntityRoute, key)}));
    const auto calldata = eth::from_hex(
        test::cast({"calldata", "mintMany(address[],uint256[],uint256[],bytes[])",
                    "[" + recipient.lower() + "," + recipient.lower() + "," + recipient.lower() + "," +
                        recipient.lower() + "]",
                    "[1300,1300,1300,1300]", "[1,1,1,1]", "[0x,0x,0x," + eth::to_hex(bytes_of(cid)) + "]"}),
        "calldata");
    const auto entry = journal_signed(node, client.pending_nonce(node.key->address()), client.fee_tiers().standard,
                                      calldata, purpose, entity_mint_request(key).id);
    node.store->journal().settle({{entry.hash, chain::TxStatus::mined, publish(node, entry, "0x1")}});

    auto& abci = node.service();
    abci.reconcile();
    const auto mint = node.store->mints().find(entity_mint_request(key).id);
    REQUIRE(mint);
    INFO(mint->answer);
    CHECK(mint->state == store::MintState::done);
    CHECK(service::MintResult::parse(mint->answer).entity_id == "legacy-" + std::string(kActor) + "-" + key);
    CHECK(node.entities_of(entry.hash) == 1);
}

// A server started without the signer's key (read-only) after a crash:
// reconcile() releases the mint that sent nothing, and leaves the one with a
// journaled transaction pending for a server that can send it.
TEST_CASE("journal: reconcile() without a signer releases what sent nothing and leaves the journal to the signer",
          "[journal][anvil]") {
    Node node;
    auto& client = node.network.client();
    const auto recipient = eth::Address::parse(test::Anvil::dev_accounts()[6].address);
    const auto nonce = client.pending_nonce(node.key->address());
    const auto c = crash_mint(node, recipient, nonce, client.fee_tiers().standard, CrashAfter::journal,
                              "journaled-keyless");
    REQUIRE_FALSE(node.store->mints().begin(entity_mint_request("unsent-keyless")));
    metrics::Registry metrics;
    service::Registry keyless{{node.network.config()}, nullptr, *node.store, metrics};
    service::AbciService abci(*node.store, keyless, *node.content, "");
    abci.reconcile();
    CHECK(node.store->mints().find(entity_mint_request("unsent-keyless").id)->state == store::MintState::failed);
    CHECK(node.store->mints().find(entity_mint_request(c.key).id)->state == store::MintState::pending);
    CHECK(node.store->journal().find(c.hash)->status == chain::TxStatus::pending);
    CHECK(node.pending_nonce() == nonce);
}

// The store refuses to release a mint that sent nothing (a disk error): the
// claim stays pending and the failure is logged; the next start releases it.
TEST_CASE("journal: reconcile() leaves a mint pending when the store refuses its release, and the next start releases it",
          "[journal][anvil]") {
    Node node;
    REQUIRE_FALSE(node.store->mints().begin(entity_mint_request("release-refused")));
    const auto trigger = [&](const char* sql) {
        SQLite::Database db(node.dir / "abci.db", SQLite::OPEN_READWRITE);
        db.setBusyTimeout(5000);
        db.exec(sql);
    };
    trigger("CREATE TRIGGER refuse BEFORE UPDATE ON mint_requests BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END");
    auto& abci = node.service();
    {
        const test::LogCapture log;
        abci.reconcile();
        const auto logged = log.containing("releasing a mint that sent nothing failed");
        REQUIRE(logged.size() == 1);
        CHECK(logged[0].level == util::LogLevel::error);
        CHECK(logged[0].fields["mintId"] == entity_mint_request("release-refused").id);
        CHECK_THAT(logged[0].fields["error"].get<std::string>(), Catch::Contains("disk I/O error"));
    }
    CHECK(node.store->mints().find(entity_mint_request("release-refused").id)->state == store::MintState::pending);
    trigger("DROP TRIGGER refuse");
    abci.reconcile();
    CHECK(node.store->mints().find(entity_mint_request("release-refused").id)->state == store::MintState::failed);
}

// A transaction journaled before mints had ids, unsent at the crash: its
// sender sends and settles it, but its record names no mint id for the live
// bookkeeping, so the mint is finished by the next start's reconcile().
TEST_CASE("journal: a pending transaction journaled before mints had ids is finished by the next start",
          "[journal][anvil]") {
    Node node;
    auto& client = node.network.client();
    const auto recipient = eth::Address::parse(test::Anvil::dev_accounts()[8].address);
    const std::string key = "legacy-pending";
    const auto cid = claim_entity_mint(node, key);
    const auto purpose = legacy_record(entity_mint_purpose(recipient, key, cid, key));
    const auto entry = journal_signed(node, client.pending_nonce(node.key->address()), client.fee_tiers().standard,
                                      chain::TokenContract::mint_calldata(recipient, kCertificateToken, 1, bytes_of(cid)),
                                      purpose, entity_mint_request(key).id);
    auto& abci = node.service();
    abci.reconcile();
    REQUIRE(eventually([&] { return node.store->journal().find(entry.hash)->status == chain::TxStatus::mined; }));
    CHECK(node.store->mints().find(entity_mint_request(key).id)->state == store::MintState::pending);
    abci.reconcile();
    const auto mint = node.store->mints().find(entity_mint_request(key).id);
    CHECK(mint->state == store::MintState::done);
    CHECK(service::MintResult::parse(mint->answer).transaction_hash == entry.hash);
    CHECK(node.entities_of(entry.hash) == 1);
}

// A mint that went out in a batch that reverted (another of its mints was
// refused) and then alone, mined: what a crash after both were settled leaves.
// The batch is journaled first, the mint's own transaction after it.
TEST_CASE("journal: reconcile() of a mint whose batch reverted and whose own transaction was mined answers the mined "
          "one",
          "[journal][anvil]") {
    Node node;
    auto& client = node.network.client();
    const auto recipient = eth::Address::parse(test::Anvil::dev_accounts()[7].address);
    const auto other = eth::Address::parse(test::Anvil::dev_accounts()[8].address);
    const auto nonce = client.pending_nonce(node.key->address());
    const auto fees = client.fee_tiers().standard;
    const std::string key = "batch-then-alone";
    const auto cid = node.content->put(bytes_of(R"({"name":"Certificate batch-then-alone"})")).to_string();
    REQUIRE_FALSE(node.store->mints().begin(entity_mint_request(key)));
    const auto purpose = entity_mint_purpose(recipient, "batch-then-alone", cid, key);
    // Token id 7 does not exist: the contract reverts the whole batch.
    const auto batch_calldata = eth::from_hex(
        test::cast({"calldata", "mintMany(address[],uint256[],uint256[],bytes[])",
                    "[" + recipient.lower() + "," + other.lower() + "]", "[1300,7]", "[1,1]",
                    "[" + eth::to_hex(bytes_of(cid)) + ",0x]"}),
        "calldata");
    json refused = purpose;
    refused["mintId"] = "another-mint";
    const auto batch = journal_signed(node, nonce, fees, batch_calldata,
                                      json::parse(service::combine_mint_records({purpose.dump(), refused.dump()})),
                                      entity_mint_request(key).id);
    node.store->journal().settle({{batch.hash, chain::TxStatus::reverted, publish(node, batch, "0x0")}});
    const auto alone_calldata = chain::TokenContract::mint_calldata(recipient, kCertificateToken, 1, bytes_of(cid));
    const auto alone = journal_signed(node, nonce + 1, fees, alone_calldata, purpose, entity_mint_request(key).id);
    node.store->journal().settle({{alone.hash, chain::TxStatus::mined, publish(node, alone, "0x1")}});

    auto& abci = node.service();
    abci.reconcile();
    const auto answered = node.store->mints().begin(entity_mint_request(key));
    REQUIRE(answered);
    INFO(answered->answer);
    CHECK(answered->state == store::MintState::done);
    CHECK(service::MintResult::parse(answered->answer).transaction_hash == alone.hash);
    CHECK(node.entities_of(alone.hash) == 1);
    CHECK(node.network.contract().balance_of(recipient, kCertificateToken) == eth::U256(1));
}

// A mined mint journaled by a newer release (its record of a version this one
// does not read) is not settled by guesswork: reconcile() leaves it pending,
// its key claimed, for the release that wrote it.
TEST_CASE("journal: reconcile() leaves a mint pending whose record is of a newer version", "[journal][anvil]") {
    Node node;
    auto& client = node.network.client();
    const auto recipient = eth::Address::parse(test::Anvil::dev_accounts()[7].address);
    const std::string key = "newer-record";
    const auto cid = claim_entity_mint(node, key);
    auto purpose = entity_mint_purpose(recipient, key, cid, key);
    purpose["version"] = service::MintRecord::kVersion + 1;
    const auto entry = journal_signed(node, client.pending_nonce(node.key->address()), client.fee_tiers().standard,
                                      chain::TokenContract::mint_calldata(recipient, kCertificateToken, 1, bytes_of(cid)),
                                      purpose, entity_mint_request(key).id);
    node.store->journal().settle({{entry.hash, chain::TxStatus::mined, publish(node, entry, "0x1")}});

    auto& abci = node.service();
    abci.reconcile();
    const auto mint = node.store->mints().begin(entity_mint_request(key));
    REQUIRE(mint);
    CHECK(mint->state == store::MintState::pending);
    CHECK(node.entities_of(entry.hash) == 0);
}

// A journal that cannot take a write (a trigger of the test's refuses every
// insert): the signed transaction waits unsent, and goes out once it is journaled.
TEST_CASE("journal: a transaction whose journal write fails is not broadcast until the journal takes it",
          "[journal][anvil]") {
    Node node;
    auto& sender = node.sender();
    const auto nonce = node.pending_nonce();
    {
        SQLite::Database db(node.dir / "abci.db", SQLite::OPEN_READWRITE);
        db.exec("CREATE TRIGGER refuse BEFORE INSERT ON tx_journal BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END");
    }
    const std::string purpose = R"({"op":"test","what":"journaled late"})";
    const test::LogCapture log;
    auto mint = node.network.contract().mint(sender, eth::Address::parse(test::Anvil::dev_accounts()[3].address),
                                             kReportToken, 1, {}, purpose);
    // Past a maintenance round that tried again: still nothing on the node.
    REQUIRE(eventually([&] { return log.containing("journaling signed transactions failed").size() >= 2; }));
    CHECK(node.pending_nonce() == nonce);
    CHECK(node.journaled(purpose).empty());
    CHECK(sender.in_flight() == 1);
    {
        SQLite::Database db(node.dir / "abci.db", SQLite::OPEN_READWRITE);
        db.exec("DROP TRIGGER refuse");
    }
    const auto receipt = mint.get();
    CHECK(receipt.success);
    CHECK(receipt.nonce == nonce);
    const auto hashes = node.journaled(purpose);
    REQUIRE(hashes.size() == 1);
    CHECK(hashes[0] == eth::to_hex(receipt.transaction_hash));
    CHECK(node.store->journal().find(hashes[0])->status == chain::TxStatus::mined);
}

// Someone else's transaction takes the nonce of ours while it waits in the
// pool: the chain proves ours can never be mined (the nonce consumed, no
// receipt), so it is signed again with the next nonce for the same caller.
TEST_CASE("journal: a waiting transaction whose nonce someone else used is dropped and signed again with a new one",
          "[journal][anvil]") {
    Node node;
    auto& sender = node.sender();
    const auto nonce = node.pending_nonce();
    (void)node.anvil.rpc("evm_setAutomine", {false});
    const std::string purpose = R"({"op":"test","what":"nonce taken"})";
    auto mint = node.network.contract().mint(sender, eth::Address::parse(test::Anvil::dev_accounts()[3].address),
                                             kReportToken, 1, {}, purpose);
    REQUIRE(eventually([&] { return node.pending_nonce() == nonce + 1; }));
    node.send_foreign(nonce);  // replaces ours in the pool: a higher fee
    (void)node.anvil.rpc("evm_mine");
    (void)node.anvil.rpc("evm_setAutomine", {true});

    const auto receipt = mint.get();
    CHECK(receipt.success);
    CHECK(receipt.nonce == nonce + 1);
    const auto hashes = node.journaled(purpose);
    REQUIRE(hashes.size() == 2);
    CHECK(node.store->journal().find(hashes[0])->status == chain::TxStatus::dropped);
    CHECK(node.store->journal().find(hashes[0])->nonce == nonce);
    CHECK(hashes[1] == eth::to_hex(receipt.transaction_hash));
    CHECK(node.store->journal().find(hashes[1])->status == chain::TxStatus::mined);
    CHECK(node.network.contract().balance_of(eth::Address::parse(test::Anvil::dev_accounts()[3].address),
                                             kReportToken) == eth::U256(1));
}

// What a crash left journaled and unsent meets the chain at start: its nonce
// taken by someone else (the mint is released: nothing of it can be mined),
// or its call reverting (the mint fails for good).
TEST_CASE("journal: reconcile() releases a mint whose nonce someone else used and fails one that reverted",
          "[journal][anvil]") {
    Node node;
    auto& client = node.network.client();
    const auto nonce = node.pending_nonce();
    const auto fees = client.fee_tiers().standard;
    const auto recipient = eth::Address::parse(test::Anvil::dev_accounts()[9].address);
    const auto taken = crash_mint(node, recipient, nonce, fees, CrashAfter::journal, "nonce-taken");
    node.send_foreign(nonce);
    // Token id 7 does not exist: mined, and reverted.
    const std::string key = "reverts";
    REQUIRE_FALSE(node.store->mints().begin(entity_mint_request(key)));
    const auto reverting =
        journal_signed(node, nonce + 1, fees, chain::TokenContract::mint_calldata(recipient, 7, 1, bytes_of("bafk")),
                       entity_mint_purpose(recipient, key, "bafk", key), entity_mint_request(key).id);

    auto& abci = node.service();
    abci.reconcile();
    REQUIRE(eventually([&] { return node.store->mints().pending().empty(); }));
    CHECK(node.store->journal().find(taken.hash)->status == chain::TxStatus::dropped);
    CHECK(node.store->journal().find(reverting.hash)->status == chain::TxStatus::reverted);
    // The released key starts a new mint; the failed one replays its failure.
    auto retry = entity_mint_request(taken.key);
    retry.id += "-retry";
    CHECK_FALSE(node.store->mints().begin(retry));
    const auto failed = node.store->mints().begin(entity_mint_request(key));
    REQUIRE(failed);
    CHECK(failed->state == store::MintState::failed);
    INFO(failed->answer);
    CHECK(json::parse(failed->answer)["kind"] == "chain_rejected");
    CHECK(node.network.contract().balance_of(recipient, kCertificateToken) == eth::U256(0));
    CHECK(node.pending_nonce() == nonce + 2);
}

// The node unreachable when a transaction is to be signed: it waits in the
// queue, unsigned, until its deadline, and its caller learns that nothing was sent.
TEST_CASE("journal: a transaction that cannot be signed before its deadline is answered as never sent",
          "[journal][anvil]") {
    Node node(node_options({}, 300ms));
    auto& sender = node.sender();
    node.anvil.stop();
    chain::TxRequest request;
    request.to = eth::Address::parse(test::Anvil::dev_accounts()[4].address);
    request.gas_limit = 21'000;  // nothing to estimate: the caller is not refused at once
    request.timeout = 1s;
    request.purpose = R"({"op":"test","what":"node down"})";
    auto transfer = sender.submit(request);
    try {
        (void)transfer.get();
        FAIL("a transaction was mined with the node down");
    } catch (const chain::NeverMined& e) {
        CHECK(e.kind() == ErrorKind::timeout);
        CHECK(std::string(e.what()).find("not sent within 1 s") != std::string::npos);
    }
    CHECK(sender.in_flight() == 0);
    CHECK(node.journaled(request.purpose).empty());
}

// A reorg deeper than the confirmations that takes a mined transaction's
// block away, the same transaction mined again a block later: the sender,
// watching the blocks of what it mined, settles it anew with its new block.
TEST_CASE("journal: a mined transaction a reorg moves to a later block is settled again with its new block",
          "[journal][anvil]") {
    Node node;
    auto& sender = node.sender();
    const std::string purpose = R"({"op":"test","what":"moved by a reorg"})";
    const auto to = eth::Address::parse(test::Anvil::dev_accounts()[3].address);
    const auto receipt = node.network.contract().mint(sender, to, kReportToken, 1, {}, purpose).get();
    const auto hash = eth::to_hex(receipt.transaction_hash);
    const auto entry = node.store->journal().find(hash);
    REQUIRE(entry);
    REQUIRE(entry->block_number == receipt.block_number);
    // Its block gone, an empty one in its place, and the same bytes mined in the next.
    (void)node.anvil.rpc("anvil_rollback", {1});
    (void)node.anvil.rpc("evm_mine");
    REQUIRE(node.cast_rpc({"publish", "--async", entry->raw}) == hash);
    REQUIRE(eventually([&] {
        const auto now = node.store->journal().find(hash);
        return now->status == chain::TxStatus::mined && now->block_number == receipt.block_number + 1;
    }));
    CHECK(node.network.contract().balance_of(to, kReportToken) == eth::U256(1));
    CHECK(node.journaled(purpose) == std::vector<std::string>{hash});
}

// A sender that stops answers every caller still waiting: the one queued
// (the node down, nothing signed) as never mined, the one sent as unavailable.
TEST_CASE("journal: a sender that stops answers its waiting callers", "[journal][anvil]") {
    Node node;
    chain::ChainSettings settings;
    settings.chain_id = node.anvil.chain_id();
    settings.rpc_urls = {node.anvil.url()};
    settings.poll_interval = 50ms;
    settings.rpc.call_timeout = 300ms;
    settings.fee_cache_ttl = 1ms;  // a round with the node down cannot sign from cached fees
    chain::ChainClient client(settings);
    chain::TxRequest request;
    request.to = eth::Address::parse(test::Anvil::dev_accounts()[4].address);
    request.gas_limit = 21'000;
    std::future<chain::Receipt> sent, queued;
    {
        chain::TxSender sender(client, std::make_shared<eth::PrivateKey>(eth::PrivateKey::from_hex(test::Anvil::dev_accounts()[2].private_key)));
        (void)node.anvil.rpc("evm_setAutomine", {false});
        sent = sender.submit(request);
        REQUIRE(eventually([&] { return sender.in_flight() == 1; }));
        node.anvil.stop();
        queued = sender.submit(request);
        std::this_thread::sleep_for(200ms);  // taken from the queue, and put back: the node is down
    }
    CHECK_THROWS_AS(queued.get(), chain::NeverMined);
    try {
        (void)sent.get();
        FAIL("a transaction was mined with automine off and the node down");
    } catch (const chain::NeverMined&) {
        FAIL("the transaction sent is answered as never mined");
    } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::unavailable);
    }
}

// Mints a crash left pending in every other state the journal can hold at
// start: nothing linked (released), their one transaction dropped (released),
// reverted (failed), mined but unknown to the node (left pending for the next
// start), and mined under a purpose that names the mint by its key only, as
// journaled before mints had ids (finished).
TEST_CASE("journal: reconcile() settles each pending mint by what its transactions became", "[journal][anvil]") {
    Node node;
    auto& client = node.network.client();
    const auto nonce = node.pending_nonce();
    const auto fees = client.fee_tiers().standard;
    const auto recipient = eth::Address::parse(test::Anvil::dev_accounts()[6].address);
    const auto cid = node.content->put(bytes_of(R"({"name":"Certificate"})")).to_string();
    const auto calldata = [&](std::uint64_t token) {
        return chain::TokenContract::mint_calldata(recipient, token, 1, bytes_of(cid));
    };
    const auto claim = [&](const std::string& key) {
        REQUIRE_FALSE(node.store->mints().begin(entity_mint_request(key)));
        return entity_mint_purpose(recipient, key, cid, key);
    };
    (void)claim("unsent");
    const auto dropped = journal_signed(node, nonce + 100, fees, calldata(kCertificateToken), claim("dropped"),
                                        entity_mint_request("dropped").id);
    node.store->journal().settle({{dropped.hash, chain::TxStatus::dropped, 0}});
    const auto reverted = journal_signed(node, nonce, fees, calldata(7), claim("reverted"),
                                         entity_mint_request("reverted").id);
    node.store->journal().settle({{reverted.hash, chain::TxStatus::reverted, publish(node, reverted, "0x0")}});
    const auto unknown = journal_signed(node, nonce + 101, fees, calldata(kCertificateToken), claim("unknown"),
                                        entity_mint_request("unknown").id);
    node.store->journal().settle({{unknown.hash, chain::TxStatus::mined, 3}});
    auto by_key = claim("by-key");
    by_key["mintId"] = "";
    const auto legacy = journal_signed(node, nonce + 1, fees, calldata(kCertificateToken), by_key,
                                       entity_mint_request("by-key").id);
    node.store->journal().settle({{legacy.hash, chain::TxStatus::mined, publish(node, legacy, "0x1")}});

    auto& abci = node.service();
    const test::LogCapture log;
    abci.reconcile();
    // The one it cannot settle now is not silent.
    const auto unsettled = log.containing("a mint could not be settled at start");
    REQUIRE(unsettled.size() == 1);
    CHECK(unsettled[0].fields["mintId"] == entity_mint_request("unknown").id);
    CHECK_THAT(unsettled[0].fields["error"].get<std::string>(), Catch::Contains("no receipt for " + unknown.hash));
    const auto state = [&](const std::string& key) { return node.store->mints().find(entity_mint_request(key).id); };
    for (const auto* key : {"unsent", "dropped"}) {
        INFO(key);
        CHECK(state(key)->state == store::MintState::failed);
        CHECK(json::parse(state(key)->answer)["kind"] == "unavailable");
        auto retry = entity_mint_request(key);
        retry.id += "-retry";
        CHECK_FALSE(node.store->mints().begin(retry));  // its key is free
    }
    CHECK(state("reverted")->state == store::MintState::failed);
    CHECK(json::parse(state("reverted")->answer)["kind"] == "chain_rejected");
    CHECK(state("unknown")->state == store::MintState::pending);
    CHECK(state("by-key")->state == store::MintState::done);
    CHECK(service::MintResult::parse(state("by-key")->answer).transaction_hash == legacy.hash);
    CHECK(node.network.contract().balance_of(recipient, kCertificateToken) == eth::U256(1));
}

}  // namespace abci::journal_tests
