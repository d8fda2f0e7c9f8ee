#pragma once
// The operator's view of the transaction journal on a server's data
// directory (`abcictl admin journal list|show|abandon`, issue 12 item 7):
// what each entry is for, and giving up a pending one. Giving up needs proof
// from the chain, the same proof the sender needs to call a transaction
// dropped (core/chain/tx_state.hpp): the account's latest nonce is past the
// entry's and none of the versions journaled for that nonce has a receipt.
// Or the operator's word that the chain was reset (`force`).
//
// A running `serve` is not told: it keeps re-sending what it adopted until
// its next start, which reads the journal again.

#include <cstdint>
#include <string>
#include <vector>

#include "core/store/store.hpp"

namespace abci::service {

/// What a journal entry's purpose (core/service/mint_record.hpp) says the
/// transaction is for. read_purpose() throws Error(internal) for a mint record
/// it cannot read (one written by a newer release): never a half-read row.
struct TxPurpose {
    std::string op;                             // "mint", "mintMany", …; "" when the purpose is no JSON object
    std::size_t mints = 0;                      // how many mints it carries
    std::vector<std::string> mint_ids;          // those mints' ids, where recorded
    std::vector<std::string> idempotency_keys;  // the keys they were sent with, where any
};
[[nodiscard]] TxPurpose read_purpose(const std::string& purpose);

/// The entries on `blockchain_id` ("" for all) with one of `statuses`
/// (chain::TxStatus names; none: every status), newest first, at most
/// `limit`. Error(invalid_input) naming the valid statuses for an unknown one.
[[nodiscard]] std::vector<store::JournalEntry> list_journal(store::Store& store, const std::string& blockchain_id,
                                                            const std::vector<std::string>& statuses, std::size_t limit);

/// The entry `hash`; Error(not_found) when it is not journaled.
[[nodiscard]] store::JournalEntry find_journal_entry(store::Store& store, const std::string& hash);

/// What abandoning a transaction involves: its nonce's versions (every entry
/// of that sender, chain and nonce: fee bumps and fillers), and the mints
/// they carry.
struct AbandonPlan {
    store::JournalEntry entry;
    std::uint64_t chain_id = 0;                  // what the transaction was signed for
    std::vector<store::JournalEntry> versions;   // entry included, oldest first
    std::vector<std::string> mint_ids;           // linked to any version
};

/// The plan for `hash`. Error(not_found) when it is not journaled,
/// Error(conflict) naming its status when it is not pending.
[[nodiscard]] AbandonPlan plan_abandon(store::Store& store, const std::string& hash);

/// Asks the node at `rpc_url` for the proof that the plan's nonce is consumed
/// by a transaction not journaled for it; returns the account's latest nonce.
/// Error(conflict) saying why when there is none: the node serves another
/// chain, the nonce is not consumed yet, or a version has a receipt.
/// Error(unavailable|timeout) when the node cannot be asked.
std::uint64_t prove_nonce_consumed(const AbandonPlan& plan, const std::string& rpc_url);

struct AbandonResult {
    std::vector<std::string> abandoned;       // versions now abandoned (were pending)
    std::vector<std::string> released_mints;  // failed, their keys freed: a retry mints anew
    std::vector<std::string> kept_mints;      // final already, or with a transaction still pending or landed
};

/// Marks every pending version of the plan's nonce abandoned (all are dead
/// once the nonce is consumed elsewhere), then releases
/// (Store::release_mint) each linked mint that is still pending and has no
/// transaction left that is pending or landed. The caller has the proof or
/// the operator's word; `reason` is recorded in the released mints' answer.
AbandonResult abandon(store::Store& store, const AbandonPlan& plan, const std::string& reason);

}  // namespace abci::service
