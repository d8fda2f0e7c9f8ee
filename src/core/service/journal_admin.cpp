#include "core/service/journal_admin.hpp"

#include <algorithm>
#include <chrono>

#include <nlohmann/json.hpp>

#include "core/service/mint_failure.hpp"
#include "core/service/mint_record.hpp"
#include "core/chain/chain_client.hpp"
#include "core/chain/tx_state.hpp"
#include "core/error.hpp"
#include "core/eth/tx.hpp"
#include "core/rpc/quantity.hpp"
#include "core/rpc/url.hpp"

namespace abci::service {
namespace {

using nlohmann::json;

// Every entry of a chain, whatever its age: the journal of one server, read once.
constexpr std::size_t kWholeJournal = 1'000'000'000;

void add_unique(std::vector<std::string>& list, const std::string& value) {
    if (!value.empty() && std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

// The mint ids a purpose names, and for purposes written before mints had
// ids, the mint its (actor, kind, key) names.
std::vector<std::string> linked_mints(store::Store& store, const std::string& purpose) {
    std::vector<std::string> ids;
    for (const auto& record : parse_mint_purpose(purpose).mints) {
        if (!record.mint_id.empty()) {
            add_unique(ids, record.mint_id);
        } else if (!record.key.empty()) {
            if (const auto mint = store.mints().find_by_key({record.actor, record.kind, record.key}))
                add_unique(ids, mint->id);
        }
    }
    return ids;
}

bool landed_or_pending(chain::TxStatus status) {
    return status == chain::TxStatus::pending || status == chain::TxStatus::mined || status == chain::TxStatus::reverted;
}

}  // namespace

TxPurpose read_purpose(const std::string& purpose) {
    auto parsed = parse_mint_purpose(purpose);
    TxPurpose summary;
    summary.op = std::move(parsed.op);
    summary.mints = parsed.mints.size();
    for (const auto& record : parsed.mints) {
        add_unique(summary.mint_ids, record.mint_id);
        add_unique(summary.idempotency_keys, record.key);
    }
    return summary;
}

std::vector<store::JournalEntry> list_journal(store::Store& store, const std::string& blockchain_id,
                                              const std::vector<std::string>& statuses, std::size_t limit) {
    std::vector<chain::TxStatus> wanted;
    for (const auto& status : statuses) {
        const auto parsed = chain::parse_tx_status(status);
        if (!parsed)
            throw Error(ErrorKind::invalid_input,
                        "unknown transaction status '" + status +
                            "': one of pending, mined, reverted, replaced, dropped, refused, abandoned");
        wanted.push_back(*parsed);
    }
    return store.journal().list(blockchain_id, wanted, limit);
}

store::JournalEntry find_journal_entry(store::Store& store, const std::string& hash) {
    auto entry = store.journal().find(hash);
    if (!entry) throw Error(ErrorKind::not_found, "no transaction " + hash + " in the journal");
    return std::move(*entry);
}

AbandonPlan plan_abandon(store::Store& store, const std::string& hash) {
    AbandonPlan plan;
    plan.entry = find_journal_entry(store, hash);
    if (plan.entry.status != chain::TxStatus::pending)
        throw Error(ErrorKind::conflict, "transaction " + hash + " is " + chain::to_string(plan.entry.status) +
                                             " already: only a pending one can be abandoned");
    const auto raw = eth::from_hex(plan.entry.raw);
    plan.chain_id = eth::decode_transaction(raw).tx.chain_id;
    plan.lane = plan.entry.blockchain_id + "/" + plan.entry.sender;
    if (const auto lane = store.lanes().find(plan.lane)) plan.genesis = lane->genesis;
    for (auto& e : store.journal().list(plan.entry.blockchain_id, {}, kWholeJournal))
        if (e.sender == plan.entry.sender && e.nonce == plan.entry.nonce) plan.versions.push_back(std::move(e));
    std::reverse(plan.versions.begin(), plan.versions.end());  // journal_list is newest first
    for (const auto& version : plan.versions)
        for (const auto& id : linked_mints(store, version.purpose)) add_unique(plan.mint_ids, id);
    return plan;
}

ChainFindings ask_chain(const AbandonPlan& plan, const ChainNode& node) {
    chain::ChainSettings settings;
    settings.chain_id = plan.chain_id;
    settings.rpc_urls = node.rpc_urls;
    chain::ChainClient client(settings);
    ChainFindings found;
    found.node = rpc::mask_url(node.rpc_urls.front());
    std::vector<rpc::Request> lookups{{"eth_getBlockByNumber", json::array({"0x0", false})}};
    for (const auto& version : plan.versions) lookups.push_back({"eth_getTransactionReceipt", json::array({version.hash})});
    std::vector<rpc::Outcome> answers;
    try {
        client.verify_chain_id();  // the transaction was signed for this chain: another's nonces prove nothing
        answers = client.rpc().batch(lookups);
        found.latest_nonce = client.latest_nonce(eth::Address::parse(plan.entry.sender));
    } catch (const Error& e) {
        if (e.kind() != ErrorKind::unavailable && e.kind() != ErrorKind::timeout) throw;
        throw Error(e.kind(), "cannot ask the node at " + found.node + ": " + e.what());
    }
    const auto& block0 = answers.front().value();
    if (!block0.is_object() || !block0.contains("hash") || !block0.at("hash").is_string())
        throw Error(ErrorKind::unavailable, "the node at " + found.node + " has no block 0");
    found.genesis = block0.at("hash").get<std::string>();
    // A second devnet or a fork has the chain id and may have the signer's
    // nonce past ours: only the chain the lane sent to can prove anything.
    if (plan.genesis.empty() && !node.configured)
        throw Error(ErrorKind::conflict,
                    "no server has recorded which chain " + plan.entry.blockchain_id +
                        " is (its block 0) yet, so the node at " + found.node +
                        " cannot be told from another chain with chain id " + std::to_string(plan.chain_id) +
                        ": leave out --rpc-url to ask the node the server's config names (--config), or start serve "
                        "once, which records it");
    if (!plan.genesis.empty() && found.genesis != plan.genesis)
        throw Error(ErrorKind::conflict,
                    "the node at " + found.node + " serves another chain with chain id " + std::to_string(plan.chain_id) +
                        ": its block 0 is " + found.genesis + ", the one lane " + plan.lane + " sent to is " +
                        plan.genesis + ". Give --rpc-url a node of that chain, or leave it out to use the server's");
    for (std::size_t i = 0; i < plan.versions.size(); ++i) {
        const auto& receipt = answers[i + 1].value();
        if (!receipt.is_null())
            found.mined.emplace_back(plan.versions[i].hash,
                                     rpc::quantity_to_u64(receipt.at("blockNumber"), "blockNumber"));
    }
    return found;
}

void require_none_mined(const AbandonPlan& plan, const ChainFindings& found) {
    if (found.mined.empty()) return;
    throw Error(ErrorKind::conflict, "transaction " + found.mined.front().first + " of nonce " +
                                         std::to_string(plan.entry.nonce) + " of " + plan.entry.sender + " is in block " +
                                         std::to_string(found.mined.front().second) + " on the node at " + found.node +
                                         ": nothing to abandon (serve records it; restart it if it does not)");
}

void require_nonce_consumed(const AbandonPlan& plan, const ChainFindings& found) {
    require_none_mined(plan, found);
    if (found.latest_nonce <= plan.entry.nonce)
        throw Error(ErrorKind::conflict,
                    "nonce " + std::to_string(plan.entry.nonce) + " of " + plan.entry.sender +
                        " is not consumed on chain (the account's latest nonce is " + std::to_string(found.latest_nonce) +
                        "): the transaction can still be mined. Wait for it, or, if the chain was reset, use --force");
}

std::optional<std::string> lane_owner(store::Store& store, const AbandonPlan& plan) {
    const auto lane = store.lanes().find(plan.lane);
    if (!lane || lane->owner.empty() || lane->lease_until <= std::chrono::system_clock::now()) return std::nullopt;
    return lane->owner;
}

AbandonResult abandon(store::Store& store, const AbandonPlan& plan, const std::string& reason) {
    AbandonResult result;
    for (const auto& version : plan.versions)
        if (version.status == chain::TxStatus::pending && store.journal().abandon(version.hash))
            result.abandoned.push_back(version.hash);
    const std::string answer =
        MintFailure{ErrorKind::unavailable,
                    "the mint was not made: its transaction was abandoned (" + reason + "); send it again"}
            .serialize();
    for (const auto& id : plan.mint_ids) {
        const auto mint = store.mints().find(id);
        const auto transactions = store.journal().of_mint(id);
        const bool alive = std::any_of(transactions.begin(), transactions.end(),
                                       [](const store::JournalEntry& tx) { return landed_or_pending(tx.status); });
        if (!mint || mint->state != store::MintState::pending || alive) {
            result.kept_mints.push_back(id);
            continue;
        }
        store.mints().release(id, answer);
        result.released_mints.push_back(id);
    }
    return result;
}

}  // namespace abci::service
