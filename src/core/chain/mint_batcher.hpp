#pragma once
// The opt-in batching mode of the mint path: mints arriving within a short
// window go out as one mintMany transaction, so a burst is no longer bounded
// by one transaction (about 57k gas) per mint but by about 35k gas per mint.
//
// Every mint still learns the transaction and block that carried it. A batch
// the contract would refuse as a whole (one element reverts) is split: each
// of its mints is then sent on its own, so only the refused one fails, with
// the contract's own error, and the others are unaffected.

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/chain/receipt.hpp"
#include "core/chain/token_contract.hpp"
#include "core/chain/tx_sender.hpp"

namespace abci::chain {

struct BatchOptions {
    std::chrono::milliseconds window{25};  // how long the first mint of a batch waits for others
    std::size_t max_mints = 100;           // mints per transaction (gas grows with it)
};

/// A mint handed to the batcher: wait() for the receipt of its transaction.
class PendingMint {
public:
    /// `alone`, set for a mint sent in a batch, sends it again on its own.
    explicit PendingMint(std::future<std::shared_future<Receipt>> sent, std::function<PendingMint()> alone = {})
        : sent_(std::move(sent)), alone_(std::move(alone)) {}
    /// Blocks until the transaction carrying this mint is mined; the receipt
    /// (also when it reverted: check Receipt::success). A batch that reverted
    /// on chain (an element refused by a state its estimate could not see yet)
    /// is not this mint's failure: the mint is then sent again on its own and
    /// that transaction's receipt returned. Throws what TokenContract::mint and
    /// TxSender's future throw: Error(conflict) for a role already held,
    /// Error(chain_rejected) for another refusal, Error(timeout), Error(unavailable).
    /// Whatever failed before the mint's transaction was queued for signing
    /// (its gas estimate, the batcher stopping) is thrown as NeverMined, with
    /// the original kind, message and details.
    [[nodiscard]] Receipt wait() {
        std::shared_future<Receipt> signed_tx;
        try {
            signed_tx = sent_.get();
        } catch (const NeverMined&) {
            throw;
        } catch (const Error& e) {
            // Nested: a caller may tell why (rpc::Unreachable: the node said nothing).
            std::throw_with_nested(NeverMined(e.kind(), e.what(), e.details()));
        }
        Receipt receipt = signed_tx.get();
        if (!receipt.success && alone_) return alone_().wait();
        return receipt;
    }

private:
    std::future<std::shared_future<Receipt>> sent_;
    std::function<PendingMint()> alone_;
};

/// Submits one mint at once as TokenContract::mint, its outcome (or its
/// refusal) delivered through the PendingMint.
[[nodiscard]] PendingMint mint_now(TokenContract& contract, TxSender& sender, TokenContract::MintItem item,
                                   std::string purpose);

class MintBatcher {
public:
    /// The purpose to journal with a mintMany transaction, from its mints'
    /// purposes in batch order. Purposes are the user's: opaque here.
    using Combine = std::function<std::string(const std::vector<std::string>& purposes)>;

    /// `contract` and `sender` (a minter of it) must outlive the batcher.
    MintBatcher(TokenContract& contract, TxSender& sender, BatchOptions options, Combine combine);
    /// Mints still waiting for their batch get Error(unavailable).
    ~MintBatcher();
    MintBatcher(const MintBatcher&) = delete;
    MintBatcher& operator=(const MintBatcher&) = delete;

    /// Queues mint(to, id, amount, data); thread-safe. `purpose` is
    /// journaled: alone as given, in a batch through the combine function.
    [[nodiscard]] PendingMint mint(TokenContract::MintItem item, std::string purpose);

private:
    struct Queued {
        TokenContract::MintItem item;
        std::string purpose;
        std::promise<std::shared_future<Receipt>> sent;
    };
    void run();
    void send(std::vector<Queued>& batch);

    TokenContract& contract_;
    TxSender& sender_;
    const BatchOptions options_;
    const Combine combine_;
    std::mutex mutex_;
    std::condition_variable arrived_;
    std::deque<Queued> queue_;
    bool stopping_ = false;
    std::thread thread_;
};

}  // namespace abci::chain
