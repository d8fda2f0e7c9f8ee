#include "core/chain/receipt_poller.hpp"

#include <algorithm>
#include <set>

#include "core/rpc/quantity.hpp"

namespace abci::chain {

ReceiptPoller::ReceiptPoller(rpc::Client& rpc, Options options) : rpc_(rpc), options_(options) {}

ReceiptPoller::~ReceiptPoller() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
}

ReceiptPoller::WatchId ReceiptPoller::watch(const eth::Hash32& hash, OnMined on_mined, Sent sent) {
    std::lock_guard lock(mutex_);
    WatchId id = next_id_++;
    watches_.emplace(id, Watch{{hash}, std::move(on_mined)});
    if (sent == Sent::maybe) unchecked_.emplace_back(id, hash);
    if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
    cv_.notify_all();
    return id;
}

void ReceiptPoller::add_hash(WatchId id, const eth::Hash32& hash, Sent sent) {
    std::lock_guard lock(mutex_);
    if (auto it = watches_.find(id); it != watches_.end()) {
        it->second.hashes.push_back(hash);
        if (sent == Sent::maybe) unchecked_.emplace_back(id, hash);
    }
}

void ReceiptPoller::cancel(WatchId id) {
    std::unique_lock lock(mutex_);
    watches_.erase(id);
    if (std::this_thread::get_id() != thread_.get_id())
        callback_done_.wait(lock, [this, id] { return in_callback_ != id; });
}

void ReceiptPoller::wake() {
    {
        std::lock_guard lock(mutex_);
        woken_ = true;
    }
    cv_.notify_all();
}

ReceiptPoller::HookId ReceiptPoller::add_round_hook(RoundHook hook) {
    std::lock_guard lock(mutex_);
    round_hooks_.emplace_back(next_hook_id_, std::move(hook));
    return next_hook_id_++;
}

void ReceiptPoller::remove_round_hook(HookId id) {
    std::unique_lock lock(mutex_);
    if (std::this_thread::get_id() != thread_.get_id())
        callback_done_.wait(lock, [this] { return !in_round_hooks_; });
    std::erase_if(round_hooks_, [id](const auto& h) { return h.first == id; });
}

std::size_t ReceiptPoller::watching() const {
    std::lock_guard lock(mutex_);
    return watches_.size();
}

void ReceiptPoller::run() {
    // After a wake (a broadcast) the receipt is usually due within milliseconds
    // (an automining devnet, or a node that answers before its block is sealed):
    // look again after 10, 20, 40 … ms, backing off to the interval, instead of
    // making every such mint wait a whole interval.
    constexpr std::chrono::milliseconds kSoon{10};
    auto wait = options_.interval;
    std::unique_lock lock(mutex_);
    while (!stopping_) {
        cv_.wait_for(lock, wait, [this] { return stopping_ || woken_; });
        if (stopping_) break;
        wait = woken_ ? std::min(kSoon, options_.interval) : std::min(wait * 2, options_.interval);
        woken_ = false;
        if (watches_.empty()) {
            cv_.wait(lock, [this] { return stopping_ || !watches_.empty(); });
            continue;
        }
        lock.unlock();
        try {
            poll_once();
        } catch (const Error&) {
            // The node is unreachable or misbehaving: the watches stay, the next round retries.
        }
        lock.lock();
    }
}

namespace {

// Blocks scanned by eth_getBlockReceipts when the head moves; a longer jump
// (the poller was stalled, the node caught up) looks every hash up instead.
constexpr std::uint64_t kMaxScannedBlocks = 16;
// Every this many head changes every watched hash is looked up anyway, so a
// transaction in a block that a reorganisation swapped in at a height already
// scanned is still found.
constexpr unsigned kSweepEvery = 8;

}  // namespace

std::optional<std::unordered_map<std::string, nlohmann::json>> ReceiptPoller::receipts_of_blocks(std::uint64_t from,
                                                                                                std::uint64_t to) {
    std::vector<rpc::Request> requests;
    for (std::uint64_t n = from; n <= to; ++n) requests.push_back({"eth_getBlockReceipts", {rpc::to_quantity(n)}});
    const auto outcomes = rpc_.batch(requests);
    std::unordered_map<std::string, nlohmann::json> by_hash;
    for (const auto& outcome : outcomes) {
        if (const auto* error = outcome.error()) {
            // -32601: no such method (-32602 from nodes that know it under other params).
            if (error->code() == -32601 || error->code() == -32602) block_receipts_ = false;
            return std::nullopt;
        }
        if (!outcome.value().is_array()) return std::nullopt;  // e.g. null: the block is not there (yet)
        for (const auto& receipt : outcome.value())
            by_hash.emplace(receipt.at("transactionHash").get<std::string>(), receipt);
    }
    return by_hash;
}

std::vector<std::pair<ReceiptPoller::WatchId, eth::Hash32>> ReceiptPoller::watched_hashes() const {
    std::vector<std::pair<WatchId, eth::Hash32>> all;
    for (const auto& [id, w] : watches_)
        for (const auto& h : w.hashes) all.emplace_back(id, h);
    return all;
}

