// The transaction journal.

#include <nlohmann/json.hpp>

#include "core/store/sql/backends.hpp"
#include "core/store/sql/outbox.hpp"

namespace abci::store::sql {
namespace {

constexpr const char* kJournalColumns =
    "hash, blockchain_id, sender, nonce, raw, purpose, status, block_number, created_at, updated_at";
constexpr auto read_journal = [](const auto& row) {
    return JournalEntry{.hash = row.text("hash"),
                        .blockchain_id = row.text("blockchain_id"),
                        .sender = row.text("sender"),
                        .nonce = row.unsigned_integer("nonce"),
                        .raw = row.text("raw"),
                        .purpose = row.text("purpose"),
                        .status = row.enum_at("status", chain::parse_tx_status),
                        .block_number = row.unsigned_integer("block_number"),
                        .created_at = row.time_at("created_at"),
                        .updated_at = row.time_at("updated_at"),
                        .mint_ids = {}};
};

// A journal entry that a guarded update left unchanged exists (and is final), or not_found.
template <class Connection>
void require_journaled(Connection& c, const std::string& hash) {
    require_row(c, "SELECT 1 FROM tx_journal WHERE hash = ?", hash, "transaction " + hash + " not journaled");
}

template <class Db>
class SqlJournal final : public Journal {
public:
    explicit SqlJournal(Db& db) : db_(db) {}

    void add(const std::vector<JournalEntry>& entries, const std::optional<LaneFence>& fence) override {
        const std::int64_t now = to_millis(now_millis());
        bool wrote_events = false;
        db_.transaction({"transaction already journaled"}, [&](auto& c) {
            wrote_events = false;
            // Read in the same transaction as the writes: a takeover that
            // bumps the epoch meanwhile makes one of the two fail.
            if (fence && !exists(c, "SELECT 1 FROM lanes WHERE lane = ? AND epoch = ?", fence->lane, fence->epoch))
                throw FencedOut(ErrorKind::unavailable, "this server no longer sends for " + fence->lane +
                                                        ": another took the lane over (epoch " +
                                                        std::to_string(fence->epoch) + " ended)");
            for (const JournalEntry& e : entries) {
                // The same bytes again are the same transaction: one the node
                // refused, whose nonce was given back and signed again unchanged.
                if (execute(c,
                            "INSERT INTO tx_journal (hash, blockchain_id, sender, nonce, raw, purpose, status, "
                            "block_number, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'pending', 0, ?7, "
                            "?7) ON CONFLICT (hash) DO UPDATE SET status = 'pending', updated_at = ?7 "
                            "WHERE tx_journal.status = 'refused'",
                            e.hash, e.blockchain_id, e.sender, e.nonce, e.raw, e.purpose, now) == 0)
                    throw Error(ErrorKind::conflict, "transaction already journaled");
                for (const auto& mint_id : e.mint_ids) {
                    // A mint's first transaction is its mint.submitted; a replacement is not.
                    if (execute(c, "INSERT INTO mint_transactions (mint_id, hash) VALUES (?, ?) ON CONFLICT DO NOTHING",
                                mint_id, e.hash) == 1 &&
                        !exists(c, "SELECT 1 FROM mint_transactions WHERE mint_id = ? AND hash <> ?", mint_id, e.hash))
                        wrote_events |= write_mint_event<Db>(c, EventType::mint_submitted, mint_id, e.hash);
                    // Journaled: the job is done; a next owner adopts the transaction instead.
                    execute(c, "DELETE FROM mint_jobs WHERE mint_id = ?", mint_id);
                }
            }
        });
        if (wrote_events) events_written();
    }

    void settle(const std::vector<JournalSettlement>& settlements) override {
        const std::int64_t now = to_millis(now_millis());
        db_.transaction({}, [&](auto& c) {
            // Only pending leaves pending (core/chain/tx_state.hpp): a final entry stays as it is,
            // but for one the operator gave up that the chain shows landed after all.
            for (const auto& s : settlements) {
                const bool settled =
                    execute(c,
                            "UPDATE tx_journal SET status = ?1, block_number = ?2, updated_at = ?3 WHERE hash = ?4 AND "
                            "(status = 'pending' OR (status = 'abandoned' AND ?1 IN ('mined', 'reverted')))",
                            s.status, s.block_number, now, s.hash) == 1;
                if (!settled) {
                    require_journaled(c, s.hash);
                    continue;
                }
                if (s.status != chain::TxStatus::mined) continue;
                // A mint answered done before its transaction is mined was
                // reorged out and is mined again: its answer names the block
                // that left the chain. Pending again (its old answer kept),
                // the sender's report answers it anew, and Mints::finish()
                // writes that answer with its second mint.confirmed; should
                // the server stop first, the start's reconcile does. The
                // first time, the journal is settled before the mint is
                // finished (TxSender settles, then answers the waiter), so
                // this changes nothing then.
                execute(c,
                        "UPDATE mint_requests SET state = 'pending', updated_at = ? WHERE state = 'done' AND id IN "
                        "(SELECT mint_id FROM mint_transactions WHERE hash = ?)",
                        now, s.hash);
            }
        });
    }

