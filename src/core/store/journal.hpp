#pragma once
// The transaction journal: every signed transaction, written before it is
// broadcast (DESIGN.md §4, durability), and its fate (core/chain/tx_state.hpp).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/chain/tx_state.hpp"
#include "core/store/lanes.hpp"
#include "core/store/records.hpp"

namespace abci::store {

struct JournalEntry {
    std::string hash;  // 0x + 64 hex; unique
    std::string blockchain_id;
    std::string sender;  // lower-case address
    std::uint64_t nonce = 0;
    std::string raw;      // 0x-hex signed bytes
    std::string purpose;  // opaque to the store: the service's mint record (core/service/mint_record.hpp)
    chain::TxStatus status = chain::TxStatus::pending;
    std::uint64_t block_number = 0;
    TimePoint created_at;
    TimePoint updated_at;
    std::vector<std::string> mint_ids;  // the mints it carries, linked when it is journaled (not read back)
};

/// A journaled transaction's fate.
struct JournalSettlement {
    std::string hash;
    chain::TxStatus status = chain::TxStatus::pending;  // a final one
    std::uint64_t block_number = 0;
};

class Journal {
public:
    virtual ~Journal() = default;
    /// Writes signed transactions, all in one transaction, status pending,
    /// each linked to its mints. Error(conflict) when a hash is already
    /// journaled, unless as refused: the same bytes signed again (the nonce was
    /// given back) are pending again. With `fence`, only while the lane is at
    /// that epoch (its owner's), else FencedOut (kind unavailable) and nothing written.
    virtual void add(const std::vector<JournalEntry>& entries, const std::optional<LaneFence>& fence = std::nullopt) = 0;
    /// Sets each pending entry's status and block number, all in one
    /// transaction (a block's worth of mined mints costs one commit); a final
    /// entry stays as it is, but for an abandoned one found mined or reverted
    /// after all (core/chain/tx_state.hpp). Error(not_found), and nothing settled, when a
    /// hash is not journaled. A done mint whose entry is settled mined again
    /// (after reopen()) is pending again, to be answered anew (Mints::finish).
    virtual void settle(const std::vector<JournalSettlement>& settlements) = 0;
    /// A mined or reverted entry back to pending (a reorg deeper than the
    /// confirmations); anything else is left as it is.
    virtual void reopen(const std::string& hash) = 0;
    [[nodiscard]] virtual std::optional<JournalEntry> find(const std::string& hash) = 0;
    /// Entries still pending on that network, by nonce then creation.
    [[nodiscard]] virtual std::vector<JournalEntry> pending(const std::string& blockchain_id) = 0;
    /// Entries on that network ("" for all) with one of `statuses` (all when
    /// empty), newest first, at most `limit`.
    [[nodiscard]] virtual std::vector<JournalEntry> list(const std::string& blockchain_id,
                                                         const std::vector<chain::TxStatus>& statuses,
                                                         std::size_t limit) = 0;
    /// Gives up a pending entry: status abandoned (`abcictl admin journal
    /// abandon`, after the chain's proof or the operator's word). True when it
    /// was pending; false, and nothing changed, when it is final already.
    /// Error(not_found) when the hash is not journaled.
    [[nodiscard]] virtual bool abandon(const std::string& hash) = 0;
    /// One past the highest nonce journaled for `sender` on that network,
    /// whatever became of it; nothing when none is.
    [[nodiscard]] virtual std::optional<std::uint64_t> next_nonce(const std::string& blockchain_id,
                                                                  const std::string& sender) = 0;
    /// The transactions journaled for a mint (Mints), oldest first.
    [[nodiscard]] virtual std::vector<JournalEntry> of_mint(const std::string& mint_id) = 0;
};

}  // namespace abci::store
