// Recording a mint's outcome once its transaction settled: finish() for a
// mined one (records, the answer a repeat of its key replays, the role
// request), settle_reverted() and settle_unwaited() for what the sender
// reports about a mint nobody waits for any more, and reconcile() and
// settle_abandoned() at start for what a crash left unsettled and what an
// operator gave up that the chain mined anyway.
#include <algorithm>
#include <limits>
#include <set>

#include <nlohmann/json.hpp>

#include "core/chain/receipt.hpp"
#include "core/service/mint_record.hpp"
#include "core/service/service.hpp"
#include "core/service/service_parts.hpp"
#include "core/service/tokens.hpp"
#include "core/content/content_store.hpp"
#include "core/error.hpp"
#include "core/store/store.hpp"
#include "core/util/log.hpp"
#include "core/util/time.hpp"

namespace abci::service {

namespace {

// How often the lanes are renewed (and a dead or frozen owner's taken over):
// well inside the lease (store::kLaneLease), so one slow round loses nothing.
constexpr std::chrono::milliseconds kLaneRound{500};
// How often an owner compares its signer's chain nonce with the journal
// while it sends (a key used elsewhere meanwhile): one call to the node and
// one query each time.
constexpr std::chrono::seconds kNonceCheckEvery{5};
// How many of a chain's transactions given up (the newest) each start asks
// the chain about: one batched call; an operator gives up a few, by hand.
constexpr std::size_t kAbandonedLooked = 256;

// Each lane's figures to its metrics, as this server holds them after a
// round of keep_lanes(): from the sender's memory, no call and no query.
void publish_lanes(const Registry& registry) {
    for (const auto& network : registry.networks()) {
        if (!network->has_signer()) continue;
        std::optional<chain::LaneMetrics::Owned> owned;
        if (const auto term = network->current_term())
            owned = chain::LaneMetrics::Owned{.epoch = term->fence().epoch, .figures = term->sender().figures()};
        network->lane_metrics().publish(owned);
    }
}

}  // namespace

void AbciService::settle_reverted(Network& network, const std::string& mint_id, const MintRecord& record,
                                  const chain::Receipt& receipt, bool batched) {
    const bool made_final =
        batched ? store_.mints().release(mint_id, MintFailure{ErrorKind::unavailable,
                                                              "the mint was not made: the batch carrying it reverted "
                                                              "in block " +
                                                                  std::to_string(receipt.block_number) + "; send it again"}
                                                      .serialize())
                : store_.mints().finish(mint_id, store::MintState::failed, MintFailure::of(reverted(receipt)).serialize());
    if (made_final) network.mint_metrics().count(record.token_id, MintOutcome::failed);
}

void AbciService::settle_unwaited(Network& network, const chain::Unwaited& fate) {
    const auto mints = parse_mint_purpose(fate.purpose).mints;
    for (const auto& record : mints) {
        const std::string& mint_id = record.mint_id;
        if (mint_id.empty()) continue;  // journaled by a release without mint records: the next start settles it
        switch (fate.status) {
        case chain::TxStatus::mined: (void)finish(network, mint_id, record, *fate.receipt); break;
        case chain::TxStatus::reverted: settle_reverted(network, mint_id, record, *fate.receipt, mints.size() > 1); break;
        default:
            // Nothing signed for it can be mined any more: a retry mints anew.
            if (store_.mints().release(mint_id, MintFailure{ErrorKind::unavailable,
                                                            std::string("the mint was not made: its transaction was ") +
                                                                chain::to_string(fate.status) + "; send it again"}
                                                    .serialize()))
                network.mint_metrics().count(record.token_id, MintOutcome::abandoned);
            break;
        }
    }
}

MintResult AbciService::finish(Network& network, const std::string& mint_id, const MintRecord& record,
                               const chain::Receipt& receipt) {
    const auto& config = network.config();
    const std::string hash = eth::to_hex(receipt.transaction_hash);
    const auto kind = token_kind(record.token_id);
    if (!kind) throw Error(ErrorKind::internal, "journaled mint names an unknown token id");
    const auto& to = record.to;
    const auto amount = record.amount;
    const auto now = std::chrono::system_clock::now();
    // Before any record: a failure here leaves nothing half written.
    const std::string version = kind->family == TokenFamily::role ? network.contract_version() : std::string();

    store::MintRecord mint;
    mint.blockchain_id = config.id;
    mint.address = to.lower();
    mint.token_id = kind->id;
    mint.amount = std::to_string(amount);
    mint.token_type = std::string(to_string(kind->family));
    mint.category = std::string(kind->category);
    mint.tx_hash = hash;
    mint.block_number = receipt.block_number;
    mint.time = now;
    store_.tokens().record_mint(mint);

    MintResult result{.family = kind->family,
                      .transaction_hash = hash,
                      .block_number = receipt.block_number,
                      .gas_used = receipt.gas_used,
                      .token_id = kind->id,
                      .confirmations = receipt.confirmations,
                      .chain = ChainRef::of(config),
                      .mint_id = mint_id};
    if (kind->family == TokenFamily::role) {
        result.gas_price = receipt.effective_gas_price;
        result.contract_address = network.contract().address().checksummed();
        result.contract_version = version;
        result.timestamp = now;
        if (!record.role_request_id.empty())
            store_.role_requests().set_minted(record.role_request_id, hash, receipt.block_number);
    } else {
        store::Entity entity;
        entity.blockchain_id = config.id;
        entity.entity_type = record.entity_type;
        entity.entity_id = record.entity_id;
        entity.token_id = kind->id;
        entity.recipient = to.lower();
        entity.amount = amount;
        entity.cid = record.cid;
        if (auto bytes = content_.get(content::Cid::parse(record.cid))) entity.metadata.assign(bytes->begin(), bytes->end());
        entity.tx_hash = hash;
        entity.block_number = receipt.block_number;
        (void)store_.entities().record(entity);
        result.amount = amount;
        result.cid = record.cid;
        result.entity_type = entity.entity_type;
        result.entity_id = entity.entity_id;
    }
    if (store_.mints().finish(mint_id, store::MintState::done, result.serialize())) {
        network.mint_metrics().count(record.token_id, MintOutcome::confirmed);
        return result;
    }
    // Failed meanwhile: its transaction was given up (`admin journal abandon`)
    // and mined after all. The chain holds the token, so the mint says so.
    if (store_.mints().reopen(mint_id) && store_.mints().finish(mint_id, store::MintState::done, result.serialize())) {
        network.mint_metrics().count(record.token_id, MintOutcome::confirmed);
        util::log(util::LogLevel::warning,
                  "a transaction given up was mined after all: its mint, answered as failed, is minted now",
                  {{"blockchainId", config.id}, {"mintId", mint_id}, {"hash", hash}, {"block", receipt.block_number}});
        return result;
    }
    // Settled first by another path (a new owner of the lane, the sender's
    // report): its answer is the one every repeat of the key gets.
    if (const auto stored = store_.mints().find(mint_id)) return replay(*stored, "");
    return result;
}

void AbciService::start(const std::string& owner) {
    owner_ = owner;
    reconcile();
    publish_lanes(registry_);  // the first scrape sees the lanes reconcile() took
    start_forwarding();
    lanes_thread_ = std::thread([this] {
        std::unique_lock lock(lanes_mutex_);
        while (!lanes_wake_.wait_for(lock, kLaneRound, [this] { return stopping_; })) {
            lock.unlock();
            keep_lanes();
            publish_lanes(registry_);
            lock.lock();
        }
    });
}

AbciService::~AbciService() {
    {
        std::lock_guard lock(lanes_mutex_);
        stopping_ = true;
    }
    lanes_wake_.notify_all();
    if (lanes_thread_.joinable()) lanes_thread_.join();
    stop_forwarding();
    for (const auto& network : registry_.networks()) network->end_term();
    // election_ goes last: it gives the lanes up as it is destroyed.
}

void AbciService::reconcile() {
    if (!election_) election_ = store_.open_lane_election(owner_.empty() ? "abcictl" : owner_);
    keep_lanes();
    // Only the mints of networks this server sends for: another server's are
    // that server's, and one without a signer anywhere is nobody's but ours.
    std::set<std::string> others;
    for (const auto& network : registry_.networks())
        if (network->has_signer() && !network->current_term()) others.insert(network->config().id);
    settle_pending_mints([&](const std::string& id) { return !others.contains(id); });
}

void AbciService::keep_lanes() {
    for (const auto& n : registry_.networks()) {
        Network& network = *n;
        if (!network.has_signer()) continue;
        const auto fence = election_->hold(network.lane());
        const auto term = network.current_term();
        if (fence && term && term->fence().epoch == fence->epoch) {
            report_stuck(network, *term);
            if (std::chrono::steady_clock::now() - nonce_checked_[network.lane()] >= kNonceCheckEvery &&
                !signer_nonce_agrees(network, *fence))
                network.end_term();  // halted: sends nothing more
            continue;
        }
        reported_stuck_.erase(network.lane());
        if (!fence) {
            if (term)
                util::log(util::LogLevel::warning, "stopped sending: another server owns the lane now",
                          {{"blockchainId", network.config().id}, {"lane", network.lane()}});
            network.end_term();
            continue;
        }
        try {
            take_over(network, *fence);
        } catch (const Error& e) {
            // The lane stays taken with no term: the next round tries again.
            util::log(util::LogLevel::error, "taking over a lane failed",
                      {{"blockchainId", network.config().id}, {"error", e.what()}});
        }
    }
}

void AbciService::report_stuck(Network& network, Network::Term& term) {
    std::vector<store::StuckTransaction> stuck;
    const auto now = std::chrono::system_clock::now();
    for (const auto& tx : term.sender().stuck())
        stuck.push_back({.nonce = tx.nonce, .hash = eth::to_hex(tx.hash), .since = now - tx.age});
    const auto same_transactions = [](const store::StuckTransaction& x, const store::StuckTransaction& y) {
        return x.nonce == y.nonce && x.hash == y.hash;
    };
    const auto reported = reported_stuck_.find(network.lane());
    if (reported != reported_stuck_.end() && std::ranges::equal(reported->second, stuck, same_transactions)) return;
    try {
        store_.lanes().report_stuck(term.fence(), stuck);
        reported_stuck_[network.lane()] = std::move(stuck);
    } catch (const Error& e) {
        // Health elsewhere shows the last report until the next round writes it.
        util::log(util::LogLevel::warning, "could not record the lane's stuck transactions",
                  {{"lane", network.lane()}, {"error", e.what()}});
    }
}

bool AbciService::signer_nonce_agrees(Network& network, const store::LaneFence& fence) {
    const auto refuse = [&](const std::string& why) {
        if (reported_halts_.insert(fence.lane).second)
            util::log(util::LogLevel::error, "not sending: the lane is halted", {{"lane", fence.lane}, {"reason", why}});
        return false;
    };
    nonce_checked_[fence.lane] = std::chrono::steady_clock::now();  // at a take too: the next round need not again
    const auto status = store_.lanes().find(fence.lane);
    if (status && !status->halted.empty()) return refuse(status->halted);
    reported_halts_.erase(fence.lane);
    const auto& signer = network.signer_address();
    watch_signer_balance(network, fence);
    std::uint64_t chain_next = 0, chain_latest = 0;
    try {
        chain_next = network.client().pending_nonce(signer);
        chain_latest = network.client().latest_nonce(signer);  // for the metrics only: the drift alerts compare both
    } catch (const Error& e) {
        // Nothing can be sent while the node is silent anyway; the sender
        // starts from the chain's nonce once it answers.
        util::log(util::LogLevel::warning, "taking a lane without comparing the signer's nonce: the node did not answer",
                  {{"lane", fence.lane}, {"error", e.what()}});
        return true;
    }
    if (!status || !status->accepted_nonce) {
        store_.lanes().accept_nonce(fence, chain_next);  // first taken, or resumed: the chain's nonce is the start
        network.lane_metrics().nonces(chain_next, chain_latest, chain_next);
        return true;
    }
    const auto journal_next = store_.journal().next_nonce(network.config().id, signer.lower());
    const auto expected = std::max(journal_next.value_or(0), *status->accepted_nonce);
    network.lane_metrics().nonces(expected, chain_latest, chain_next);
    if (chain_next <= expected) return true;
    // Every transaction of ours is journaled before it is broadcast: these are not ours.
    const std::string why = "the signer " + signer.checksummed() + " has sent " + std::to_string(chain_next - expected) +
                            " transaction(s) on blockchain " + network.config().id +
                            " that no server of this database journaled (its nonce is " + std::to_string(chain_next) +
                            ", the journal ends at " + std::to_string(expected) +
                            "): another program or server uses its key. Stop it, then run `abcictl admin lanes resume " +
                            fence.lane + "`";
    store_.lanes().halt(fence, why);
    return refuse(why);
}

void AbciService::watch_signer_balance(Network& network, const store::LaneFence& fence) {
    SignerFunds funds;
    try {
        // Fresh on the owner for the metrics whether or not anything polls its health.
        funds = read_signer_funds(network, network.probe());
    } catch (const Error&) {
        // The metrics keep the last reading; the signer's health check says why.
        return;
    }
    const auto mints = funds.per_mint.is_zero() ? funds.balance : funds.balance / funds.per_mint;
    try {
        (void)store_.lanes().record_signer_balance(
            fence, {.blockchain_id = network.config().id,
                    .address = network.signer_address().checksummed(),
                    .balance = funds.balance.to_dec(),
                    .minimum_balance = funds.floor.to_dec(),
                    .estimated_mints = mints.fits_u64() ? mints.to_u64() : std::numeric_limits<std::uint64_t>::max(),
                    .low = funds.balance < funds.floor});
    } catch (const Error& e) {
        // The next round records it: the latch still says what was last recorded.
        util::log(util::LogLevel::warning, "could not record the signer's balance",
                  {{"lane", fence.lane}, {"error", e.what()}});
    }
}

void AbciService::take_over(Network& network, const store::LaneFence& fence) {
    network.end_term();
    if (!signer_nonce_agrees(network, fence)) return;
    auto term = network.new_term(fence);
    term->sender().on_unwaited([this, &network](const chain::Unwaited& fate) { settle_unwaited(network, fate); });
    // What was journaled and is unsettled goes back to the sender, which
    // settles it by the same rules as what it sends live (tx_state.hpp).
    std::vector<chain::JournaledTx> adopted;
    for (auto& entry : store_.journal().pending(network.config().id)) {
        chain::JournaledTx tx;
        tx.hash = eth::from_hex_fixed<32>(entry.hash, "journaled hash");
        tx.nonce = entry.nonce;
        tx.raw = eth::from_hex(entry.raw, "journaled transaction");
        tx.purpose = std::move(entry.purpose);
        tx.journaled_at = entry.created_at;
        adopted.push_back(std::move(tx));
    }
    util::log(util::LogLevel::info, "sending for a lane",
              {{"blockchainId", network.config().id}, {"epoch", fence.epoch}, {"unsettled", adopted.size()}});
    term->sender().adopt(std::move(adopted));
    settle_abandoned(network);
    const auto& id = network.config().id;
    settle_pending_mints([&](const std::string& blockchain_id) { return blockchain_id == id; });
    network.start_term(std::move(term));
}

void AbciService::settle_abandoned(Network& network) {
    const auto& config = network.config();
    const auto abandoned = store_.journal().list(config.id, {chain::TxStatus::abandoned}, kAbandonedLooked);
    if (abandoned.empty()) return;
    std::vector<rpc::Request> lookups;
    for (const auto& tx : abandoned) lookups.push_back({"eth_getTransactionReceipt", nlohmann::json::array({tx.hash})});
    std::vector<rpc::Outcome> receipts;
    std::uint64_t head = 0;
    try {
        receipts = network.client().rpc().batch(lookups);
        head = network.client().block_number();
    } catch (const Error& e) {
        util::log(util::LogLevel::warning, "could not ask the chain about the transactions given up; the next start asks again",
                  {{"blockchainId", config.id}, {"error", e.what()}});
        return;
    }
    for (std::size_t i = 0; i < abandoned.size(); ++i) {
        if (!receipts[i].ok() || receipts[i].value().is_null()) continue;
        const auto& tx = abandoned[i];
        try {
            auto receipt = chain::Receipt::from_json(receipts[i].value());
            receipt.confirm_at(head);
            if (receipt.confirmations < config.confirmations) continue;  // the next start looks again
            store_.journal().settle({{tx.hash, receipt.success ? chain::TxStatus::mined : chain::TxStatus::reverted,
                                      receipt.block_number}});
            if (!receipt.success) continue;  // nothing minted: its mints stay failed
            for (const auto& record : parse_mint_purpose(tx.purpose).mints)
                if (!record.mint_id.empty()) (void)finish(network, record.mint_id, record, receipt);
        } catch (const Error& e) {
            util::log(util::LogLevel::warning, "a transaction given up and mined after all could not be settled; the next start tries again",
                      {{"blockchainId", config.id}, {"hash", tx.hash}, {"error", e.what()}});
        }
    }
}

void AbciService::settle_pending_mints(const std::function<bool(const std::string& blockchain_id)>& ours) {
    for (const auto& mint : store_.mints().pending()) {
        if (!ours(mint.blockchain_id)) continue;
        try {
            reconcile(mint);
        } catch (const Error& e) {
            util::log(util::LogLevel::warning, "a mint could not be settled at start; the next start tries again",
                      {{"mintId", mint.id}, {"error", e.what()}});
        }
    }
}

void AbciService::reconcile(const store::MintRequest& mint) {
    const auto txs = store_.journal().of_mint(mint.id);
    // Transactions are linked to their mint when journaled, before broadcast:
    // none linked means the request ended before anything reached the node.
    if (txs.empty()) {
        // Queued by another server (forwarding.cpp): this lane's owner sends it.
        if (store_.mint_jobs().is_queued(mint.id)) return;
        (void)release(mint.id, Error(ErrorKind::unavailable, "the server stopped before the mint was sent; send it again"));
        return;  // nothing was signed: no outcome to count, as for a refused request
    }
    const auto pending = std::any_of(txs.begin(), txs.end(), [](const auto& tx) { return tx.status == chain::TxStatus::pending; });
    if (pending) return;  // adopted by its sender: settle_unwaited() finishes it
    // A mined one first: a mint whose batch reverted may have been mined alone after it.
    auto landed = std::find_if(txs.begin(), txs.end(), [](const auto& tx) { return tx.status == chain::TxStatus::mined; });
    if (landed == txs.end())
        landed = std::find_if(txs.begin(), txs.end(), [](const auto& tx) { return tx.status == chain::TxStatus::reverted; });
    if (landed == txs.end()) {
        if (!release(mint.id, Error(ErrorKind::unavailable, "the mint was not made: its transaction was " +
                                                                std::string(chain::to_string(txs.back().status)) + "; send it again")))
            return;
        for (const auto& record : parse_mint_purpose(txs.back().purpose).mints)
            if (record.mint_id == mint.id)
                registry_.find(mint.blockchain_id).mint_metrics().count(record.token_id, MintOutcome::abandoned);
        return;
    }
    // Mined before the stop, but its bookkeeping was not done.
    Network& network = registry_.find(landed->blockchain_id);
    const auto receipt = network.client().receipt(eth::from_hex_fixed<32>(landed->hash, "journaled hash"));
    if (!receipt) throw Error(ErrorKind::unavailable, "the node has no receipt for " + landed->hash);
    const auto mints = parse_mint_purpose(landed->purpose).mints;
    for (const auto& record : mints) {
        const bool ours = record.mint_id == mint.id ||
                          (record.mint_id.empty() && !mint.idempotency_key.empty() && record.key == mint.idempotency_key &&
                           record.actor == mint.actor && record.kind == mint.kind);
        if (!ours) continue;
        if (receipt->success)
            (void)finish(network, mint.id, record, *receipt);
        else
            settle_reverted(network, mint.id, record, *receipt, mints.size() > 1);
    }
}
}  // namespace abci::service
