#include "core/chain/tx_sender.hpp"

#include <algorithm>

#include "core/chain/send_errors.hpp"
#include "core/eth/tx.hpp"
#include "core/rpc/quantity.hpp"

namespace abci::chain {

struct TxSender::Intent {
    TxRequest request;
    std::uint64_t gas = 0;
    Clock::time_point deadline;
    std::promise<Receipt> promise;
    bool answered = false;  // guarded by TxSender::mutex_
};

// A signed transaction this sender is responsible for until it is mined.
struct TxSender::Inflight {
    std::shared_ptr<Intent> intent;  // null for a filler
    std::optional<eth::Address> to;
    eth::U256 value;
    eth::Bytes data;
    std::uint64_t gas = 0;
    bool eip1559 = true;
    Fees fees;
    eth::Bytes raw;
    eth::Hash32 hash{};
    std::vector<eth::Hash32> superseded;  // earlier versions (replacements) that may still be mined
    bool journaled = false;               // the current version is in the journal
    bool broadcast_ok = false;        // the node accepted the current bytes
    Clock::time_point last_sent{};    // last broadcast attempt
    Clock::time_point first_sent{};   // first time the node accepted this nonce's transaction
    unsigned replacements = 0;        // earlier versions with this nonce may still be mined
    ReceiptPoller::WatchId watch = 0;

