#pragma once
// The one sender of a signer's transactions on one chain (DESIGN.md §8).
//
// Callers submit transactions from any number of threads and get a future of
// the receipt. One thread takes submissions in arrival order, assigns nonces,
// signs, and broadcasts each round as one JSON-RPC batch; the chain's receipt
// poller completes the futures. No lock is held across a network call.
//
// Every signed transaction is tracked until it is mined, so its nonce is never
// left as a gap: a broadcast that failed in transport is retried with the same
// bytes; one the node forgot (a restart) is sent again; one stuck unmined is
// replaced with both fees raised by 12.5%; one the node refused outright is
// answered with the node's error and its nonce filled by a 0-value transfer to
// ourselves. A caller whose deadline passes gets Error(timeout) while the
// transaction stays tracked, since it may still be mined.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "core/chain/chain_client.hpp"
#include "core/chain/fees.hpp"
#include "core/chain/nonce_manager.hpp"
#include "core/chain/receipt.hpp"
#include "core/chain/tx_journal.hpp"
#include "core/eth/signer.hpp"

namespace abci::chain {

struct TxRequest {
    std::optional<eth::Address> to;  // empty: contract creation
    eth::U256 value;
    eth::Bytes data;
    std::optional<std::uint64_t> gas_limit;  // estimated with headroom when empty
    FeeTier tier = FeeTier::standard;
    std::chrono::milliseconds timeout{120'000};  // until the receipt has its confirmations
    std::string purpose;  // journaled with the transaction: what it is for (opaque to the sender)
};

struct SenderOptions {
    std::size_t max_batch = 512;                         // transactions per broadcast round
    std::chrono::milliseconds maintenance_interval{500};  // deadlines, retries, stuck checks
    std::chrono::milliseconds rebroadcast_after{3'000};  // unmined this long: ask the node whether it knows it
    std::chrono::milliseconds replace_after{30'000};     // known but unmined this long: replace with higher fees
    TxJournal* journal = nullptr;  // when set: every signed version is recorded here before broadcast; must outlive the sender
};

class TxSender {
public:
    /// Takes ownership of `key`. `chain` must outlive the sender.
    TxSender(ChainClient& chain, eth::PrivateKey key, SenderOptions options = {});
    /// Stops the thread; callers still waiting get Error(unavailable).
    ~TxSender();
    TxSender(const TxSender&) = delete;
    TxSender& operator=(const TxSender&) = delete;

    [[nodiscard]] const eth::Address& address() const noexcept { return key_.address(); }
    [[nodiscard]] ChainClient& chain() noexcept { return chain_; }

    /// Queues a transaction; thread-safe. Gas is estimated here, on the
    /// caller's thread, so a transaction that would revert is refused at once
    /// (rpc::RpcError with the revert data) and never takes a nonce. The future
    /// yields the receipt once mined with the chain's confirmations (also when
    /// it reverted: check Receipt::success), or throws Error(timeout) after
    /// request.timeout, or the node's rpc::RpcError if it refused the transaction.
    [[nodiscard]] std::future<Receipt> submit(TxRequest request);

    /// Transactions signed and not yet mined (fillers included).
    [[nodiscard]] std::size_t in_flight() const;

private:
    struct Intent;
    struct Inflight;
    using Clock = std::chrono::steady_clock;

    void run();
    void sign_round(std::vector<std::shared_ptr<Intent>> intents);
    void track(std::uint64_t nonce, std::shared_ptr<Intent> intent, const Fees& fees, bool eip1559);
    void broadcast(const std::vector<std::uint64_t>& nonces);
    void maintain();
    void sign(Inflight& f, std::uint64_t nonce) const;
    void on_mined(std::uint64_t nonce, const Receipt& receipt);
    // Records the not yet journaled among `nonces`; returns those safe to broadcast.
    [[nodiscard]] std::vector<std::uint64_t> journal(const std::vector<std::uint64_t>& nonces);
    void settle(const std::vector<Settlement>& settlements) noexcept;
    [[nodiscard]] static std::vector<Settlement> dropped(const std::vector<eth::Hash32>& hashes);
    // The poller's round hook: settles, in one journal write, every version of
    // the in-flight transactions mined in `receipts` (the mined one mined or
    // reverted, the others dropped), before their callbacks run.
    void settle_mined(const std::vector<Receipt>& receipts) noexcept;
    void answer(const std::shared_ptr<Intent>& intent, std::exception_ptr error);
    void resign_with_new_nonce(std::uint64_t old_nonce);
    // Replaces a refused transaction by a 0-value transfer to ourselves with its nonce.
    void fill(std::uint64_t nonce);
    // Stops tracking `nonce` and returns what was tracked (null when it was mined meanwhile).
    [[nodiscard]] std::unique_ptr<Inflight> untrack(std::uint64_t nonce);

    ChainClient& chain_;
    eth::PrivateKey key_;
    SenderOptions options_;
    NonceManager nonces_;

    mutable std::mutex mutex_;
    std::condition_variable cv_;
    std::deque<std::shared_ptr<Intent>> queue_;
    std::map<std::uint64_t, std::unique_ptr<Inflight>> inflight_;  // by nonce
    bool stopping_ = false;
    Clock::time_point last_maintenance_{};
    ReceiptPoller::HookId round_hook_ = 0;  // settle_mined(), on the chain's poller
    std::thread thread_;
};

}  // namespace abci::chain
