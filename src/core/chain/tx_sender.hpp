#pragma once
// The one sender of a signer's transactions on one chain (DESIGN.md §8).
//
// Callers submit transactions from any number of threads and get a future of
// the receipt. One thread takes submissions in arrival order, assigns nonces,
// signs, journals and broadcasts each round as one JSON-RPC batch; the chain's
// receipt poller completes the futures. No lock is held across a network call.
//
// Every signed transaction is tracked until the chain settles its nonce, and
// its journal entry moves only as tx_state.hpp allows: a broadcast that failed
// in transport is retried with the same bytes; one the node forgot is sent
// again; one stuck unmined is replaced with both fees raised by 12.5%, up to
// the fee cap; one the node refused outright is answered with the node's
// error and its nonce filled by a 0-value transfer to ourselves (or given
// back, when it was the last one handed out). A node's "nonce too low" is
// never taken on its word: the nonce counts as used by someone else only when
// the chain's account nonce is past it and none of our versions has a receipt.
// A caller whose deadline passes gets Error(timeout) while the transaction
// stays tracked; what becomes of it then reaches the unwaited listener.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "core/chain/chain_client.hpp"
#include "core/chain/fees.hpp"
#include "core/chain/lane_metrics.hpp"
#include "core/chain/nonce_manager.hpp"
#include "core/chain/receipt.hpp"
#include "core/chain/tx_journal.hpp"
#include "core/error.hpp"
#include "core/eth/signer.hpp"

