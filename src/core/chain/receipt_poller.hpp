#pragma once
// One receipt poller per chain (DESIGN.md §8): a single thread watches the
// chain head and completes every waiting transaction whose receipt has the
// required confirmations, with one batched lookup per new block, so waiting
// requests cost no network calls of their own.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/chain/receipt.hpp"
#include "core/rpc/client.hpp"

namespace abci::chain {

class ReceiptPoller {
public:
    struct Options {
        std::uint64_t confirmations = 1;                    // blocks including the one that mined it
        std::chrono::milliseconds interval{200};            // how often the head is checked while watching (sooner after a wake)
        std::size_t max_batch = 500;                        // receipt lookups per JSON-RPC batch
    };
    /// Called once, on the poller's thread, with the receipt of whichever
    /// watched hash was mined. It must not block for long.
    using OnMined = std::function<void(const Receipt&)>;
    using WatchId = std::uint64_t;

    /// `rpc` must outlive the poller. The thread starts lazily on the first watch.
    ReceiptPoller(rpc::Client& rpc, Options options);
    /// Stops the thread; watches not yet completed are dropped without a call.
    ~ReceiptPoller();
    ReceiptPoller(const ReceiptPoller&) = delete;
    ReceiptPoller& operator=(const ReceiptPoller&) = delete;

    /// Watches `hash`; `on_mined` fires when it (or a hash added later with
    /// add_hash) is mined with enough confirmations. Thread-safe.
    [[nodiscard]] WatchId watch(const eth::Hash32& hash, OnMined on_mined);
    /// Adds a replacement's hash to a watch: whichever lands completes it.
    /// Ignored when the watch already completed.
    void add_hash(WatchId id, const eth::Hash32& hash);
    /// Stops watching without a call. If the watch's callback is running on
    /// the poller thread right now, waits for it to return, so that once
    /// cancel() returns the callback no longer touches its captures.
    void cancel(WatchId id);
    /// Checks at once instead of at the next interval (e.g. after a broadcast).
    void wake();
    /// Number of watches not yet completed.
    [[nodiscard]] std::size_t watching() const;

private:
    struct Watch {
        std::vector<eth::Hash32> hashes;
        OnMined on_mined;
    };
    void run();
    void poll_once();

    rpc::Client& rpc_;
    Options options_;
    mutable std::mutex mutex_;
    std::condition_variable cv_;
    std::unordered_map<WatchId, Watch> watches_;
    WatchId next_id_ = 1;
    bool woken_ = false;
    bool stopping_ = false;
    std::uint64_t last_head_ = 0;
    std::vector<std::pair<WatchId, eth::Hash32>> unchecked_;  // watched since the last lookup
    WatchId in_callback_ = 0;  // the watch whose on_mined runs now, 0 when none
    std::condition_variable callback_done_;
    std::thread thread_;
};

}  // namespace abci::chain
