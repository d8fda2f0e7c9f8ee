// Credentials: password hashes, wallets, OIDC identities.

#include "core/store/sql/backends.hpp"

namespace abci::store::sql {
namespace {

template <class Db>
class SqlCredentials final : public Credentials {
public:
    explicit SqlCredentials(Db& db) : db_(db) {}

    void set_password_hash(const std::string& user_id, const std::string& encoded_hash) override {
        db_.run({.not_found = "user not found"}, [&](auto& c) {
            execute(c,
                    "INSERT INTO password_credentials (user_id, hash, updated_at) VALUES (?1, ?2, ?3) "
                    "ON CONFLICT (user_id) DO UPDATE SET hash = ?2, updated_at = ?3",
                    user_id, encoded_hash, to_millis(now_millis()));
        });
    }

    std::optional<std::string> password_hash(const std::string& user_id) override {
        return db_.run({}, [&](auto& c) {
            return query_one(c, "SELECT hash FROM password_credentials WHERE user_id = ?",
                             [](const auto& row) { return row.text("hash"); }, user_id);
        });
    }

    void link_wallet(const std::string& user_id, const std::string& address) override {
        db_.run({.not_found = "user not found"}, [&](auto& c) {
            claim(c, "INSERT INTO wallets (address, user_id, linked_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                  "SELECT user_id FROM wallets WHERE address = ?", "wallet already linked to another user", user_id,
                  address);
        });
    }

    std::optional<User> find_user_by_wallet(const std::string& address) override {
        return db_.run({}, [&](auto& c) {
            return query_one(c,
                             select_columns(kUserColumns,
                                            "FROM wallets w JOIN users u ON u.id = w.user_id WHERE w.address = ?"),
                             read_user, address);
        });
    }

    std::vector<std::string> wallets_of(const std::string& user_id) override {
        return db_.run({}, [&](auto& c) {
            return query_all(c, "SELECT address FROM wallets WHERE user_id = ? ORDER BY linked_at, rowid",
                             [](const auto& row) { return row.text("address"); }, user_id);
        });
    }

    void link_identity(const std::string& user_id, const std::string& issuer, const std::string& subject) override {
        db_.run({.not_found = "user not found"}, [&](auto& c) {
            claim(c,
                  "INSERT INTO identities (issuer, subject, user_id, linked_at) VALUES (?, ?, ?, ?) "
                  "ON CONFLICT DO NOTHING",
                  "SELECT user_id FROM identities WHERE issuer = ? AND subject = ?",
                  "identity already linked to another user", user_id, issuer, subject);
        });
    }

    std::optional<User> find_user_by_identity(const std::string& issuer, const std::string& subject) override {
        return db_.run({}, [&](auto& c) {
            return query_one(c,
                             select_columns(kUserColumns,
                                            "FROM identities i JOIN users u ON u.id = i.user_id "
                                            "WHERE i.issuer = ? AND i.subject = ?"),
                             read_user, issuer, subject);
        });
    }

private:
    Db& db_;
};

}  // namespace

template <class Db>
std::unique_ptr<Credentials> make_credentials(Db& db) {
    return std::make_unique<SqlCredentials<Db>>(db);
}

ABCI_STORE_REPOSITORY(make_credentials, Credentials)

}  // namespace abci::store::sql
