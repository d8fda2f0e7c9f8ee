// One file for the sender, over 500 lines on purpose: every transition of a
// journaled transaction (core/chain/tx_state.hpp) is decided here, by the
// signing round, the broadcast, maintenance and the reorg watch sharing one
// lock and one map of what is in flight; split across files, the invariants
// that keep a nonce from being skipped or used twice would be too.
#include "core/chain/tx_sender.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "core/chain/send_errors.hpp"
#include "core/eth/tx.hpp"
#include "core/rpc/quantity.hpp"
#include "core/util/log.hpp"

namespace abci::chain {

struct TxSender::Intent {
    TxRequest request;
    std::uint64_t gas = 0;
    Clock::time_point deadline;
    std::promise<Receipt> promise;
    bool answered = false;  // guarded by TxSender::mutex_
    Clock::time_point queued = Clock::now();
};

// A signed transaction this sender is responsible for until the chain settles its nonce.
struct TxSender::Inflight {
    // Null once nobody waits for it: a filler, a transaction adopted from the
    // journal, or one whose caller's deadline passed (then answered is set).
    std::shared_ptr<Intent> intent;
    std::string purpose;     // of the current version ("filler" for a filler)
    bool resignable = true;  // false when adopted bytes do not decode as ours: the call is not known
    std::optional<eth::Address> to;
    eth::U256 value;
    eth::Bytes data;
    std::uint64_t gas = 0;
    bool eip1559 = true;
    Fees fees;
    eth::U256 fee_cap;  // replacements never offer more per gas
    eth::Bytes raw;
    eth::Hash32 hash{};
    // Earlier versions with this nonce (fee bumps, the mint a filler replaced),
    // which may still be mined, with their purposes.
    std::vector<std::pair<eth::Hash32, std::string>> superseded;
    bool journaled = false;        // the current version is in the journal
    bool broadcast_ok = false;     // the node accepted the current bytes
    bool contested = false;        // the node says the nonce is used or taken: judge() decides
    bool at_fee_cap = false;       // stuck: no further replacement is allowed
    Clock::time_point last_sent{};   // last broadcast attempt
    Clock::time_point first_sent{};  // first time the node accepted this nonce's transaction
    Clock::time_point first_signed{};  // its first version signed here; unknown when adopted
    std::chrono::system_clock::time_point since{};  // its first version signed or journaled
    unsigned replacements = 0;       // earlier versions with this nonce may still be mined
    ReceiptPoller::WatchId watch = 0;

    // Every version this nonce's transaction has been signed as, with its purpose, oldest first.
    [[nodiscard]] std::vector<std::pair<eth::Hash32, std::string>> all_versions() const {
        auto all = superseded;
        all.emplace_back(hash, purpose);
        return all;
    }
    [[nodiscard]] std::vector<eth::Hash32> versions() const {
        std::vector<eth::Hash32> all;
        for (const auto& [h, p] : all_versions()) all.push_back(h);
        return all;
    }
    // The fate of each purpose (mints, not fillers) of its versions once `mined`
    // is mined; without it, each is `status` (dropped: its nonce went to
    // someone else's transaction; refused).
    [[nodiscard]] std::vector<Unwaited> fates(const std::optional<Receipt>& mined,
                                              TxStatus status = TxStatus::dropped) const {
        const auto all = all_versions();
        std::vector<Unwaited> out;
        std::set<std::string> seen;
        // Not structured bindings, here and in adopt(): clang 14 (make fuzz)
        // cannot capture one in a lambda.
        for (const auto& version : all) {
            const auto& p = version.second;
            if (p == kFillerPurpose || !seen.insert(p).second) continue;
            const bool carried = mined && std::any_of(all.begin(), all.end(), [&](const auto& v) {
                return v.second == p && v.first == mined->transaction_hash;
            });
            if (carried)
                out.push_back({p, mined->success ? TxStatus::mined : TxStatus::reverted, mined});
            else
                out.push_back({p, mined ? TxStatus::replaced : status, std::nullopt});
        }
        return out;
    }
    // Keeps the current version watched and settled with the next one: it may still be mined.
    void supersede() {
        if (journaled || broadcast_ok) superseded.emplace_back(hash, purpose);
    }

