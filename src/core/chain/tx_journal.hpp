#pragma once
// Where a TxSender writes down every transaction it signs before the node
// sees it (DESIGN.md §4, durability): after a crash, what was broadcast is
// known by its exact bytes and can be reconciled with the chain instead of
// being signed again, which would mint twice.

#include <cstdint>
#include <string>
#include <vector>

#include "core/chain/tx_state.hpp"
#include "core/error.hpp"
#include "core/eth/bytes.hpp"

namespace abci::chain {

struct SignedTx {
    eth::Hash32 hash{};
    std::uint64_t nonce = 0;
    eth::Bytes raw;
    std::string purpose;  // TxRequest::purpose; "filler" for a nonce filler
};

struct Settlement {
    eth::Hash32 hash{};
    TxStatus status = TxStatus::mined;  // final: never pending
    std::uint64_t block = 0;            // mined or reverted: the block that holds it
};

/// Thrown by TxJournal::record() when the journal will never take another
/// transaction (the sender's lane went to another server): what it refused
/// is never broadcast, and its callers learn so at once (NeverMined).
class JournalClosed : public Error {
public:
    using Error::Error;
};

class TxJournal {
public:
    virtual ~TxJournal() = default;
    /// Durably records transactions before any of them is broadcast. Throwing
    /// keeps them unbroadcast; the sender tries again at its next maintenance,
    /// unless it was JournalClosed.
    virtual void record(const std::vector<SignedTx>& txs) = 0;
    /// The transactions' fates (tx_state.hpp), written together. Must not throw: a failure here only delays
    /// the bookkeeping, which reconciliation at start repairs.
    virtual void settle(const std::vector<Settlement>& settlements) noexcept = 0;
    /// A reorganisation deeper than the chain's confirmations took a mined
    /// (or reverted) transaction out of its block: pending again, to be
    /// settled anew. The one way back from a final status. Must not throw.
    virtual void reopen(const eth::Hash32& hash) noexcept = 0;
    /// The chain's block 0 as the sender saw it, first and after a reset:
    /// which chain the transactions went to, so that an operator's proof
    /// from some node can be checked against it. Must not throw.
    virtual void record_genesis(const eth::Hash32& genesis) noexcept = 0;
};

}  // namespace abci::chain
