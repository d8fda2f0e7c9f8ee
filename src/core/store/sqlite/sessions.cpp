// Sessions on SQLite: refresh-token families and revoked access tokens.

#include <SQLiteCpp/Transaction.h>

#include "core/store/sqlite/sqlite.hpp"

namespace abci::store::sqlite {
namespace {

class SqliteSessions final : public Sessions {
public:
    explicit SqliteSessions(Db& db) : db_(db) {}

    void add_refresh_token(const RefreshToken& token) override {
        db_.run({"refresh token already exists", "user not found"}, [&](Database& db) {
            SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
            claim(db,
                  "INSERT INTO refresh_families (family_id, user_id, created_at) VALUES (?, ?, ?) "
                  "ON CONFLICT DO NOTHING",
                  "SELECT user_id FROM refresh_families WHERE family_id = ?",
                  "refresh token family belongs to another user", token.user_id, token.family_id);
            execute(db,
                    "INSERT INTO refresh_tokens (token_hash, family_id, user_id, expires_at, used) "
                    "VALUES (?, ?, ?, ?, ?)",
                    token.token_hash, token.family_id, token.user_id, to_millis(token.expires_at), token.used);
            tx.commit();
        });
    }

    std::optional<RefreshToken> find_refresh_token(const std::string& token_hash) override {
        return db_.run({}, [&](Database& db) {
            return query_one(
                db,
                "SELECT t.token_hash AS token_hash, t.family_id AS family_id, t.user_id AS user_id, "
                "t.expires_at AS expires_at, t.used AS used, f.revoked AS family_revoked "
                "FROM refresh_tokens t JOIN refresh_families f ON f.family_id = t.family_id WHERE t.token_hash = ?",
                [](const Statement& s) {
                    return RefreshToken{.token_hash = text(s, "token_hash"),
                                        .family_id = text(s, "family_id"),
                                        .user_id = text(s, "user_id"),
                                        .expires_at = time_at(s, "expires_at"),
                                        .used = boolean(s, "used"),
                                        .family_revoked = boolean(s, "family_revoked")};
                },
                token_hash);
        });
    }

    bool mark_refresh_token_used(const std::string& token_hash) override {
        // One UPDATE guarded by "used = 0": SQLite runs writers one at a time,
        // so exactly one caller sees a changed row.
        return db_.run({}, [&](Database& db) {
            return execute(db, "UPDATE refresh_tokens SET used = 1 WHERE token_hash = ? AND used = 0", token_hash) ==
                   1;
        });
    }

    void revoke_refresh_family(const std::string& family_id) override {
        db_.run({}, [&](Database& db) {
            execute(db, "UPDATE refresh_families SET revoked = 1 WHERE family_id = ?", family_id);
        });
    }

    void revoke_token_id(const std::string& jti, TimePoint expires_at) override {
        db_.run({}, [&](Database& db) {
            execute(db,
                    "INSERT INTO revoked_tokens (jti, expires_at) VALUES (?1, ?2) "
                    "ON CONFLICT (jti) DO UPDATE SET expires_at = max(expires_at, ?2)",
                    jti, to_millis(expires_at));
            // The list only grows with logouts; pruning here keeps it to the
            // tokens that are still alive.
            execute(db, "DELETE FROM revoked_tokens WHERE expires_at < ?", to_millis(now_millis()));
        });
    }

    TokenStanding token_standing(const std::string& jti, const std::string& family_id,
                                 const std::string& user_id) override {
        return db_.run({}, [&](Database& db) {
            // Always exactly one row: the user's columns are NULL when there is no such user.
            const auto standing = query_one(
                db,
                select_columns(kUserColumns,
                               ", EXISTS (SELECT 1 FROM revoked_tokens WHERE jti = ?1) AS token_revoked, "
                               "EXISTS (SELECT 1 FROM refresh_families WHERE family_id = ?2 AND revoked = 1) "
                               "AS session_revoked FROM (SELECT 1) LEFT JOIN users u ON u.id = ?3"),
                [](const Statement& s) {
                    return TokenStanding{
                        .token_revoked = boolean(s, "token_revoked"),
                        .session_revoked = boolean(s, "session_revoked"),
                        .user = is_null(s, "id") ? std::nullopt : std::optional(read_user(s))};
                },
                jti, family_id, user_id);
            return standing.value_or(TokenStanding{});
        });
    }

private:
    Db& db_;
};

}  // namespace

std::unique_ptr<Sessions> make_sessions(Db& db) { return std::make_unique<SqliteSessions>(db); }

}  // namespace abci::store::sqlite
