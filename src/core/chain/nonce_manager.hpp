#pragma once
// The nonces of one signer on one chain. Hands each out exactly once and
// contiguously; resynchronises forward from the chain when the node says our
// view is stale. Kept behind this small interface so that a shared store (a
// row lock in PostgreSQL, DESIGN.md §9) can take its place.

#include <cstdint>
#include <mutex>

namespace abci::chain {

class NonceManager {
public:
    /// True once sync() has been called at least once.
    [[nodiscard]] bool synced() const;
    /// Moves the next nonce up to `chain_next` (the node's pending transaction
    /// count) if it is ahead of ours: someone else used the key, or we restarted.
    /// Never moves backwards: nonces already handed out belong to transactions
    /// we still track and rebroadcast, and reusing one would replace them.
    void sync(std::uint64_t chain_next);
    /// The next nonce, handed out once. Requires synced().
    [[nodiscard]] std::uint64_t take();
    /// Gives back the nonce take() returned last, which nothing consumed (the
    /// node refused its only transaction); false, and nothing changes, when a
    /// later nonce was handed out meanwhile.
    bool give_back(std::uint64_t nonce);
    /// Moves the next nonce to `chain_next`, also backwards: only when none of
    /// ours is in flight and the chain lost what we sent (it was reset).
    void reset(std::uint64_t chain_next);
    /// The nonce take() would return next.
    [[nodiscard]] std::uint64_t peek() const;

private:
    mutable std::mutex mutex_;
    bool synced_ = false;
    std::uint64_t next_ = 0;
};

}  // namespace abci::chain
