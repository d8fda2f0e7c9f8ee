// Sessions: refresh-token families and revoked access tokens.

#include "core/store/sql/backends.hpp"

namespace abci::store::sql {
namespace {

template <class Db>
class SqlSessions final : public Sessions {
public:
    explicit SqlSessions(Db& db) : db_(db) {}

    void add_refresh_token(const RefreshToken& token) override {
        db_.transaction({"refresh token already exists", "user not found"}, [&](auto& c) {
            claim(c,
                  "INSERT INTO refresh_families (family_id, user_id, created_at) VALUES (?, ?, ?) "
                  "ON CONFLICT DO NOTHING",
                  "SELECT user_id FROM refresh_families WHERE family_id = ?",
                  "refresh token family belongs to another user", token.user_id, token.family_id);
            execute(c,
                    "INSERT INTO refresh_tokens (token_hash, family_id, user_id, expires_at, used) "
                    "VALUES (?, ?, ?, ?, ?)",
                    token.token_hash, token.family_id, token.user_id, to_millis(token.expires_at), token.used);
        });
    }

    std::optional<RefreshToken> find_refresh_token(const std::string& token_hash) override {
        return db_.run({}, [&](auto& c) {
            return query_one(
                c,
                "SELECT t.token_hash AS token_hash, t.family_id AS family_id, t.user_id AS user_id, "
                "t.expires_at AS expires_at, t.used AS used, f.revoked AS family_revoked "
                "FROM refresh_tokens t JOIN refresh_families f ON f.family_id = t.family_id WHERE t.token_hash = ?",
                [](const auto& row) {
                    return RefreshToken{.token_hash = row.text("token_hash"),
                                        .family_id = row.text("family_id"),
                                        .user_id = row.text("user_id"),
                                        .expires_at = row.time_at("expires_at"),
                                        .used = row.boolean("used"),
                                        .family_revoked = row.boolean("family_revoked")};
                },
                token_hash);
        });
    }

    bool mark_refresh_token_used(const std::string& token_hash) override {
        // One UPDATE guarded by "NOT used": SQLite runs writers one at a time,
        // so exactly one caller sees a changed row.
        return db_.run({}, [&](auto& c) {
            return execute(c, "UPDATE refresh_tokens SET used = TRUE WHERE token_hash = ? AND NOT used", token_hash) ==
                   1;
        });
    }

    void revoke_refresh_family(const std::string& family_id) override {
        db_.run({}, [&](auto& c) {
            execute(c, "UPDATE refresh_families SET revoked = TRUE WHERE family_id = ?", family_id);
        });
    }

    void revoke_token_id(const std::string& jti, TimePoint expires_at) override {
        db_.run({}, [&](auto& c) {
            execute(c,
                    "INSERT INTO revoked_tokens (jti, expires_at) VALUES (?1, ?2) "
                    "ON CONFLICT (jti) DO UPDATE SET expires_at = CASE WHEN ?2 > revoked_tokens.expires_at THEN ?2 "
                    "ELSE revoked_tokens.expires_at END",
                    jti, to_millis(expires_at));
            // The list only grows with logouts; pruning here keeps it to the
            // tokens that are still alive.
            execute(c, "DELETE FROM revoked_tokens WHERE expires_at < ?", to_millis(now_millis()));
        });
    }

    TokenStanding token_standing(const std::string& jti, const std::string& family_id,
                                 const std::string& user_id) override {
        return db_.run({}, [&](auto& c) {
            // Always exactly one row: the user's columns are NULL when there is no such user.
            const auto standing = query_one(
                c,
                select_columns(kUserColumns,
                               ", EXISTS (SELECT 1 FROM revoked_tokens WHERE jti = ?1) AS token_revoked, "
                               "EXISTS (SELECT 1 FROM refresh_families WHERE family_id = ?2 AND revoked) "
                               "AS session_revoked FROM (SELECT 1) AS one LEFT JOIN users u ON u.id = ?3"),
                [](const auto& row) {
                    return TokenStanding{
                        .token_revoked = row.boolean("token_revoked"),
                        .session_revoked = row.boolean("session_revoked"),
                        .user = row.is_null("id") ? std::nullopt : std::optional(read_user(row))};
                },
                jti, family_id, user_id);
            return standing.value_or(TokenStanding{});
        });
    }

private:
    Db& db_;
};

}  // namespace

template <class Db>
std::unique_ptr<Sessions> make_sessions(Db& db) {
    return std::make_unique<SqlSessions<Db>>(db);
}

ABCI_STORE_REPOSITORY(make_sessions, Sessions)

}  // namespace abci::store::sql
