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
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

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

    /// Whether a watched transaction may be in a block the poller has already
    /// seen. A sender that watches before it broadcasts says not_yet: its
    /// receipt is then first looked up when the head moves, instead of at
    /// once (on a chain with 1-second blocks a burst of 1000 mints otherwise
    /// cost the node 1000 lookups that could only answer "not mined").
    enum class Sent { maybe, not_yet };

    /// Watches `hash`; `on_mined` fires when it (or a hash added later with
    /// add_hash) is mined with enough confirmations. Thread-safe.
    [[nodiscard]] WatchId watch(const eth::Hash32& hash, OnMined on_mined, Sent sent = Sent::maybe);
    /// Adds a replacement's hash to a watch: whichever lands completes it.
    /// Ignored when the watch already completed.
    void add_hash(WatchId id, const eth::Hash32& hash, Sent sent = Sent::maybe);
    /// Stops watching without a call. If the watch's callback is running on
    /// the poller thread right now, waits for it to return, so that once
    /// cancel() returns the callback no longer touches its captures.
    void cancel(WatchId id);
    /// Checks at once instead of at the next interval (e.g. after a broadcast).
    void wake();
    /// Called on the poller's thread with all the receipts of one lookup
    /// round that are about to complete watches, before any of their
    /// on_mined callbacks: per-receipt bookkeeping then costs one write per
    /// round, not one per transaction (a sender settles its journal so).
    /// It must not throw.
    using RoundHook = std::function<void(const std::vector<Receipt>&)>;
    using HookId = std::uint64_t;
    [[nodiscard]] HookId add_round_hook(RoundHook hook);
    /// Removes the hook; if it runs right now, waits for it to return, so
    /// that once this returns the hook's captures are no longer touched.
    void remove_round_hook(HookId id);
    /// Number of watches not yet completed.
    [[nodiscard]] std::size_t watching() const;

private:
    struct Watch {
        std::vector<eth::Hash32> hashes;
        OnMined on_mined;
        // When one of its hashes was first found mined, before its confirmations.
        std::optional<std::chrono::steady_clock::time_point> mined_seen;
    };
    void run();
    void poll_once();
    /// Every hash of every watch, with its watch (caller holds mutex_).
    [[nodiscard]] std::vector<std::pair<WatchId, eth::Hash32>> watched_hashes() const;
    /// The receipts of blocks from..to by transaction hash ("0x…" lower
    /// case), or nothing when the node did not answer them all.
    [[nodiscard]] std::optional<std::unordered_map<std::string, nlohmann::json>> receipts_of_blocks(std::uint64_t from,
                                                                                                   std::uint64_t to);
    /// Completes the watches whose receipts are in `found` and deep enough at `head`.
    void deliver(const std::vector<std::pair<WatchId, nlohmann::json>>& found, std::uint64_t head);

    rpc::Client& rpc_;
    Options options_;
    mutable std::mutex mutex_;
    std::condition_variable cv_;
    std::unordered_map<WatchId, Watch> watches_;
    WatchId next_id_ = 1;
    bool woken_ = false;
    bool stopping_ = false;
    std::uint64_t last_head_ = 0;
    bool head_seen_ = false;      // last_head_ was read from the node (poller thread only)
    bool block_receipts_ = true;  // the node answers eth_getBlockReceipts (poller thread only)
    unsigned head_changes_ = 0;   // poller thread only
    std::vector<std::pair<WatchId, eth::Hash32>> unchecked_;  // watched since the last lookup, maybe sent already
    WatchId in_callback_ = 0;  // the watch whose on_mined runs now, 0 when none
    std::vector<std::pair<HookId, RoundHook>> round_hooks_;
    HookId next_hook_id_ = 1;
    bool in_round_hooks_ = false;  // the hooks are being called (on the poller thread)
    std::condition_variable callback_done_;
    std::thread thread_;
};

}  // namespace abci::chain