    static constexpr const char* kFillerPurpose = "filler";
};

namespace {

constexpr std::uint64_t kTransferGas = 21'000;
// Without a configured cap, a replacement may offer up to this many times
// what its nonce was first signed with: about 12 replacements of 12.5%.
constexpr std::uint64_t kDefaultCapFactor = 4;

std::vector<Settlement> settlements(const std::vector<eth::Hash32>& hashes, TxStatus status) {
    std::vector<Settlement> out;
    for (const auto& hash : hashes) out.push_back({hash, status, 0});
    return out;
}

// The hash of an eth_getBlockByNumber answer; nothing when unanswered or not a block.
std::optional<eth::Hash32> block_hash(const rpc::Outcome& block) {
    if (!block.ok() || !block.value().is_object()) return std::nullopt;
    const auto hash = block.value().find("hash");
    if (hash == block.value().end() || !hash->is_string()) return std::nullopt;
    return eth::from_hex_fixed<32>(hash->get<std::string>(), "block hash");
}

// Whether an eth_getTransactionByHash answer places the transaction in a block.
bool in_a_block(const nlohmann::json& tx) {
    if (!tx.is_object()) return false;
    const auto block = tx.find("blockNumber");
    return block != tx.end() && !block->is_null();
}

std::string seconds_text(std::chrono::milliseconds t) {
    return std::to_string(std::chrono::duration_cast<std::chrono::seconds>(t).count()) + " s";
}

}  // namespace

TxSender::TxSender(ChainClient& chain, std::shared_ptr<const eth::TransactionSigner> signer, SenderOptions options)
    : chain_(chain), signer_(std::move(signer)), options_(options), thread_([this] { run(); }) {
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
    const char* why = "the transaction sender is shutting down";
    for (auto& intent : queue_)
        if (!intent->answered) intent->promise.set_exception(std::make_exception_ptr(NeverMined(ErrorKind::unavailable, why)));
    for (auto& [nonce, f] : inflight_)
        if (f->intent && !f->intent->answered) {
            f->intent->answered = true;
            f->intent->promise.set_exception(std::make_exception_ptr(Error(ErrorKind::unavailable, why)));
        }
}

std::future<Receipt> TxSender::submit(TxRequest request) {
    auto intent = std::make_shared<Intent>();
    intent->gas = request.gas_limit ? *request.gas_limit : estimate_gas(request);
    if (!request.timeout) request.timeout = options_.receipt_timeout;
    intent->deadline = Clock::now() + *request.timeout;
    intent->request = std::move(request);
    auto future = intent->promise.get_future();
    {
        std::lock_guard lock(mutex_);
        if (stopping_) throw NeverMined(ErrorKind::unavailable, "the transaction sender is shutting down");
        if (closed_) throw SenderClosed(ErrorKind::unavailable, *closed_);
        queue_.push_back(std::move(intent));
    }
    cv_.notify_all();
    return future;
}

std::uint64_t TxSender::estimate_gas(const TxRequest& request) {
    try {
        return chain_.estimate_gas({signer_->address(), request.to, request.value, request.data});
    } catch (const rpc::RpcError& e) {
        // Some nodes refuse to estimate for a signer that cannot pay (-32003
        // "insufficient funds for gas * price + value"): the refusal of an
        // unfunded signer, as when the node refuses the transaction itself.
        if (classify_send_refusal(e) != SendRefusal::insufficient_funds) throw;
        Inflight facts;  // no gas: the node would not say how much
        facts.value = request.value;
        try {
            facts.fees = chain_.fee_tiers().standard;
        } catch (const Error&) {
            // The message goes without the price per gas.
        }
        throw funds_error(facts, e);
    }
}

std::size_t TxSender::in_flight() const {
    std::lock_guard lock(mutex_);
    return inflight_.size();
}

void TxSender::on_unwaited(UnwaitedListener listener) {
    std::lock_guard lock(mutex_);
    unwaited_ = std::move(listener);
}

void TxSender::notify(const std::vector<Unwaited>& fates) {
    if (fates.empty()) return;
    UnwaitedListener listener;
    {
        std::lock_guard lock(mutex_);
        listener = unwaited_;
    }
    if (!listener) return;
    for (const auto& fate : fates) {
        try {
            listener(fate);
        } catch (const std::exception& e) {
            util::log(util::LogLevel::error, "recording the outcome of a transaction failed",
                      {{"status", to_string(fate.status)}, {"error", e.what()}});
        }
    }
}

std::vector<StuckTx> TxSender::stuck() const {
    const auto now = Clock::now();
    std::vector<StuckTx> out;
    std::lock_guard lock(mutex_);
    for (const auto& [nonce, f] : inflight_)
        if (f->at_fee_cap)  // set when a replacement or a repricing (fee refused) would pass the cap
            out.push_back({nonce, f->hash, std::chrono::duration_cast<std::chrono::seconds>(now - f->first_sent)});
    return out;
}

LaneFigures TxSender::figures() const {
    LaneFigures out;
    std::lock_guard lock(mutex_);
    out.queued = queue_.size();
    for (const auto& [nonce, f] : inflight_) {
        if (f->at_fee_cap)
            ++out.stuck;
        else if (f->broadcast_ok)
            ++out.sent;
        else
            ++out.signed_unsent;
        if (!out.oldest || f->since < *out.oldest) out.oldest = f->since;
    }
    return out;
}

void TxSender::adopt(std::vector<JournaledTx> txs) {
    std::map<std::uint64_t, std::vector<JournaledTx>> by_nonce;
    for (auto& tx : txs) by_nonce[tx.nonce].push_back(std::move(tx));
    for (auto& entry : by_nonce) {
        const std::uint64_t nonce = entry.first;
        auto& versions = entry.second;
        auto f = std::make_unique<Inflight>();
        JournaledTx& last = versions.back();
        for (std::size_t i = 0; i + 1 < versions.size(); ++i) f->superseded.emplace_back(versions[i].hash, versions[i].purpose);
        f->purpose = std::move(last.purpose);
        f->resignable = false;
        // Its fees as signed: a filler that takes its nonce must offer more
        // than the version the node may still hold.
        try {
            const auto signed_tx = eth::decode_transaction(last.raw);
            const auto& tx = signed_tx.tx;
            const auto fees_of = [](const eth::Transaction& t) {
                return t.type == eth::TxType::eip1559 ? Fees{t.max_fee_per_gas, t.max_priority_fee_per_gas}
                                                      : Fees{t.gas_price, t.gas_price};
            };
            f->eip1559 = tx.type == eth::TxType::eip1559;
            f->fees = fees_of(tx);
            // Its call too, when it is ours on this chain: signed again
            // higher, it can outbid a base fee that rose past it, or be
            // replaced once it sits unmined, as before the restart. The
            // ceiling counts from the nonce's first version, as it did then.
            if (signed_tx.from == signer_->address() && tx.chain_id == chain_.settings().chain_id) {
                f->to = tx.to;
                f->value = tx.value;
                f->data = tx.data;
                f->gas = tx.gas_limit;
                eth::U256 first_fee = f->fees.max_fee_per_gas;
                try {
                    first_fee = fees_of(eth::decode_transaction(versions.front().raw).tx).max_fee_per_gas;
                } catch (const Error&) {
                    // An older version's bytes are not needed to send this one: the ceiling counts from it.
                }
                f->fee_cap = options_.max_fee_per_gas != eth::U256(0) ? options_.max_fee_per_gas
                                                                       : first_fee * eth::U256(kDefaultCapFactor);
                f->resignable = true;
            }
        } catch (const Error& e) {
            util::log(util::LogLevel::warning, "a journaled transaction does not decode; a filler of its nonce offers "
                      "the current fees", {{"nonce", nonce}, {"hash", eth::to_hex(last.hash)}, {"error", e.what()}});
        }
        f->raw = std::move(last.raw);
        f->hash = last.hash;
        f->since = versions.front().journaled_at != std::chrono::system_clock::time_point{} ? versions.front().journaled_at
                                                                                           : std::chrono::system_clock::now();
        f->journaled = true;
        f->replacements = static_cast<unsigned>(versions.size() - 1);
        {
            std::lock_guard lock(mutex_);
            if (inflight_.contains(nonce)) {
                // Only after a reorg: the nonce went to a transaction we track now.
                util::log(util::LogLevel::error, "a transaction to send again has the nonce of one in flight; it is left",
                          {{"chainId", chain_.settings().chain_id}, {"nonce", nonce}, {"hash", eth::to_hex(f->hash)}});
                continue;
            }
        }
        // Maybe mined while we were down: looked up at once.
        f->watch = chain_.receipts().watch(f->hash, [this, nonce](const Receipt& r) { on_mined(nonce, r); });
        for (const auto& [h, p] : f->superseded) chain_.receipts().add_hash(f->watch, h);
        std::lock_guard lock(mutex_);
        adopted_next_ = std::max(adopted_next_, nonce + 1);
        inflight_[nonce] = std::move(f);
    }
    cv_.notify_all();
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
        try {
            // The first maintenance comes before the first send: it reads the
            // genesis block, so that a reset right after a first mint is told
            // from a reorg however late this thread runs after the send.
            if (last_maintenance_ == Clock::time_point{}) {
                last_maintenance_ = Clock::now();
                maintain();
            }
            if (!round.empty()) sign_round(std::move(round));
            if (Clock::now() - last_maintenance_ >= options_.maintenance_interval) {
                last_maintenance_ = Clock::now();
                maintain();
            }
        } catch (const Error& e) {
            // The signer failed while signing again (a fee bump, a repriced
            // or filler version): the versions already signed stay in flight
            // and watched, and the next round tries again.
            util::log(util::LogLevel::error, "signing a new version of a transaction failed; tried again shortly",
                      {{"chainId", chain_.settings().chain_id}, {"error", e.what()}});
        }
    }
}