void ReceiptPoller::poll_once() {
    const std::uint64_t head = rpc::quantity_to_u64(rpc_.call("eth_blockNumber"), "eth_blockNumber result");
    std::vector<std::pair<WatchId, eth::Hash32>> lookups;  // looked up hash by hash
    std::uint64_t scan_from = 0;
    {
        std::lock_guard lock(mutex_);
        // Receipts only appear with new blocks: with the head unchanged only
        // hashes not looked up yet can have one (a watch may start mined;
        // one whose transaction was not sent yet cannot: it waits for the
        // head to move, which also covers every block it can be in).
        // Looking up every watch again on each new watch made a burst of N
        // mints cost the node N^2 / batch-size lookups.
        if (head == last_head_) {
            for (const auto& [id, h] : unchecked_)
                if (watches_.contains(id)) lookups.emplace_back(id, h);
        } else {
            // The new blocks' receipts in one call each, rather than a lookup
            // per watched hash (most of them not mined yet in a burst). Only
            // for receipts complete at once: deeper confirmations are looked
            // up hash by hash at every head change, as is everything now and then.
            const bool scan = block_receipts_ && options_.confirmations == 1 && head_seen_ && head > last_head_ &&
                              head - last_head_ <= kMaxScannedBlocks && ++head_changes_ % kSweepEvery != 0;
            if (scan) {
                scan_from = last_head_ + 1;
                for (const auto& [id, h] : unchecked_)
                    if (watches_.contains(id)) lookups.emplace_back(id, h);
            } else {
                lookups = watched_hashes();
            }
        }
        unchecked_.clear();
    }
    std::vector<std::pair<WatchId, nlohmann::json>> found;
    if (scan_from != 0) {
        if (const auto receipts = receipts_of_blocks(scan_from, head)) {
            std::lock_guard lock(mutex_);
            for (const auto& [id, w] : watches_)
                for (const auto& h : w.hashes)
                    if (const auto it = receipts->find(eth::to_hex(h)); it != receipts->end())
                        found.emplace_back(id, it->second);
        } else {
            // Not answered (or not supported): every hash, the old way.
            std::lock_guard lock(mutex_);
            lookups = watched_hashes();
        }
    }
    for (std::size_t start = 0; start < lookups.size(); start += options_.max_batch) {
        const std::size_t end = std::min(lookups.size(), start + options_.max_batch);
        std::vector<rpc::Request> requests;
        for (std::size_t i = start; i < end; ++i)
            requests.push_back({"eth_getTransactionReceipt", {eth::to_hex(lookups[i].second)}});
        const auto outcomes = rpc_.batch(requests);
        for (std::size_t i = start; i < end; ++i)
            if (const auto& outcome = outcomes[i - start]; outcome.ok() && !outcome.value().is_null())
                found.emplace_back(lookups[i].first, outcome.value());
    }
    deliver(found, head);
    std::lock_guard lock(mutex_);
    last_head_ = head;
    head_seen_ = true;
}

void ReceiptPoller::deliver(const std::vector<std::pair<WatchId, nlohmann::json>>& found, std::uint64_t head) {
    // The watches this round completes, and their receipts.
    std::vector<std::pair<WatchId, Receipt>> done;
    std::set<WatchId> seen;  // a hash may be both scanned and looked up
    const auto now = std::chrono::steady_clock::now();
    for (const auto& [id, json] : found) {
        if (!seen.insert(id).second) continue;
        Receipt receipt = Receipt::from_json(json);
        // Mined but not deep enough yet: the next head change brings it back here.
        if (receipt.block_number > head || head - receipt.block_number + 1 < options_.confirmations) {
            std::lock_guard lock(mutex_);
            if (auto it = watches_.find(id); it != watches_.end() && !it->second.mined_seen) it->second.mined_seen = now;
            continue;
        }
        receipt.confirmations = head - receipt.block_number + 1;
        receipt.mined_seen = now;
        done.emplace_back(id, std::move(receipt));
    }
    if (done.empty()) return;
    std::vector<std::pair<HookId, RoundHook>> hooks;
    {
        std::lock_guard lock(mutex_);
        hooks = round_hooks_;
        in_round_hooks_ = !hooks.empty();
    }
    if (!hooks.empty()) {
        std::vector<Receipt> receipts;
        receipts.reserve(done.size());
        for (const auto& [id, receipt] : done) receipts.push_back(receipt);
        for (const auto& [id, hook] : hooks) hook(receipts);
        {
            std::lock_guard lock(mutex_);
            in_round_hooks_ = false;
        }
        callback_done_.notify_all();
    }
    for (auto& [id, receipt] : done) {
        OnMined on_mined;
        {
            std::lock_guard lock(mutex_);
            auto it = watches_.find(id);
            if (it == watches_.end()) continue;  // completed by another of its hashes, or cancelled
            on_mined = std::move(it->second.on_mined);
            receipt.mined_seen = it->second.mined_seen.value_or(receipt.mined_seen);
            watches_.erase(it);
            in_callback_ = id;
        }
        on_mined(receipt);
        {
            std::lock_guard lock(mutex_);
            in_callback_ = 0;
        }
        callback_done_.notify_all();
    }
}

}  // namespace abci::chain