    void reopen(const std::string& hash) override {
        const bool wrote_events = db_.transaction({}, [&](auto& c) {
            if (execute(c,
                        "UPDATE tx_journal SET status = 'pending', block_number = 0, updated_at = ? "
                        "WHERE hash = ? AND status IN ('mined', 'reverted')",
                        to_millis(now_millis()), hash) == 0)
                return false;
            bool wrote = false;
            for (const auto& mint_id : query_all(c, "SELECT mint_id FROM mint_transactions WHERE hash = ?",
                                                 [](const auto& row) { return row.text("mint_id"); }, hash))
                wrote |= write_mint_event<Db>(c, EventType::mint_reorged, mint_id, hash);
            return wrote;
        });
        if (wrote_events) events_written();
    }

    std::optional<JournalEntry> find(const std::string& hash) override {
        return db_.run({}, [&](auto& c) {
            return query_one(c, select_columns(kJournalColumns, "FROM tx_journal WHERE hash = ?"), read_journal, hash);
        });
    }

    std::vector<JournalEntry> pending(const std::string& blockchain_id) override {
        return db_.run({}, [&](auto& c) {
            return query_all(c,
                             select_columns(kJournalColumns,
                                            "FROM tx_journal WHERE blockchain_id = ? AND status = 'pending' "
                                            "ORDER BY nonce < 0, nonce, created_at, rowid"),
                             read_journal, blockchain_id);
        });
    }

    std::vector<JournalEntry> list(const std::string& blockchain_id, const std::vector<chain::TxStatus>& statuses,
                                   std::size_t limit) override {
        // The list bound as one JSON parameter: the statement stays prepared, never spliced.
        nlohmann::json wanted = nlohmann::json::array();
        for (const chain::TxStatus status : statuses) wanted.push_back(chain::to_string(status));
        return db_.run({}, [&](auto& c) {
            return query_all(c,
                             select_columns(kJournalColumns,
                                            "FROM tx_journal WHERE (?1 = '' OR blockchain_id = ?1) AND (?2 = '[]' OR "
                                            "status IN (" + Db::json_array_values("?2") +
                                                ")) ORDER BY created_at DESC, rowid DESC LIMIT ?3"),
                             read_journal, blockchain_id, wanted.dump(), static_cast<std::int64_t>(limit));
        });
    }

    bool abandon(const std::string& hash) override {
        const std::int64_t now = to_millis(now_millis());
        return db_.transaction({}, [&](auto& c) {
            const bool abandoned = execute(c,
                                           "UPDATE tx_journal SET status = 'abandoned', updated_at = ? "
                                           "WHERE hash = ? AND status = 'pending'",
                                           now, hash) == 1;
            if (!abandoned) require_journaled(c, hash);
            return abandoned;
        });
    }

    std::optional<std::uint64_t> next_nonce(const std::string& blockchain_id, const std::string& sender) override {
        return db_.run({}, [&](auto& c) {
            // Nonces are stored as their two's-complement; ours stay far below 2^63.
            return query_one(c,
                             "SELECT max(nonce) + 1 AS next FROM tx_journal WHERE blockchain_id = ? AND sender = ? "
                             "HAVING count(*) > 0",
                             [](const auto& row) { return row.unsigned_integer("next"); }, blockchain_id, sender);
        });
    }

    std::vector<JournalEntry> of_mint(const std::string& mint_id) override {
        return db_.run({}, [&](auto& c) {
            return query_all(c,
                             select_columns(kJournalColumns,
                                            "FROM tx_journal WHERE hash IN (SELECT hash FROM mint_transactions "
                                            "WHERE mint_id = ?) ORDER BY created_at, rowid"),
                             read_journal, mint_id);
        });
    }

private:
    Db& db_;
};

}  // namespace

template <class Db>
std::unique_ptr<Journal> make_journal(Db& db) {
    return std::make_unique<SqlJournal<Db>>(db);
}

ABCI_STORE_REPOSITORY(make_journal, Journal)

}  // namespace abci::store::sql