void TxSender::sign_round(std::vector<std::shared_ptr<Intent>> intents) {
    FeeTiers tiers;
    try {
        bool idle = false;
        std::uint64_t floor = 0;
        {
            std::lock_guard lock(mutex_);
            idle = inflight_.empty();
            floor = adopted_next_;
        }
        if (!nonces_.synced()) {
            nonces_.sync(std::max(chain_.pending_nonce(signer_->address()), floor));
        } else if (idle) {
            // Nothing of ours is pending, so the node's count is the truth. Behind
            // our view, the chain lost what we sent (a devnet restarted without
            // its state): a nonce from our view would wait forever in its queue.
            const std::uint64_t chain_next = chain_.pending_nonce(signer_->address());
            if (chain_next < nonces_.peek()) {
                util::log(util::LogLevel::error,
                          "the chain has fewer transactions of the signer than this server sent: it was reset or "
                          "lost blocks; nonces start again from the chain's count",
                          {{"chainId", chain_.settings().chain_id},
                           {"signer", signer_->address().checksummed()},
                           {"chainNonce", chain_next},
                           {"expectedNonce", nonces_.peek()}});
                nonces_.reset(chain_next);
            } else {
                nonces_.sync(chain_next);
            }
        }
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
        if (options_.metrics) options_.metrics->observe(MintStage::queued_to_signed, Clock::now() - intent->queued);
        const std::uint64_t nonce = nonces_.take();
        try {
            track(nonce, intent, tiers.tier(intent->request.tier), tiers.eip1559);
        } catch (const Error& e) {
            // The signer failed (a token gone, a hostile answer): nothing was
            // signed, journaled or sent with this nonce, so it goes back and
            // the caller learns its transaction was never sent.
            (void)nonces_.give_back(nonce);
            util::log(util::LogLevel::error, "the signer failed; the transaction was not sent",
                      {{"chainId", chain_.settings().chain_id}, {"signer", signer_->address().checksummed()},
                       {"error", e.what()}});
            std::lock_guard lock(mutex_);
            if (!intent->answered) {
                intent->answered = true;
                intent->promise.set_exception(std::make_exception_ptr(NeverMined(e.kind(), e.what(), e.details())));
            }
            continue;
        }
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
        f->purpose = intent->request.purpose;
    } else {
        f->to = signer_->address();
        f->gas = kTransferGas;
        f->purpose = Inflight::kFillerPurpose;
    }
    f->intent = std::move(intent);
    f->eip1559 = eip1559;
    f->fees = fees;
    f->fee_cap = options_.max_fee_per_gas != eth::U256(0) ? options_.max_fee_per_gas
                                                           : fees.max_fee_per_gas * eth::U256(kDefaultCapFactor);
    sign(*f, nonce);
    f->first_signed = Clock::now();
    f->since = std::chrono::system_clock::now();
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
    eth::SignedTransaction signed_tx = signer_->sign_transaction(tx);
    f.journaled = options_.journal == nullptr;
    f.broadcast_ok = false;
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
            unrecorded.push_back({f.hash, nonce, f.raw, f.purpose});
        }
    }
    bool recorded = true;
    std::set<eth::Hash32> alone;  // recorded one at a time, after the batch was refused
    if (!unrecorded.empty()) {
        try {
            {
                std::lock_guard lock(mutex_);
                if (closed_) return {};
            }
            options_.journal->record(unrecorded);
        } catch (const JournalClosed& e) {
            std::lock_guard lock(mutex_);
            close(e.what());
            return {};
        } catch (const Error& e) {
            recorded = false;  // stays unbroadcast; maintain() tries again
            util::log(util::LogLevel::warning, "journaling signed transactions failed; they wait unsent",
                      {{"error", e.what()}, {"transactions", unrecorded.size()}});
            if (e.kind() == ErrorKind::conflict) alone = journal_one_by_one(unrecorded);
        }
    }
    std::vector<std::uint64_t> ready;
    std::lock_guard lock(mutex_);
    for (const auto& tx : unrecorded) {
        auto it = inflight_.find(tx.nonce);
        if ((recorded || alone.contains(tx.hash)) && it != inflight_.end() && it->second->hash == tx.hash)
            it->second->journaled = true;
    }
    for (std::uint64_t nonce : nonces) {
        auto it = inflight_.find(nonce);
        if (it != inflight_.end() && it->second->journaled) ready.push_back(nonce);
    }
    return ready;
}

