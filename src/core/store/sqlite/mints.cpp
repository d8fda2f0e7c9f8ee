// Mint requests and their idempotency keys on SQLite.

#include <SQLiteCpp/Transaction.h>

#include "core/store/sqlite/sqlite.hpp"

namespace abci::store::sqlite {
namespace {

constexpr const char* kMintColumns =
    "id, actor, route, blockchain_id, idempotency_key, fingerprint, state, answer, created_at, updated_at";
MintRequest read_mint(const Statement& s) {
    return MintRequest{.id = text(s, "id"),
                       .actor = text(s, "actor"),
                       .route = text(s, "route"),
                       .blockchain_id = text(s, "blockchain_id"),
                       .idempotency_key = text(s, "idempotency_key"),
                       .fingerprint = text(s, "fingerprint"),
                       .state = enum_at(s, "state", parse_mint_state),
                       .answer = text(s, "answer"),
                       .created_at = time_at(s, "created_at"),
                       .updated_at = time_at(s, "updated_at")};
}

/// The mint that the claim (actor, route, key) names.
std::optional<MintRequest> mint_by_key(Database& db, const IdempotencyKey& key) {
    return query_one(db,
                     select_columns(kMintColumns,
                                    "FROM mint_requests WHERE id = (SELECT mint_id FROM idempotency_keys "
                                    "WHERE actor = ? AND route = ? AND key = ?)"),
                     read_mint, key.actor, key.route, key.key);
}

void require_mint(Database& db, const std::string& id) {
    require_row(db, "SELECT 1 FROM mint_requests WHERE id = ?", id, "no mint " + id);
}

class SqliteMints final : public Mints {
public:
    explicit SqliteMints(Db& db) : db_(db) {}

    std::optional<MintRequest> begin(const MintRequest& mint) override {
        const std::int64_t now = to_millis(now_millis());
        return db_.run({}, [&](Database& db) {
            // The claim, the read of the winner's mint and the new mint in one
            // write transaction: a release in between cannot leave us with neither.
            SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
            std::optional<MintRequest> existing;
            if (!mint.idempotency_key.empty() &&
                execute(db,
                        "INSERT INTO idempotency_keys (actor, route, key, mint_id, created_at) VALUES (?, ?, ?, ?, ?) "
                        "ON CONFLICT DO NOTHING",
                        mint.actor, mint.route, mint.idempotency_key, mint.id, now) == 0) {
                existing = mint_by_key(db, {mint.actor, mint.route, mint.idempotency_key});
                if (!existing) throw Error(ErrorKind::internal, "an idempotency key names no mint");
            } else {
                execute(db,
                        "INSERT INTO mint_requests (id, actor, route, blockchain_id, idempotency_key, fingerprint, "
                        "state, answer, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'pending', '', ?7, ?7)",
                        mint.id, mint.actor, mint.route, mint.blockchain_id, mint.idempotency_key, mint.fingerprint,
                        now);
            }
            tx.commit();
            return existing;
        });
    }

    void finish(const std::string& id, MintState state, const std::string& answer) override {
        db_.run({}, [&](Database& db) {
            SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
            require_mint(db, id);
            execute(db,
                    "UPDATE mint_requests SET state = ?, answer = ?, updated_at = ? WHERE id = ? AND state = 'pending'",
                    state, answer, to_millis(now_millis()), id);
            tx.commit();
        });
    }

    void release(const std::string& id, const std::string& answer) override {
        db_.run({}, [&](Database& db) {
            SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
            require_mint(db, id);
            if (execute(db,
                        "UPDATE mint_requests SET state = 'failed', answer = ?, updated_at = ? "
                        "WHERE id = ? AND state = 'pending'",
                        answer, to_millis(now_millis()), id) == 1)
                execute(db, "DELETE FROM idempotency_keys WHERE mint_id = ?", id);
            tx.commit();
        });
    }

    std::optional<MintRequest> find(const std::string& id) override {
        return db_.run({}, [&](Database& db) {
            return query_one(db, select_columns(kMintColumns, "FROM mint_requests WHERE id = ?"), read_mint, id);
        });
    }

    std::optional<MintRequest> find_by_key(const IdempotencyKey& key) override {
        return db_.run({}, [&](Database& db) { return mint_by_key(db, key); });
    }

    std::vector<MintRequest> pending() override {
        return db_.run({}, [&](Database& db) {
            return query_all(
                db, select_columns(kMintColumns, "FROM mint_requests WHERE state = 'pending' ORDER BY created_at, rowid"),
                read_mint);
        });
    }

private:
    Db& db_;
};

}  // namespace

std::unique_ptr<Mints> make_mints(Db& db) { return std::make_unique<SqliteMints>(db); }

}  // namespace abci::store::sqlite
