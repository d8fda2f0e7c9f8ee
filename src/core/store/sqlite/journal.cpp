// The transaction journal on SQLite.

#include <SQLiteCpp/Transaction.h>

#include <nlohmann/json.hpp>

#include "core/store/sqlite/sqlite.hpp"

namespace abci::store::sqlite {
namespace {

constexpr const char* kJournalColumns =
    "hash, blockchain_id, sender, nonce, raw, purpose, status, block_number, created_at, updated_at";
JournalEntry read_journal(const Statement& s) {
    return JournalEntry{.hash = text(s, "hash"),
                        .blockchain_id = text(s, "blockchain_id"),
                        .sender = text(s, "sender"),
                        .nonce = unsigned_integer(s, "nonce"),
                        .raw = text(s, "raw"),
                        .purpose = text(s, "purpose"),
                        .status = enum_at(s, "status", chain::parse_tx_status),
                        .block_number = unsigned_integer(s, "block_number"),
                        .created_at = time_at(s, "created_at"),
                        .updated_at = time_at(s, "updated_at"),
                        .mint_ids = {}};
}

// A journal entry that a guarded update left unchanged exists (and is final), or not_found.
void require_journaled(Database& db, const std::string& hash) {
    require_row(db, "SELECT 1 FROM tx_journal WHERE hash = ?", hash, "transaction " + hash + " not journaled");
}

class SqliteJournal final : public Journal {
public:
    explicit SqliteJournal(Db& db) : db_(db) {}

    void add(const std::vector<JournalEntry>& entries) override {
        const std::int64_t now = to_millis(now_millis());
        db_.run({"transaction already journaled"}, [&](Database& db) {
            SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
            for (const JournalEntry& e : entries) {
                // The same bytes again are the same transaction: one the node
                // refused, whose nonce was given back and signed again unchanged.
                if (execute(db,
                            "INSERT INTO tx_journal (hash, blockchain_id, sender, nonce, raw, purpose, status, "
                            "block_number, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'pending', 0, ?7, "
                            "?7) ON CONFLICT (hash) DO UPDATE SET status = 'pending', updated_at = ?7 "
                            "WHERE status = 'refused'",
                            e.hash, e.blockchain_id, e.sender, e.nonce, e.raw, e.purpose, now) == 0)
                    throw Error(ErrorKind::conflict, "transaction already journaled");
                for (const auto& mint_id : e.mint_ids)
                    execute(db, "INSERT OR IGNORE INTO mint_transactions (mint_id, hash) VALUES (?, ?)", mint_id,
                            e.hash);
            }
            tx.commit();
        });
    }

    void settle(const std::vector<JournalSettlement>& settlements) override {
        const std::int64_t now = to_millis(now_millis());
        db_.run({}, [&](Database& db) {
            SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
            // Only pending leaves pending (core/chain/tx_state.hpp): a final entry stays as it is.
            for (const auto& s : settlements) {
                const bool settled = execute(db,
                                             "UPDATE tx_journal SET status = ?, block_number = ?, updated_at = ? "
                                             "WHERE hash = ? AND status = 'pending'",
                                             s.status, s.block_number, now, s.hash) == 1;
                if (!settled) require_journaled(db, s.hash);
            }
            tx.commit();
        });
    }

    void reopen(const std::string& hash) override {
        db_.run({}, [&](Database& db) {
            execute(db,
                    "UPDATE tx_journal SET status = 'pending', block_number = 0, updated_at = ? "
                    "WHERE hash = ? AND status IN ('mined', 'reverted')",
                    to_millis(now_millis()), hash);
        });
    }

    std::optional<JournalEntry> find(const std::string& hash) override {
        return db_.run({}, [&](Database& db) {
            return query_one(db, select_columns(kJournalColumns, "FROM tx_journal WHERE hash = ?"), read_journal, hash);
        });
    }

    std::vector<JournalEntry> pending(const std::string& blockchain_id) override {
        return db_.run({}, [&](Database& db) {
            return query_all(db,
                             select_columns(kJournalColumns,
                                            "FROM tx_journal WHERE blockchain_id = ? AND status = 'pending' "
                                            "ORDER BY nonce < 0, nonce, created_at, rowid"),
                             read_journal, blockchain_id);
        });
    }

    std::vector<JournalEntry> list(const std::string& blockchain_id, const std::vector<chain::TxStatus>& statuses,
                                   std::size_t limit) override {
        // json_each binds the list as one parameter: the statement stays prepared, never spliced.
        nlohmann::json wanted = nlohmann::json::array();
        for (const chain::TxStatus status : statuses) wanted.push_back(chain::to_string(status));
        return db_.run({}, [&](Database& db) {
            return query_all(db,
                             select_columns(kJournalColumns,
                                            "FROM tx_journal WHERE (?1 = '' OR blockchain_id = ?1) AND "
                                            "(?2 = '[]' OR status IN (SELECT value FROM json_each(?2))) "
                                            "ORDER BY created_at DESC, rowid DESC LIMIT ?3"),
                             read_journal, blockchain_id, wanted.dump(), static_cast<std::int64_t>(limit));
        });
    }

    bool abandon(const std::string& hash) override {
        const std::int64_t now = to_millis(now_millis());
        return db_.run({}, [&](Database& db) {
            SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
            const bool abandoned = execute(db,
                                           "UPDATE tx_journal SET status = 'abandoned', updated_at = ? "
                                           "WHERE hash = ? AND status = 'pending'",
                                           now, hash) == 1;
            if (!abandoned) require_journaled(db, hash);
            tx.commit();
            return abandoned;
        });
    }

    std::vector<JournalEntry> of_mint(const std::string& mint_id) override {
        return db_.run({}, [&](Database& db) {
            return query_all(db,
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

std::unique_ptr<Journal> make_journal(Db& db) { return std::make_unique<SqliteJournal>(db); }

}  // namespace abci::store::sqlite