void TxSender::replace(Inflight& f, std::uint64_t nonce, const Fees& fees) {
    if (options_.metrics) options_.metrics->fee_bump();
    f.supersede();
    f.fees = fees;
    ++f.replacements;
    sign(f, nonce);
    chain_.receipts().add_hash(f.watch, f.hash, ReceiptPoller::Sent::not_yet);
}

std::set<eth::Hash32> TxSender::journal_one_by_one(const std::vector<SignedTx>& txs) {
    std::set<eth::Hash32> recorded;
    for (const auto& tx : txs) {
        try {
            options_.journal->record({tx});
            recorded.insert(tx.hash);
            continue;
        } catch (const Error& e) {
            if (e.kind() != ErrorKind::conflict) break;  // closed or down: the next round says so
        }
        // A mint's bytes twice are an anomaly the warning above shows; it waits.
        if (tx.purpose != Inflight::kFillerPurpose) continue;
        std::lock_guard lock(mutex_);
        auto it = inflight_.find(tx.nonce);
        if (it == inflight_.end() || it->second->hash != tx.hash) continue;
        Inflight& f = *it->second;
        // Kept among its versions: should these bytes be on this chain, they settle the nonce.
        replace(f, tx.nonce, bumped(f.fees));
    }
    return recorded;
}

void TxSender::close(const std::string& why) {
    if (!closed_)
        util::log(util::LogLevel::warning, "the journal takes no more transactions; their callers are told",
                  {{"reason", why}});
    closed_ = why;
    const auto refuse = [&](Intent& intent) {
        if (intent.answered) return;
        intent.answered = true;
        intent.promise.set_exception(std::make_exception_ptr(SenderClosed(ErrorKind::unavailable, why)));
    };
    for (auto& intent : queue_) refuse(*intent);
    for (auto& [nonce, f] : inflight_)
        if (f->intent && !f->journaled) refuse(*f->intent);
}

void TxSender::settle(const std::vector<Settlement>& s) noexcept {
    if (options_.journal && !s.empty()) options_.journal->settle(s);
}

void TxSender::settle_mined(const std::vector<Receipt>& receipts) noexcept {
    if (!options_.journal) return;
    std::vector<Settlement> out;
    {
        std::map<eth::Hash32, const Receipt*> mined;
        for (const auto& r : receipts) mined.emplace(r.transaction_hash, &r);
        std::lock_guard lock(mutex_);
        for (const auto& [nonce, f] : inflight_) {
            const auto versions = f->versions();
            const auto hit = std::find_if(versions.begin(), versions.end(), [&](const auto& h) { return mined.contains(h); });
            if (hit == versions.end()) continue;
            const Receipt& r = *mined.at(*hit);
            out.push_back({r.transaction_hash, r.success ? TxStatus::mined : TxStatus::reverted, r.block_number});
            for (const auto& h : versions)
                if (h != r.transaction_hash) out.push_back({h, TxStatus::replaced, 0});
        }
    }
    settle(out);
}

