#include "core/chain/receipt_poller.hpp"

#include <algorithm>

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

ReceiptPoller::WatchId ReceiptPoller::watch(const eth::Hash32& hash, OnMined on_mined) {
    std::lock_guard lock(mutex_);
    WatchId id = next_id_++;
    watches_.emplace(id, Watch{{hash}, std::move(on_mined)});
    unchecked_.emplace_back(id, hash);
    if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
    cv_.notify_all();
    return id;
}

void ReceiptPoller::add_hash(WatchId id, const eth::Hash32& hash) {
    std::lock_guard lock(mutex_);
    if (auto it = watches_.find(id); it != watches_.end()) {
        it->second.hashes.push_back(hash);
        unchecked_.emplace_back(id, hash);
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

void ReceiptPoller::poll_once() {
    const std::uint64_t head = rpc::quantity_to_u64(rpc_.call("eth_blockNumber"), "eth_blockNumber result");
    std::vector<std::pair<WatchId, eth::Hash32>> pending;
    {
        std::lock_guard lock(mutex_);
        // Receipts only appear with new blocks: with the head unchanged only
        // hashes not looked up yet can have one (a watch may start mined).
        // Looking up every watch again on each new watch made a burst of N
        // mints cost the node N^2 / batch-size lookups.
        if (head == last_head_) {
            for (const auto& [id, h] : unchecked_)
                if (watches_.contains(id)) pending.emplace_back(id, h);
        } else {
            for (const auto& [id, w] : watches_)
                for (const auto& h : w.hashes) pending.emplace_back(id, h);
        }
        unchecked_.clear();
    }
    for (std::size_t start = 0; start < pending.size(); start += options_.max_batch) {
        const std::size_t end = std::min(pending.size(), start + options_.max_batch);
        std::vector<rpc::Request> requests;
        for (std::size_t i = start; i < end; ++i)
            requests.push_back({"eth_getTransactionReceipt", {eth::to_hex(pending[i].second)}});
        const auto outcomes = rpc_.batch(requests);
        for (std::size_t i = start; i < end; ++i) {
            const auto& outcome = outcomes[i - start];
            if (!outcome.ok() || outcome.value().is_null()) continue;
            Receipt receipt = Receipt::from_json(outcome.value());
            // Mined but not deep enough yet: the next head change brings it back here.
            if (receipt.block_number > head || head - receipt.block_number + 1 < options_.confirmations) continue;
            receipt.confirmations = head - receipt.block_number + 1;
            OnMined on_mined;
            {
                std::lock_guard lock(mutex_);
                auto it = watches_.find(pending[i].first);
                if (it == watches_.end()) continue;  // completed by another of its hashes, or cancelled
                on_mined = std::move(it->second.on_mined);
                watches_.erase(it);
                in_callback_ = pending[i].first;
            }
            on_mined(receipt);
            {
                std::lock_guard lock(mutex_);
                in_callback_ = 0;
            }
            callback_done_.notify_all();
        }
    }
    std::lock_guard lock(mutex_);
    last_head_ = head;
}

}  // namespace abci::chain
