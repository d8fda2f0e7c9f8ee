#pragma once
// The token ledger: what each wallet holds as the service knows it, and the
// entity tokens it minted with their metadata.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/store/records.hpp"

namespace abci::store {

/// One wallet's holding of one token on one network, as the service knows it:
/// written by its own mints, reconciled with the chain by balanceOfBatch.
struct TokenBalance {
    std::string blockchain_id;
    std::string address;  // lower-case 0x address
    std::uint64_t token_id = 0;
    std::string balance;     // decimal
    std::string token_type;  // role | entity
    std::string category;    // role name or entity category
    std::string tx_hash;     // latest mint by this service ("" when only seen on chain)
    std::uint64_t block_number = 0;
    std::optional<TimePoint> minted_at;    // first mint by this service
    std::optional<TimePoint> last_minted;  // latest mint by this service
    TimePoint last_updated;                // last change of `balance`
    std::optional<TimePoint> last_synced;  // last reconciliation with the chain
};

/// A mined mint, added to its recipient's balance.
struct MintRecord {
    std::string blockchain_id;
    std::string address;  // lower-case
    std::uint64_t token_id = 0;
    std::string amount;  // decimal, added to the balance
    std::string token_type;
    std::string category;
    std::string tx_hash;
    std::uint64_t block_number = 0;
    TimePoint time;
};

/// A balance read from the chain for reconciliation.
struct ChainBalance {
    std::uint64_t token_id = 0;
    std::string balance;  // decimal
    std::string token_type;
    std::string category;
};

class TokenLedger {
public:
    virtual ~TokenLedger() = default;
    /// Adds a mined mint to the wallet's balance of that token (creating the row).
    /// Idempotent per tx_hash: recording the same transaction twice changes nothing.
    virtual void record_mint(const MintRecord& mint) = 0;
    [[nodiscard]] virtual std::optional<TokenBalance> find_balance(const std::string& blockchain_id,
                                                                   const std::string& address,
                                                                   std::uint64_t token_id) = 0;
    /// The wallet's rows on that network with a non-zero balance, by token id.
    [[nodiscard]] virtual std::vector<TokenBalance> balances_of(const std::string& blockchain_id,
                                                                const std::string& address) = 0;
    /// Sets the wallet's balances to what the chain says (one transaction):
    /// rows whose balance differs get it and last_updated = now; rows missing
    /// with a non-zero chain balance are created (no mint times); every row
    /// named gets last_synced = now.
    virtual void sync_balances(const std::string& blockchain_id, const std::string& address,
                               const std::vector<ChainBalance>& balances, TimePoint now) = 0;
};

/// A minted entity token: which platform entity it stands for and where its metadata lives.
struct Entity {
    std::int64_t id = 0;  // assigned by the store, increasing
    std::string blockchain_id;
    std::string entity_type;  // report | verification | valuation | certificate
    std::string entity_id;    // the platform's identifier
    std::uint64_t token_id = 0;
    std::string recipient;  // lower-case address
    std::uint64_t amount = 0;
    std::string cid;       // metadata CID
    std::string metadata;  // the metadata JSON exactly as stored in content storage
    std::string tx_hash;
    std::uint64_t block_number = 0;
    TimePoint created_at;
};

class Entities {
public:
    virtual ~Entities() = default;
    /// Records a minted entity token; the store assigns id and created_at.
    /// Idempotent per (blockchain_id, tx_hash): recording the same mint again
    /// returns the first record unchanged.
    [[nodiscard]] virtual Entity record(const Entity& entity) = 0;
    /// The latest minted entity of this token id on that network, or the one
    /// with this platform `entity_id` when given.
    [[nodiscard]] virtual std::optional<Entity> find(const std::string& blockchain_id, std::uint64_t token_id,
                                                     const std::optional<std::string>& entity_id) = 0;
};

}  // namespace abci::store