void TxSender::broadcast(const std::vector<std::uint64_t>& all_nonces, bool reprice_refused) {
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
    if (requests.empty()) return;
    std::vector<rpc::Outcome> outcomes;
    try {
        outcomes = chain_.rpc().batch(requests);
    } catch (const Error&) {
        return;  // transport failure: broadcast_ok stays false, maintain() resends the same bytes
    }
    std::vector<std::uint64_t> contested, outgrown;
    std::vector<std::pair<std::uint64_t, rpc::RpcError>> refusals;
    const auto accepted = [this](Inflight& f) {
        f.broadcast_ok = true;
        if (f.first_sent != Clock::time_point{}) return;
        f.first_sent = f.last_sent;
        if (options_.metrics && f.first_signed != Clock::time_point{} && f.purpose != Inflight::kFillerPurpose)
            options_.metrics->observe(MintStage::signed_to_sent, f.first_sent - f.first_signed);
    };
    {
        std::lock_guard lock(mutex_);
        for (std::size_t i = 0; i < sent.size(); ++i) {
            auto it = inflight_.find(sent[i]);
            if (it == inflight_.end()) continue;
            Inflight& f = *it->second;
            const rpc::RpcError* error = outcomes[i].error();
            const SendRefusal refusal = error ? classify_send_refusal(*error) : SendRefusal::already_known;
            switch (refusal) {
            case SendRefusal::already_known: accepted(f); break;
            case SendRefusal::nonce_too_high: break;  // resent by maintain() once the lower nonces are back
            case SendRefusal::nonce_too_low:
            case SendRefusal::nonce_taken:
                // Used or taken by what? An earlier version of ours, mined or
                // pending, or someone else's transaction: only the chain can tell.
                accepted(f);
                // An underpriced replacement only means our earlier version is still pending.
                if (f.replacements == 0 || refusal == SendRefusal::nonce_too_low) {
                    f.contested = true;
                    contested.push_back(sent[i]);
                }
                break;
            case SendRefusal::fee_too_low:
                // Not a verdict on the transaction: the chain's price rose
                // past it (a burst of our own fills blocks and raises the
                // base fee 12.5 % a block). Failing its caller would have the
                // caller send the mint again, under a nonce of its own.
                if (f.resignable) {
                    outgrown.push_back(sent[i]);
                    break;
                }
                [[fallthrough]];  // adopted bytes that do not decode: its call is not known
            case SendRefusal::insufficient_funds:
            case SendRefusal::other: refusals.emplace_back(sent[i], *error); break;
            }
        }
    }
    if (!outgrown.empty()) {
        const auto repriced = reprice(outgrown);
        // Refused again (the base fee rose meanwhile): maintain() offers it next round.
        if (reprice_refused && !repriced.empty()) broadcast(repriced, false);
    }
    settle_contested(contested);
    // Highest first, so that a burst the node refused as a whole gives all its nonces back.
    std::sort(refusals.begin(), refusals.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    for (const auto& [nonce, error] : refusals) refused(nonce, error);
    chain_.receipts().wake();
}

TxSender::NonceFate TxSender::judge(std::uint64_t nonce, const std::vector<eth::Hash32>& versions) {
    try {
        if (chain_.latest_nonce(signer_->address()) <= nonce) return NonceFate::open;
        std::vector<rpc::Request> requests;
        for (const auto& h : versions) requests.push_back({"eth_getTransactionReceipt", {eth::to_hex(h)}});
        const auto outcomes = chain_.rpc().batch(requests);
        for (const auto& o : outcomes) {
            if (!o.ok()) return NonceFate::open;  // unanswered: no proof either way
            if (!o.value().is_null()) return NonceFate::ours;
        }
        return NonceFate::foreign;
    } catch (const Error&) {
        return NonceFate::open;
    }
}

void TxSender::settle_contested(const std::vector<std::uint64_t>& nonces) {
    for (std::uint64_t nonce : nonces) {
        std::vector<eth::Hash32> versions;
        {
            std::lock_guard lock(mutex_);
            auto it = inflight_.find(nonce);
            if (it == inflight_.end()) continue;
            versions = it->second->versions();
        }
        switch (judge(nonce, versions)) {
        case NonceFate::open: break;  // looked at again by maintain()
        case NonceFate::ours: chain_.receipts().wake(); break;
        case NonceFate::foreign: {
            bool resignable = false;
            {
                std::lock_guard lock(mutex_);
                auto it = inflight_.find(nonce);
                if (it == inflight_.end()) continue;
                resignable = it->second->intent && it->second->resignable;
            }
            util::log(util::LogLevel::warning, "another transaction used a nonce of the signer",
                      {{"chainId", chain_.settings().chain_id}, {"signer", signer_->address().checksummed()}, {"nonce", nonce}});
            if (resignable) {
                resign_with_new_nonce(nonce);
            } else if (auto f = untrack(nonce)) {
                settle(settlements(f->versions(), TxStatus::dropped));
                notify(f->fates(std::nullopt));
            }
            break;
        }
        }
    }
}

std::vector<std::uint64_t> TxSender::reprice(const std::vector<std::uint64_t>& nonces) {
    std::optional<Fees> current;
    try {
        current = chain_.fee_tiers().standard;
    } catch (const Error&) {
        // A raise over the refused version's fees alone, then.
    }
    std::vector<std::uint64_t> repriced;
    std::lock_guard lock(mutex_);
    for (const std::uint64_t nonce : nonces) {
        auto it = inflight_.find(nonce);
        if (it == inflight_.end()) continue;
        Inflight& f = *it->second;
        // A raise the node takes as a replacement of the refused version,
        // should it hold that one after all, and at least what it asks now.
        Fees fees = bumped(f.fees);
        if (current) {
            fees.max_fee_per_gas = std::max(fees.max_fee_per_gas, current->max_fee_per_gas);
            fees.max_priority_fee_per_gas = std::max(fees.max_priority_fee_per_gas, current->max_priority_fee_per_gas);
        }
        fees.max_fee_per_gas = std::min(fees.max_fee_per_gas, f.fee_cap);
        fees.max_priority_fee_per_gas = std::min(fees.max_priority_fee_per_gas, fees.max_fee_per_gas);
        if (fees.max_fee_per_gas <= f.fees.max_fee_per_gas) {
            // Nothing higher may be offered: it waits, offered again each
            // round (broadcast_ok stays false), for the base fee to fall.
            if (!f.at_fee_cap) {
                f.at_fee_cap = true;
                if (f.first_sent == Clock::time_point{}) f.first_sent = Clock::now();
                util::log(util::LogLevel::warning, "the chain's base fee is above a transaction's fee cap; it waits",
                          {{"chainId", chain_.settings().chain_id}, {"nonce", nonce}, {"hash", eth::to_hex(f.hash)},
                           {"maxFeePerGas", f.fees.max_fee_per_gas.to_dec()}});
            }
            continue;
        }
        replace(f, nonce, fees);
        repriced.push_back(nonce);
    }
    return repriced;
}

NeverMined TxSender::funds_error(const Inflight& f, const rpc::RpcError& error) {
    std::string balance = "an unknown balance";
    try {
        balance = chain_.balance(signer_->address()).to_dec() + " wei";
    } catch (const Error&) {
        // The message still names what is needed.
    }
    std::string per_gas, value;
    if (f.fees.max_fee_per_gas != eth::U256(0)) per_gas = fmt::format(" at up to {} wei per gas", f.fees.max_fee_per_gas.to_dec());
    if (f.value != eth::U256(0)) value = fmt::format(" plus a value of {} wei", f.value.to_dec());
    const std::string needs =
        f.gas ? fmt::format("up to {} wei (gas {}{}{})", (eth::U256(f.gas) * f.fees.max_fee_per_gas + f.value).to_dec(),
                            f.gas, per_gas, value)
              : fmt::format("more: its gas{}{}, which the node would not even estimate for so little", per_gas, value);
    return NeverMined(ErrorKind::unavailable,
                      fmt::format("the signer {} has {} but this transaction needs {}: fund the signer and try again",
                                  signer_->address().checksummed(), balance, needs),
                      {error.rpc_message()});
}

void TxSender::refused(std::uint64_t nonce, const rpc::RpcError& error) {
    const bool funds = classify_send_refusal(error) == SendRefusal::insufficient_funds;
    Inflight facts;  // what the error message needs, copied out: no lock across the balance lookup
    bool filler = false;
    {
        std::lock_guard lock(mutex_);
        auto it = inflight_.find(nonce);
        if (it == inflight_.end()) return;
        filler = it->second->purpose == Inflight::kFillerPurpose;
        facts.gas = it->second->gas;
        facts.fees = it->second->fees;
        facts.value = it->second->value;
    }
    if (filler) {
        // A filler is never itself filled: maintain() sends it again until the
        // node takes it (funds arrive), and nothing above it is lost meanwhile.
        util::log(util::LogLevel::error, "the node refuses the transfer that fills a nonce of the signer",
                  {{"chainId", chain_.settings().chain_id}, {"nonce", nonce}, {"error", error.rpc_message()}});
        return;
    }
    std::exception_ptr answer;
    if (funds)
        answer = std::make_exception_ptr(funds_error(facts, error));
    else
        answer = std::make_exception_ptr(
            NeverMined(ErrorKind::chain_rejected, "the node refused the transaction: " + error.rpc_message()));
    std::shared_ptr<Intent> waiter;  // answered last, once the journal says what became of the nonce
    {
        std::lock_guard lock(mutex_);
        auto it = inflight_.find(nonce);
        if (it == inflight_.end()) return;
        Inflight& f = *it->second;
        if (f.intent && !f.intent->answered) waiter = f.intent;
        f.intent = nullptr;
    }
    // Nothing was accepted with this nonce: when it is the last one handed
    // out, the next transaction takes it; otherwise a filler keeps the
    // nonces above it moving.
    if (funds && nonces_.give_back(nonce)) {
        if (auto f = untrack(nonce)) {
            settle(settlements(f->versions(), TxStatus::refused));
            if (!waiter) notify(f->fates(std::nullopt, TxStatus::refused));
        }
    } else {
        fill(nonce);
    }
    if (!waiter) return;
    std::lock_guard lock(mutex_);
    if (waiter->answered) return;
    waiter->answered = true;
    waiter->promise.set_exception(answer);
}

void TxSender::resign_with_new_nonce(std::uint64_t old_nonce) {
    try {
        nonces_.sync(chain_.pending_nonce(signer_->address()));
    } catch (const Error&) {
        return;  // unreachable: maintain() judges the nonce again
    }
    auto f = untrack(old_nonce);
    if (!f) return;
    settle(settlements(f->versions(), TxStatus::dropped));
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
    // At least what the chain asks now: the nonce's last version may have
    // been signed long ago (adopted after a restart) when fees were lower.
    std::optional<Fees> current;
    try {
        current = chain_.fee_tiers().standard;
    } catch (const Error&) {
        // A raise over the last version's fees alone, then.
    }
    {
        std::lock_guard lock(mutex_);
        auto it = inflight_.find(nonce);
        if (it == inflight_.end()) return;
        Inflight& f = *it->second;
        if (options_.metrics) options_.metrics->replacement();
        f.supersede();
        f.purpose = Inflight::kFillerPurpose;
        f.intent = nullptr;
        f.resignable = true;
        f.to = signer_->address();
        f.value = eth::U256(0);
        f.data.clear();
        f.gas = kTransferGas;
        f.fees = bumped(f.fees);
        if (current) {
            f.fees.max_fee_per_gas = std::max(f.fees.max_fee_per_gas, current->max_fee_per_gas);
            f.fees.max_priority_fee_per_gas = std::max(f.fees.max_priority_fee_per_gas, current->max_priority_fee_per_gas);
        }
        f.contested = false;
        f.at_fee_cap = false;
        ++f.replacements;
        sign(f, nonce);
        chain_.receipts().add_hash(f.watch, f.hash, ReceiptPoller::Sent::not_yet);
    }
    broadcast({nonce});
}

void TxSender::recover_from_reset(std::uint64_t chain_next) {
    std::vector<std::uint64_t> ours;
    {
        std::lock_guard lock(mutex_);
        for (auto& [nonce, f] : inflight_) {
            ours.push_back(nonce);
            if (f->intent && !f->intent->answered) {
                f->intent->answered = true;
                f->intent->promise.set_exception(std::make_exception_ptr(Error(
                    ErrorKind::unavailable,
                    "the chain was reset or lost blocks: its nonce for the signer is " + std::to_string(chain_next) +
                        ", behind this transaction's " + std::to_string(nonce) +
                        "; the mint was not made and is being cancelled, retry it in a moment")));
            }
        }
    }
    if (ours.empty()) return;
    util::log(util::LogLevel::error,
              "the chain was reset or lost blocks: the signer's transactions are replaced by 0-value transfers and "
              "their requests failed",
              {{"chainId", chain_.settings().chain_id},
               {"signer", signer_->address().checksummed()},
               {"chainNonce", chain_next},
               {"firstNonce", ours.front()},
               {"transactions", ours.size()}});
    for (std::uint64_t nonce : ours) fill(nonce);
    Fees fees;
    bool eip1559 = true;
    try {
        const auto tiers = chain_.fee_tiers();
        fees = tiers.standard;
        eip1559 = tiers.eip1559;
    } catch (const Error&) {
        return;  // the gap is filled at the next check
    }
    std::vector<std::uint64_t> gap;
    for (std::uint64_t nonce = chain_next; nonce < ours.front(); ++nonce) {
        track(nonce, nullptr, fees, eip1559);
        gap.push_back(nonce);
    }
    broadcast(gap);
}

std::optional<TxSender::BlockCheck> TxSender::check_blocks() {
    std::map<std::uint64_t, eth::Hash32> blocks;  // each watched block and the hash its transactions were mined under
    {
        std::lock_guard lock(mutex_);
        for (const auto& s : settled_) blocks.emplace(s.block, s.block_hash);
    }
    // The genesis block is looked at even with nothing settled: known only
    // once something was, a reset soon after a first mint (before the next
    // check) looked like a deep reorg, and the vanished chain's transactions
    // were sent again onto the new one.
    BlockCheck check;
    try {
        if (!blocks.empty()) check.head = chain_.block_number();
        // A block at a time, not a receipt per transaction: a burst of
        // mints fills a few blocks with hundreds of transactions each.
        std::vector<rpc::Request> requests;
        for (const auto& [number, hash] : blocks)
            requests.push_back({"eth_getBlockByNumber", {rpc::to_quantity(number), false}});
        // With them the genesis block: another one means another chain (a reset), not a reorg.
        requests.push_back({"eth_getBlockByNumber", {"0x0", false}});
        const auto outcomes = chain_.rpc().batch(requests);
        if (const auto genesis = block_hash(outcomes.back())) {
            check.other_genesis = genesis_ && *genesis_ != *genesis;
            if (options_.journal && genesis_ != genesis) options_.journal->record_genesis(*genesis);
            genesis_ = genesis;
        }
        std::size_t i = 0;
        for (const auto& [number, hash] : blocks) {
            const auto& o = outcomes[i++];
            if (!o.ok()) continue;
            if (o.value().is_null()) {
                check.shorter = true;
                check.gone.insert(number);
            } else if (block_hash(o) != hash) {
                check.changed.insert(number);
                check.gone.insert(number);
            }
        }
    } catch (const std::exception&) {
        return std::nullopt;  // looked at again at the next check
    }
    return check;
}

void TxSender::check_settled() {
    const auto check = check_blocks();
    if (!check) return;
    // Another genesis is another chain: what it does not hold as we saw it
    // mined (mined before the reset) is gone with the old chain; what it does
    // (mined since) stays settled.
    if (check->other_genesis) return forget_settled_blocks(check->gone);
    // A reorg replaces blocks with a longer chain; a chain shorter than what
    // we saw mined was reset (twice in a row: a lagging failover node is no
    // reason).
    if (!check->shorter) {
        shorter_evidence_ = 0;
    } else if (++shorter_evidence_ >= 2) {
        shorter_evidence_ = 0;
        return forget_settled_blocks(check->gone);
    } else {
        return;
    }
    std::vector<Settled> watched;
    {
        std::lock_guard lock(mutex_);
        for (const auto& s : settled_)
            if (check->changed.contains(s.block)) watched.push_back(s);
        if (check->changed.empty())
            std::erase_if(settled_, [&](const Settled& s) { return s.block + options_.reorg_watch_blocks < check->head; });
    }
    if (!watched.empty()) follow_reorged(watched, check->head);
}

void TxSender::follow_reorged(const std::vector<Settled>& watched, std::uint64_t head) {
    std::vector<rpc::Outcome> outcomes;
    try {
        std::vector<rpc::Request> requests;
        for (const auto& w : watched) requests.push_back({"eth_getTransactionReceipt", {eth::to_hex(w.hash)}});
        outcomes = chain_.rpc().batch(requests);
    } catch (const Error&) {
        return;
    }
    std::vector<Settlement> moved;
    std::vector<Unwaited> answered_again;  // the moved ones' mints: their answers named the block that left
    std::set<eth::Hash32> gone;
    std::vector<JournaledTx> again;
    for (std::size_t i = 0; i < watched.size(); ++i) {
        const auto& w = watched[i];
        if (!outcomes[i].ok()) continue;
        if (outcomes[i].value().is_null()) {
            util::log(util::LogLevel::error,
                      w.raw ? "a reorg deeper than the confirmations removed a mined transaction; it is sent again"
                            : "a reorg deeper than the confirmations removed a mined transaction whose bytes are not "
                              "kept; see `abcictl admin journal list`",
                      {{"chainId", chain_.settings().chain_id}, {"hash", eth::to_hex(w.hash)}, {"block", w.block},
                       {"nonce", w.nonce}});
            if (options_.journal) options_.journal->reopen(w.hash);
            gone.insert(w.hash);
            if (w.raw) again.push_back({w.hash, w.nonce, *w.raw, w.purpose});
            continue;
        }
        std::optional<Receipt> now_in;
        try {
            now_in = Receipt::from_json(outcomes[i].value());
        } catch (const Error&) {
            continue;  // a malformed answer proves nothing
        }
        if (now_in->block_hash == w.block_hash) continue;
        util::log(util::LogLevel::error, "a reorg deeper than the confirmations moved a mined transaction to another block",
                  {{"chainId", chain_.settings().chain_id}, {"hash", eth::to_hex(w.hash)}, {"block", w.block},
                   {"nowInBlock", now_in->block_number}});
        if (options_.journal) options_.journal->reopen(w.hash);
        moved.push_back({w.hash, now_in->success ? TxStatus::mined : TxStatus::reverted, now_in->block_number});
        if (w.purpose != Inflight::kFillerPurpose) {
            now_in->confirm_at(head);
            answered_again.push_back({w.purpose, moved.back().status, *now_in});
        }
        std::lock_guard lock(mutex_);
        for (auto& s : settled_)
            if (s.hash == w.hash) {
                s.block_hash = now_in->block_hash;
                s.block = now_in->block_number;
            }
    }
    settle(moved);
    notify(answered_again);
    {
        std::lock_guard lock(mutex_);
        std::erase_if(settled_, [&](const Settled& s) {
            return gone.contains(s.hash) || s.block + options_.reorg_watch_blocks < head;
        });
    }
    // Tracked again from its bytes, as if adopted from the journal at start.
    if (options_.metrics)
        for (std::size_t i = 0; i < again.size(); ++i) options_.metrics->reorg_rebroadcast();
    if (!again.empty()) adopt(std::move(again));
}

void TxSender::forget_settled_blocks(const std::set<std::uint64_t>& gone) {
    std::vector<Settled> lost;
    {
        std::lock_guard lock(mutex_);
        for (const auto& s : settled_)
            if (gone.contains(s.block)) lost.push_back(s);
        std::erase_if(settled_, [&](const Settled& s) { return gone.contains(s.block); });
    }
    if (lost.empty()) return;
    util::log(util::LogLevel::error,
              "the chain was reset (another genesis block, or fewer blocks than it had): transactions recorded as "
              "mined are gone with the old chain and are not sent again",
              {{"chainId", chain_.settings().chain_id}, {"transactions", lost.size()}});
    std::vector<Settlement> dropped;
    for (const auto& s : lost) {
        if (options_.journal) options_.journal->reopen(s.hash);
        dropped.push_back({s.hash, TxStatus::dropped, 0});
    }
    settle(dropped);
}

void TxSender::on_mined(std::uint64_t nonce, const Receipt& receipt) {
    // Its journal entry was settled by settle_mined() before this callback
    // (the poller's round hook), while it was still in flight: a transaction
    // no longer in flight, or an answered mint, is never left pending there.
    std::vector<Unwaited> fates;
    {
        std::lock_guard lock(mutex_);
        auto it = inflight_.find(nonce);
        if (it == inflight_.end()) return;
        const auto intent = it->second->intent;
        Receipt r = receipt;
        r.nonce = nonce;
        const Inflight& f = *it->second;
        std::string purpose;
        for (const auto& [h, p] : f.all_versions())
            if (h == r.transaction_hash) purpose = p;
        if (options_.metrics && f.first_sent != Clock::time_point{} && purpose != Inflight::kFillerPurpose) {
            const auto now = Clock::now();
            const auto mined = r.mined_seen != Clock::time_point{} ? r.mined_seen : now;
            options_.metrics->observe(MintStage::sent_to_mined, mined - f.first_sent);
            // Once per mint: a transaction adopted (at a takeover, or sent
            // again after a deep reorg) was confirmed once already, or its
            // wait began with a server that is gone.
            if (f.first_signed != Clock::time_point{}) options_.metrics->observe(MintStage::mined_to_confirmed, now - mined);
        }
        if (options_.reorg_watch_blocks > 0) {
            settled_.push_back({r.transaction_hash, r.block_hash, r.block_number, nonce,
                                f.hash == r.transaction_hash ? std::optional(f.raw) : std::nullopt, std::move(purpose)});
        }
        if (intent && !intent->answered) {
            intent->answered = true;
            intent->promise.set_value(std::move(r));
        } else {
            fates = f.fates(r);
        }
        inflight_.erase(it);
    }
    notify(fates);
}

TxSender::Chores TxSender::expire_and_sort(Clock::time_point now) {
    Chores chores;
    auto expire = [&](const std::shared_ptr<Intent>& intent, const eth::Hash32* hash) {
        if (!intent || intent->answered || now < intent->deadline) return;
        intent->answered = true;
        const auto waited = seconds_text(intent->request.timeout.value_or(options_.receipt_timeout));
        if (hash)
            intent->promise.set_exception(std::make_exception_ptr(
                Error(ErrorKind::timeout, "transaction " + eth::to_hex(*hash) + " not mined within " + waited +
                                              "; it is still pending and may be mined later")));
        else
            intent->promise.set_exception(std::make_exception_ptr(
                NeverMined(ErrorKind::timeout, "transaction not sent within " + waited + ": the node is unreachable")));
    };
    for (auto& intent : queue_) expire(intent, nullptr);
    std::erase_if(queue_, [](const auto& intent) { return intent->answered; });
    for (auto& [nonce, f] : inflight_) {
        expire(f->intent, &f->hash);
        if (f->contested && now - f->last_sent >= options_.rebroadcast_after) {
            f->last_sent = now;
            chores.contested.push_back(nonce);
        } else if (!f->broadcast_ok) {
            chores.resend.push_back(nonce);
        } else if (now - f->last_sent >= options_.rebroadcast_after) {
            chores.look_up.emplace_back(nonce, f->hash);
        }
    }
    return chores;
}

void TxSender::maintain() {
    const auto now = Clock::now();
    Chores chores;
    {
        std::lock_guard lock(mutex_);
        chores = expire_and_sort(now);
    }
    if (!chores.resend.empty()) broadcast(chores.resend);
    settle_contested(chores.contested);
    if (now - last_settled_check_ >= options_.rebroadcast_after) {
        last_settled_check_ = now;
        check_settled();
    }
    if (!chores.look_up.empty()) look_up_unmined(chores.look_up, now);
}

void TxSender::look_up_unmined(const std::vector<std::pair<std::uint64_t, eth::Hash32>>& look_up,
                               Clock::time_point now) {
    std::vector<rpc::Request> requests;
    for (const auto& [nonce, hash] : look_up) requests.push_back({"eth_getTransactionByHash", {eth::to_hex(hash)}});
    // With the lookups: is the chain behind our oldest transaction (reset)?
    requests.push_back({"eth_getTransactionCount", {signer_->address().checksummed(), "latest"}});
    std::vector<rpc::Outcome> outcomes;
    try {
        outcomes = chain_.rpc().batch(requests);
    } catch (const Error&) {
        return;
    }
    std::optional<std::uint64_t> chain_next;
    try {
        if (outcomes.back().ok()) chain_next = rpc::quantity_to_u64(outcomes.back().value(), "transaction count");
    } catch (const Error&) {
        chain_next.reset();
    }
    std::vector<std::uint64_t> resend;
    std::optional<std::uint64_t> oldest;
    {
        std::lock_guard lock(mutex_);
        if (!inflight_.empty()) oldest = inflight_.begin()->first;
        for (std::size_t i = 0; i < look_up.size(); ++i) {
            const auto nonce = look_up[i].first;
            auto it = inflight_.find(nonce);
            if (it == inflight_.end() || !outcomes[i].ok()) continue;
            Inflight& f = *it->second;
            const auto& known = outcomes[i].value();
            if (known.is_null()) {
                resend.push_back(nonce);  // the node lost it (restart, eviction): send again
            } else if (in_a_block(known)) {
                f.last_sent = now;  // mined, waiting for its confirmations: nothing to resend or replace
            } else if (now - f.first_sent >= options_.replace_after && f.resignable && !f.at_fee_cap) {
                if (bump(f, nonce, now)) resend.push_back(nonce);
            } else {
                f.last_sent = now;
            }
        }
    }
    if (chain_next && oldest && *chain_next < *oldest) {
        // Seen twice in a row, so that a node behind its peers (failover) is no reason.
        if (++reset_evidence_ >= 2) {
            reset_evidence_ = 0;
            recover_from_reset(*chain_next);
            return;
        }
    } else {
        reset_evidence_ = 0;
    }
    std::sort(resend.begin(), resend.end());
    if (!resend.empty()) broadcast(resend);
}

bool TxSender::bump(Inflight& f, std::uint64_t nonce, Clock::time_point now) {
    if (f.fees.max_fee_per_gas >= f.fee_cap) {
        f.at_fee_cap = true;  // shows in health as stuck; it stays as it is
        f.last_sent = now;
        util::log(util::LogLevel::warning, "a transaction is unmined at the fee cap",
                  {{"chainId", chain_.settings().chain_id}, {"nonce", nonce}, {"hash", eth::to_hex(f.hash)},
                   {"maxFeePerGas", f.fees.max_fee_per_gas.to_dec()}});
        return false;
    }
    Fees fees = bumped(f.fees);
    fees.max_fee_per_gas = std::min(fees.max_fee_per_gas, f.fee_cap);
    fees.max_priority_fee_per_gas = std::min(fees.max_priority_fee_per_gas, fees.max_fee_per_gas);
    replace(f, nonce, fees);
    f.first_sent = now;  // the replacement gets its own time to be mined
    return true;
}

}  // namespace abci::chain