    // Every hash this nonce's transaction has been signed as.
    [[nodiscard]] std::vector<eth::Hash32> versions() const {
        auto all = superseded;
        all.push_back(hash);
        return all;
    }
};

namespace {

constexpr std::uint64_t kTransferGas = 21'000;

}  // namespace


TxSender::TxSender(ChainClient& chain, eth::PrivateKey key, SenderOptions options)
    : chain_(chain), key_(std::move(key)), options_(options), thread_([this] { run(); }) {
    round_hook_ = chain_.receipts().add_round_hook([this](const std::vector<Receipt>& receipts) { settle_mined(receipts); });
}

TxSender::~TxSender() {
    chain_.receipts().remove_round_hook(round_hook_);
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    cv_.notify_all();
    thread_.join();
    // Cancelled without our lock held: a receipt callback running right now
    // takes it, and cancel() waits for that callback to finish.
    std::vector<ReceiptPoller::WatchId> watches;
    {
        std::lock_guard lock(mutex_);
        for (auto& [nonce, f] : inflight_) watches.push_back(f->watch);
    }
    for (auto id : watches) chain_.receipts().cancel(id);
    std::lock_guard lock(mutex_);
    auto error = std::make_exception_ptr(Error(ErrorKind::unavailable, "the transaction sender is shutting down"));
    for (auto& intent : queue_)
        if (!intent->answered) intent->promise.set_exception(error);
    for (auto& [nonce, f] : inflight_)
        if (f->intent && !f->intent->answered) {
            f->intent->answered = true;
            f->intent->promise.set_exception(error);
        }
}

std::future<Receipt> TxSender::submit(TxRequest request) {
    auto intent = std::make_shared<Intent>();
    intent->gas = request.gas_limit ? *request.gas_limit
                                    : chain_.estimate_gas({key_.address(), request.to, request.value, request.data});
    intent->deadline = Clock::now() + request.timeout;
    intent->request = std::move(request);
    auto future = intent->promise.get_future();
    {
        std::lock_guard lock(mutex_);
        if (stopping_) throw Error(ErrorKind::unavailable, "the transaction sender is shutting down");
        queue_.push_back(std::move(intent));
    }
    cv_.notify_all();
    return future;
}

std::size_t TxSender::in_flight() const {
    std::lock_guard lock(mutex_);
    return inflight_.size();
}

void TxSender::run() {
    for (;;) {
        std::vector<std::shared_ptr<Intent>> round;
        {
            std::unique_lock lock(mutex_);
            cv_.wait_for(lock, options_.maintenance_interval, [this] { return stopping_ || !queue_.empty(); });
            if (stopping_) return;
            while (!queue_.empty() && round.size() < options_.max_batch) {
                round.push_back(std::move(queue_.front()));
                queue_.pop_front();
            }
        }
        if (!round.empty()) sign_round(std::move(round));
        if (Clock::now() - last_maintenance_ >= options_.maintenance_interval) {
            last_maintenance_ = Clock::now();
            maintain();
        }
    }
}

void TxSender::sign_round(std::vector<std::shared_ptr<Intent>> intents) {
    FeeTiers tiers;
    try {
        if (!nonces_.synced()) nonces_.sync(chain_.pending_nonce(key_.address()));
        tiers = chain_.fee_tiers();
    } catch (const Error&) {
        // The node is unreachable: nothing was signed, so the round waits in
        // the queue (its deadlines still run) and is tried again shortly.
        std::lock_guard lock(mutex_);
        queue_.insert(queue_.begin(), intents.begin(), intents.end());
        return;
    }
    std::vector<std::uint64_t> nonces;
    for (auto& intent : intents) {
        const std::uint64_t nonce = nonces_.take();
        track(nonce, intent, tiers.tier(intent->request.tier), tiers.eip1559);
        nonces.push_back(nonce);
    }
    broadcast(nonces);
}

void TxSender::track(std::uint64_t nonce, std::shared_ptr<Intent> intent, const Fees& fees, bool eip1559) {
    auto f = std::make_unique<Inflight>();
    if (intent) {
        f->to = intent->request.to;
        f->value = intent->request.value;
        f->data = intent->request.data;
        f->gas = intent->gas;
    } else {
        f->to = key_.address();
        f->gas = kTransferGas;
    }
    f->intent = std::move(intent);
    f->eip1559 = eip1559;
    f->fees = fees;
    sign(*f, nonce);
    f->watch = chain_.receipts().watch(f->hash, [this, nonce](const Receipt& r) { on_mined(nonce, r); },
                                       ReceiptPoller::Sent::not_yet);
    std::lock_guard lock(mutex_);
    inflight_[nonce] = std::move(f);
}

void TxSender::sign(Inflight& f, std::uint64_t nonce) const {
    eth::Transaction tx;
    tx.type = f.eip1559 ? eth::TxType::eip1559 : eth::TxType::legacy;
    tx.chain_id = chain_.settings().chain_id;
    tx.nonce = nonce;
    if (f.eip1559) {
        tx.max_priority_fee_per_gas = f.fees.max_priority_fee_per_gas;
        tx.max_fee_per_gas = f.fees.max_fee_per_gas;
    } else {
        tx.gas_price = f.fees.max_fee_per_gas;
    }
    tx.gas_limit = f.gas;
    tx.to = f.to;
    tx.value = f.value;
    tx.data = f.data;
    eth::SignedTransaction signed_tx = eth::sign_transaction(tx, key_);
    if (f.journaled || f.broadcast_ok) f.superseded.push_back(f.hash);
    f.journaled = options_.journal == nullptr;
    f.raw = std::move(signed_tx.raw);
    f.hash = signed_tx.hash;
}

std::vector<std::uint64_t> TxSender::journal(const std::vector<std::uint64_t>& nonces) {
    if (!options_.journal) return nonces;
    std::vector<SignedTx> unrecorded;
    {
        std::lock_guard lock(mutex_);
        for (std::uint64_t nonce : nonces) {
            auto it = inflight_.find(nonce);
            if (it == inflight_.end() || it->second->journaled) continue;
            const Inflight& f = *it->second;
            unrecorded.push_back({f.hash, nonce, f.raw, f.intent ? f.intent->request.purpose : "filler"});
        }
    }
    bool recorded = true;
    if (!unrecorded.empty()) {
        try {
            options_.journal->record(unrecorded);
        } catch (const Error&) {
            recorded = false;  // stays unbroadcast; maintain() tries again
        }
    }
    std::vector<std::uint64_t> ready;
    std::lock_guard lock(mutex_);
    for (const auto& tx : unrecorded) {
        auto it = inflight_.find(tx.nonce);
        if (recorded && it != inflight_.end() && it->second->hash == tx.hash) it->second->journaled = true;
    }
    for (std::uint64_t nonce : nonces) {
        auto it = inflight_.find(nonce);
        if (it != inflight_.end() && it->second->journaled) ready.push_back(nonce);
    }
    return ready;
}

void TxSender::settle(const std::vector<Settlement>& settlements) noexcept {
    if (options_.journal && !settlements.empty()) options_.journal->settle(settlements);
}

std::vector<Settlement> TxSender::dropped(const std::vector<eth::Hash32>& hashes) {
    std::vector<Settlement> out;
    for (const auto& hash : hashes) out.push_back({hash, TxOutcome::dropped, 0});
    return out;
}

void TxSender::settle_mined(const std::vector<Receipt>& receipts) noexcept {
    if (!options_.journal) return;
    std::vector<Settlement> settlements;
    {
        std::map<eth::Hash32, const Receipt*> mined;
        for (const auto& r : receipts) mined.emplace(r.transaction_hash, &r);
        std::lock_guard lock(mutex_);
        for (const auto& [nonce, f] : inflight_) {
            const auto versions = f->versions();
            const auto hit = std::find_if(versions.begin(), versions.end(), [&](const auto& h) { return mined.contains(h); });
            if (hit == versions.end()) continue;
            const Receipt& r = *mined.at(*hit);
            settlements.push_back({r.transaction_hash, r.success ? TxOutcome::mined : TxOutcome::reverted, r.block_number});
            for (const auto& h : versions)
                if (h != r.transaction_hash) settlements.push_back({h, TxOutcome::dropped, 0});
        }
    }
    settle(settlements);
}

void TxSender::broadcast(const std::vector<std::uint64_t>& all_nonces) {
    const auto nonces = journal(all_nonces);
    std::vector<rpc::Request> requests;
    std::vector<std::uint64_t> sent;
    {
        std::lock_guard lock(mutex_);
        for (std::uint64_t nonce : nonces) {
            auto it = inflight_.find(nonce);
            if (it == inflight_.end()) continue;  // mined meanwhile
            it->second->last_sent = Clock::now();
            requests.push_back({"eth_sendRawTransaction", {eth::to_hex(it->second->raw)}});
            sent.push_back(nonce);
        }
    }
    std::vector<rpc::Outcome> outcomes;
    try {
        outcomes = chain_.rpc().batch(requests);
    } catch (const Error&) {
        return;  // transport failure: broadcast_ok stays false, maintain() resends the same bytes
    }
    std::vector<std::uint64_t> conflicting, refused;
    {
        std::lock_guard lock(mutex_);
        for (std::size_t i = 0; i < sent.size(); ++i) {
            auto it = inflight_.find(sent[i]);
            if (it == inflight_.end()) continue;
            Inflight& f = *it->second;
            const rpc::RpcError* error = outcomes[i].error();
            SendRefusal refusal = error ? classify_send_refusal(*error) : SendRefusal::already_known;
            switch (refusal) {
            case SendRefusal::already_known:
                f.broadcast_ok = true;
                if (f.first_sent == Clock::time_point{}) f.first_sent = f.last_sent;
                break;
            case SendRefusal::nonce_too_high: break;  // resent by maintain() once the lower nonces are back
            case SendRefusal::nonce_too_low:
            case SendRefusal::nonce_taken:
                // For a replacement the nonce is held by an earlier version of the
                // same transaction, which the poller also watches: keep waiting.
                if (f.replacements > 0)
                    f.broadcast_ok = true;
                else
                    conflicting.push_back(sent[i]);
                break;
            case SendRefusal::other:
                if (f.intent && !f.intent->answered) {
                    f.intent->answered = true;
                    f.intent->promise.set_exception(std::make_exception_ptr(*error));
                }
                refused.push_back(sent[i]);
                break;
            }
        }
    }
    for (std::uint64_t nonce : conflicting) resign_with_new_nonce(nonce);
    for (std::uint64_t nonce : refused) fill(nonce);
    chain_.receipts().wake();
}

void TxSender::resign_with_new_nonce(std::uint64_t old_nonce) {
    // "Nonce too low" also answers a resend of our own transaction that was
    // mined meanwhile; then the poller completes it and nothing is to be done.
    eth::Hash32 hash;
    {
        std::lock_guard lock(mutex_);
        auto it = inflight_.find(old_nonce);
        if (it == inflight_.end()) return;
        hash = it->second->hash;
    }
    try {
        if (!chain_.rpc().call("eth_getTransactionByHash", {eth::to_hex(hash)}).is_null()) return;
        nonces_.sync(chain_.pending_nonce(key_.address()));
    } catch (const Error&) {
        return;  // unreachable: maintain() will resend and we will learn more then
    }
    // Someone else's transaction holds the old nonce, so it leaves no gap.
    auto f = untrack(old_nonce);
    if (!f) return;
    settle(dropped(f->versions()));
    const std::uint64_t nonce = nonces_.take();
    track(nonce, f->intent, f->fees, f->eip1559);
    broadcast({nonce});
}

std::unique_ptr<TxSender::Inflight> TxSender::untrack(std::uint64_t nonce) {
    std::unique_ptr<Inflight> f;
    {
        std::lock_guard lock(mutex_);
        auto it = inflight_.find(nonce);
        if (it == inflight_.end()) return nullptr;
        f = std::move(it->second);
        inflight_.erase(it);
    }
    chain_.receipts().cancel(f->watch);
    return f;
}

void TxSender::fill(std::uint64_t nonce) {
    auto refused = untrack(nonce);
    if (!refused) return;
    settle(dropped(refused->versions()));
    track(nonce, nullptr, refused->fees, refused->eip1559);
    broadcast({nonce});
}

void TxSender::on_mined(std::uint64_t nonce, const Receipt& receipt) {
    // Its journal entry was settled by settle_mined() before this callback
    // (the poller's round hook), while it was still in flight: a transaction
    // no longer in flight, or an answered mint, is never left pending there.
    std::lock_guard lock(mutex_);
    auto it = inflight_.find(nonce);
    if (it == inflight_.end()) return;
    auto intent = it->second->intent;
    inflight_.erase(it);
    if (intent && !intent->answered) {
        intent->answered = true;
        Receipt r = receipt;
        r.nonce = nonce;
        intent->promise.set_value(std::move(r));
    }
}

void TxSender::maintain() {
    const auto now = Clock::now();
    std::vector<std::uint64_t> resend;
    std::vector<std::pair<std::uint64_t, eth::Hash32>> check;
    {
        std::lock_guard lock(mutex_);
        auto expire = [&](const std::shared_ptr<Intent>& intent, const eth::Hash32* hash) {
            if (!intent || intent->answered || now < intent->deadline) return;
            intent->answered = true;
            const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(intent->request.timeout).count();
            intent->promise.set_exception(std::make_exception_ptr(Error(
                ErrorKind::timeout,
                hash ? "transaction " + eth::to_hex(*hash) + " not mined within " + std::to_string(seconds) +
                           " s; it is still pending and may be mined later"
                     : "transaction not sent within " + std::to_string(seconds) + " s: the node is unreachable")));
        };
        for (auto& intent : queue_) expire(intent, nullptr);
        std::erase_if(queue_, [](const auto& intent) { return intent->answered; });
        for (auto& [nonce, f] : inflight_) {
            expire(f->intent, &f->hash);
            if (!f->broadcast_ok)
                resend.push_back(nonce);
            else if (now - f->last_sent >= options_.rebroadcast_after)
                check.emplace_back(nonce, f->hash);
        }
    }
    if (!resend.empty()) broadcast(resend);
    if (check.empty()) return;

    std::vector<rpc::Request> requests;
    for (const auto& [nonce, hash] : check) requests.push_back({"eth_getTransactionByHash", {eth::to_hex(hash)}});
    std::vector<rpc::Outcome> outcomes;
    try {
        outcomes = chain_.rpc().batch(requests);
    } catch (const Error&) {
        return;
    }
    std::vector<std::uint64_t> forgotten, stuck;
    {
        std::lock_guard lock(mutex_);
        for (std::size_t i = 0; i < check.size(); ++i) {
            auto it = inflight_.find(check[i].first);
            if (it == inflight_.end() || !outcomes[i].ok()) continue;
            Inflight& f = *it->second;
            const auto& known = outcomes[i].value();
            if (known.is_null()) {
                forgotten.push_back(check[i].first);  // dropped by the node (restart, eviction): send again
            } else if (known.is_object() && known.contains("blockNumber") && !known["blockNumber"].is_null()) {
                f.last_sent = now;  // mined, waiting for its confirmations: nothing to resend or replace
            } else if (now - f.first_sent >= options_.replace_after) {
                f.fees = bumped(f.fees);
                ++f.replacements;
                sign(f, check[i].first);
                chain_.receipts().add_hash(f.watch, f.hash, ReceiptPoller::Sent::not_yet);
                f.first_sent = now;  // the replacement gets its own time to be mined
                stuck.push_back(check[i].first);
            } else {
                f.last_sent = now;
            }
        }
    }
    forgotten.insert(forgotten.end(), stuck.begin(), stuck.end());
    std::sort(forgotten.begin(), forgotten.end());
    if (!forgotten.empty()) broadcast(forgotten);
}

}  // namespace abci::chain
