#pragma once
// The operator's view of the transaction journal on a server's data
// directory (`abcictl admin journal list|show|abandon`, issue 12 item 7):
// what each entry is for, and giving up a pending one. Giving up needs proof
// from the chain the transaction was sent to, the same proof the sender needs
// to call a transaction dropped (core/chain/tx_state.hpp): the account's
// latest nonce is past the entry's and none of the versions journaled for
// that nonce has a receipt. A node proves it only when it has the block 0 the
// lane's sender recorded (store::LaneStatus::genesis): a second devnet or a
// fork with the same chain id, where the signer's nonce went further, proves
// nothing about the chain the transaction is pending on (issue 30 item 9).
// Or the operator's word that the chain was reset (`force`), which still
// refuses a transaction a node shows mined.
//
// A running `serve` is not told: it keeps re-sending what it adopted until
// its next start, which reads the journal again; if a given-up transaction
// is mined after all, the server makes its mints minted again (settle.cpp).

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
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
    std::string lane;                            // "<blockchain id>/<sender>" (store/lanes.hpp)
    std::string genesis;                         // block 0 of the lane's chain as its sender recorded it; "" if none did
    std::vector<store::JournalEntry> versions;   // entry included, oldest first
    std::vector<std::string> mint_ids;           // linked to any version
};

/// The plan for `hash`. Error(not_found) when it is not journaled,
/// Error(conflict) naming its status when it is not pending.
[[nodiscard]] AbandonPlan plan_abandon(store::Store& store, const std::string& hash);

/// Where the chain is asked: the operator's --rpc-url, or the nodes the
/// server's config names for the chain.
struct ChainNode {
    std::vector<std::string> rpc_urls;  // first is primary; the rest are failover
    bool configured = false;            // the server's own node: trusted when no genesis is recorded yet
};

/// What a node holds of the plan's nonce.
struct ChainFindings {
    std::string node;                   // the node asked, its URL masked
    std::string genesis;                // its block 0
    std::uint64_t latest_nonce = 0;     // the account's, at the latest block
    std::vector<std::pair<std::string, std::uint64_t>> mined;  // versions with a receipt, and their blocks
};

/// Asks `node` what it holds of the plan's nonce, after checking that it
/// serves the transaction's chain: its chain id, and its block 0 against the
/// recorded one. Error(conflict) naming both when either differs, or when
/// no genesis is recorded and the node is not the configured one.
/// Error(unavailable|timeout) when the node cannot be asked.
[[nodiscard]] ChainFindings ask_chain(const AbandonPlan& plan, const ChainNode& node);

/// The findings as the proof that the nonce is consumed by a transaction not
/// journaled for it: Error(conflict) saying why they are not (a version is
/// mined, or the nonce is not consumed yet).
void require_nonce_consumed(const AbandonPlan& plan, const ChainFindings& found);

/// Error(conflict) when the findings show a version of the nonce mined:
/// nothing to abandon, whatever the operator says.
void require_none_mined(const AbandonPlan& plan, const ChainFindings& found);

/// The server that sends for the plan's lane now (its lease runs), or
/// nothing: a server on another data directory but the same database.
[[nodiscard]] std::optional<std::string> lane_owner(store::Store& store, const AbandonPlan& plan);

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