namespace abci::chain {

struct TxRequest {
    std::optional<eth::Address> to;  // empty: contract creation
    eth::U256 value;
    eth::Bytes data;
    std::optional<std::uint64_t> gas_limit;  // estimated with headroom when empty
    FeeTier tier = FeeTier::standard;
    /// Until the receipt has its confirmations; unset: SenderOptions::receipt_timeout.
    std::optional<std::chrono::milliseconds> timeout;
    std::string purpose;  // journaled with the transaction: what it is for (opaque to the sender)
};

/// Thrown through a submission's future when its transaction will never be
/// mined: it was never signed (its deadline passed in the queue, the sender
/// stopped), or the node refused it and its nonce went elsewhere. Whatever
/// the caller promised on its behalf may be retried.
class NeverMined : public Error {
public:
    using Error::Error;
};

/// NeverMined because the sender's journal closed (JournalClosed: its lane
/// went to another server) before the transaction was journaled.
class SenderClosed : public NeverMined {
public:
    using NeverMined::NeverMined;
};

/// A transaction an earlier run journaled and left pending, handed back at start.
struct JournaledTx {
    eth::Hash32 hash{};
    std::uint64_t nonce = 0;
    eth::Bytes raw;
    std::string purpose;
    std::chrono::system_clock::time_point journaled_at{};  // unknown: when adopted
};

/// The final fate of a transaction no caller waits for any more (its caller
/// timed out, or it was adopted from the journal), one per purpose: mined or
/// reverted (with its receipt), replaced (another version of its nonce was
/// mined: a filler after a refusal or a chain reset), or dropped (its nonce
/// went to someone else's transaction).
struct Unwaited {
    std::string purpose;
    TxStatus status = TxStatus::mined;
    std::optional<Receipt> receipt;  // mined or reverted
};

/// A transaction whose replacement reached the fee cap and is still unmined.
struct StuckTx {
    std::uint64_t nonce = 0;
    eth::Hash32 hash{};
    std::chrono::seconds age{0};  // since its nonce was first accepted by the node
};

struct SenderOptions {
    std::size_t max_batch = 512;                         // transactions per broadcast round
    std::chrono::milliseconds maintenance_interval{500};  // deadlines, retries, stuck checks
    std::chrono::milliseconds rebroadcast_after{3'000};  // unmined this long: ask the node whether it knows it
    std::chrono::milliseconds replace_after{30'000};     // known but unmined this long: replace with higher fees
    std::chrono::milliseconds receipt_timeout{120'000};  // a request's deadline unless it sets its own
    /// How many blocks a mined transaction is still watched for a reorg
    /// deeper than the confirmations (its block's hash changing).
    std::uint64_t reorg_watch_blocks = 64;
    TxJournal* journal = nullptr;  // when set: every signed version is recorded here before broadcast; must outlive the sender
    /// Replacements never offer more per gas than this; 0: four times what
    /// the transaction was first signed with.
    eth::U256 max_fee_per_gas;
    LaneMetrics* metrics = nullptr;  // where its work is counted; must outlive the sender
};

class TxSender {
public:
    /// Signs through `signer` (shared: a key is never copied). `chain` must outlive the sender.
    TxSender(ChainClient& chain, std::shared_ptr<const eth::TransactionSigner> signer, SenderOptions options = {});
    /// Stops the thread; callers still waiting get Error(unavailable).
    ~TxSender();
    TxSender(const TxSender&) = delete;
    TxSender& operator=(const TxSender&) = delete;

    [[nodiscard]] const eth::Address& address() const noexcept { return signer_->address(); }
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

    /// Takes back what an earlier run journaled and left pending: each
    /// nonce's versions are watched together and the last one given is sent
    /// again, and new nonces start above them. Their fates reach the
    /// unwaited listener. Call at start, before submit().
    void adopt(std::vector<JournaledTx> txs);

    /// Receives every Unwaited fate, on the sender's or the receipt poller's
    /// thread, without the sender's lock held; it must not block for long
    /// nor call back into the sender. Set it before submit() and adopt().
    using UnwaitedListener = std::function<void(const Unwaited&)>;
    void on_unwaited(UnwaitedListener listener);

    /// Transactions at the fee cap unmined for longer than replace_after.
    [[nodiscard]] std::vector<StuckTx> stuck() const;

    /// What it holds now, by state; from memory, no call to the node.
    [[nodiscard]] LaneFigures figures() const;

private:
    struct Intent;
    struct Inflight;
    using Clock = std::chrono::steady_clock;
    // What the chain proves about a nonce of ours.
    enum class NonceFate { open, ours, foreign };

    void run();
    void sign_round(std::vector<std::shared_ptr<Intent>> intents);
    // Signs and tracks a transaction with `nonce` for `intent` (a filler when null).
    void track(std::uint64_t nonce, std::shared_ptr<Intent> intent, const Fees& fees, bool eip1559);
    // Sends `nonces`' current versions; those the node refuses as priced
    // below its base fee are signed again higher and sent once more when
    // `reprice` (the repriced ones are sent with it false).
    void broadcast(const std::vector<std::uint64_t>& nonces, bool reprice = true);
    void maintain();
    // What maintain() does with the in-flight transactions, each list by nonce.
    struct Chores {
        std::vector<std::uint64_t> resend;     // the last broadcast failed
        std::vector<std::uint64_t> contested;  // the node called the nonce used: judged again
        std::vector<std::pair<std::uint64_t, eth::Hash32>> look_up;  // sent a while ago and not mined
    };
    // Fails the callers whose deadline passed and sorts the in-flight
    // transactions into chores. Called with mutex_ held.
    [[nodiscard]] Chores expire_and_sort(Clock::time_point now);
    // Asks the node about `look_up`: what it lost is sent again, what waits
    // past replace_after is bumped, and a chain behind our oldest nonce
    // (twice in a row) is recovered from as a reset.
    void look_up_unmined(const std::vector<std::pair<std::uint64_t, eth::Hash32>>& look_up, Clock::time_point now);
    // Signs `f` again at bumped fees (true: to be sent), or marks it held at
    // its fee cap (false). Called with mutex_ held.
    [[nodiscard]] bool bump(Inflight& f, std::uint64_t nonce, Clock::time_point now);
    void sign(Inflight& f, std::uint64_t nonce) const;
    // Signs `nonce`'s call again at `fees`, keeping the earlier version among
    // its versions (it may still be mined) and watched. Called with mutex_ held.
    void replace(Inflight& f, std::uint64_t nonce, const Fees& fees);
    void on_mined(std::uint64_t nonce, const Receipt& receipt);
    // Records the not yet journaled among `nonces`; returns those safe to broadcast.
    [[nodiscard]] std::vector<std::uint64_t> journal(const std::vector<std::uint64_t>& nonces);
    // After the journal refused a batch as holding some of its bytes: records
    // each alone (the hashes it took), so that the rest go out. A filler whose
    // bytes it holds (the same nonce filled alike on a chain since reset:
    // signing is deterministic and a reset chain asks the same fees) is signed
    // again higher, for bytes of its own, recorded at the next round.
    [[nodiscard]] std::set<eth::Hash32> journal_one_by_one(const std::vector<SignedTx>& txs);
    // The journal closed: every caller whose transaction is not journaled,
    // and every later one, gets SenderClosed. Called with mutex_ held.
    void close(const std::string& why);
    void settle(const std::vector<Settlement>& settlements) noexcept;
    // The poller's round hook: settles, in one journal write, every version of
    // the in-flight transactions mined in `receipts` (the mined one mined or
    // reverted, the others replaced), before their callbacks run.
    void settle_mined(const std::vector<Receipt>& receipts) noexcept;
    // The chain's account nonce is read before the receipts, so a version
    // mined in between is seen as ours, never as someone else's.
    [[nodiscard]] NonceFate judge(std::uint64_t nonce, const std::vector<eth::Hash32>& versions);
    // Acts on judge() for nonces the node called used or contested.
    void settle_contested(const std::vector<std::uint64_t>& nonces);
    // The node refused these as priced below its base fee: each is signed
    // again (same call, same nonce) at what the chain asks now, up to its fee
    // cap; the nonces signed again.
    [[nodiscard]] std::vector<std::uint64_t> reprice(const std::vector<std::uint64_t>& nonces);
    // The node refused `nonce`'s transaction outright.
    void refused(std::uint64_t nonce, const rpc::RpcError& error);
    // The one-line refusal of an unfunded signer: its balance and what `f`
    // needs (its gas 0 when the node would not estimate it).
    [[nodiscard]] NeverMined funds_error(const Inflight& f, const rpc::RpcError& error);
    // The node's gas estimate for `request`; an unfunded signer's refusal as funds_error().
    [[nodiscard]] std::uint64_t estimate_gas(const TxRequest& request);
    void resign_with_new_nonce(std::uint64_t old_nonce);
    // Replaces `nonce`'s transaction by a 0-value transfer to ourselves with
    // higher fees, so that no earlier version of it can still be mined.
    void fill(std::uint64_t nonce);
    // The node's account nonce is behind our oldest transaction: the chain
    // was reset or lost blocks. Waiting callers fail, their transactions are
    // replaced by fillers, and the gap below them is filled.
    void recover_from_reset(std::uint64_t chain_next);
    void notify(const std::vector<Unwaited>& fates);
    // Looks again at the recently mined transactions: a block hash that
    // changed means a reorg deeper than the confirmations.
    void check_settled();
    // What check_settled() found of the watched blocks on the chain now.
    struct BlockCheck {
        std::uint64_t head = 0;
        std::set<std::uint64_t> changed;  // there under another hash
        std::set<std::uint64_t> gone;     // changed, or not there at all
        bool shorter = false;             // a block we saw mined is not there at all
        bool other_genesis = false;       // the chain was replaced (a reset)
    };
    // The watched blocks and the genesis block, read in one batch; nothing
    // when the node could not answer (looked at again at the next check).
    [[nodiscard]] std::optional<BlockCheck> check_blocks();
    // The chain itself was replaced (a devnet reset): what it held in the
    // `gone` blocks is not sent again; the journal says dropped, and new
    // nonces follow the new chain.
    void forget_settled_blocks(const std::set<std::uint64_t>& gone);
    // Stops tracking `nonce` and returns what was tracked (null when it was mined meanwhile).
    [[nodiscard]] std::unique_ptr<Inflight> untrack(std::uint64_t nonce);

    ChainClient& chain_;
    std::shared_ptr<const eth::TransactionSigner> signer_;
    SenderOptions options_;
    NonceManager nonces_;

    mutable std::mutex mutex_;
    std::condition_variable cv_;
    std::deque<std::shared_ptr<Intent>> queue_;
    std::map<std::uint64_t, std::unique_ptr<Inflight>> inflight_;  // by nonce
    bool stopping_ = false;
    std::optional<std::string> closed_;  // why the journal closed (JournalClosed): nothing more is sent
    std::uint64_t adopted_next_ = 0;  // the nonce above every adopted transaction
    unsigned reset_evidence_ = 0;     // consecutive checks that saw the chain behind us (sender thread only)
    UnwaitedListener unwaited_;
    // Mined transactions still watched for deep reorgs (guarded by mutex_).
    struct Settled {
        eth::Hash32 hash{};
        eth::Hash32 block_hash{};
        std::uint64_t block = 0;
        std::uint64_t nonce = 0;
        std::optional<eth::Bytes> raw;  // known when the current version was the one mined
        std::string purpose;
    };
    std::deque<Settled> settled_;
    // Follows the transactions in the blocks a deep reorg changed (`watched`,
    // at chain head `head`): one moved to another block is settled there and
    // its mint answered anew; one gone is sent again from its bytes.
    void follow_reorged(const std::vector<Settled>& watched, std::uint64_t head);
    std::optional<eth::Hash32> genesis_;  // of the chain the settled transactions are on (sender thread only)
    unsigned shorter_evidence_ = 0;       // consecutive checks that missed a settled block (sender thread only)
    Clock::time_point last_settled_check_{};
    Clock::time_point last_maintenance_{};
    ReceiptPoller::HookId round_hook_ = 0;  // settle_mined(), on the chain's poller
    std::thread thread_;
};

}  // namespace abci::chain
