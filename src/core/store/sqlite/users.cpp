// Users on SQLite.

#include <SQLiteCpp/Transaction.h>

#include "core/crypto/encoding.hpp"
#include "core/store/sqlite/sqlite.hpp"

namespace abci::store::sqlite {
namespace {

/// Inserts a new user with a fresh id; SQLite's exception when the e-mail is taken.
User insert_user(Database& db, const NewUser& user) {
    User created{crypto::random_uuid(), lower_ascii(user.email), user.role, user.verified, now_millis()};
    execute(db, "INSERT INTO users (id, email, role, verified, created_at) VALUES (?, ?, ?, ?, ?)", created.id,
            created.email, created.role, created.verified, to_millis(created.created_at));
    return created;
}

class SqliteUsers final : public Users {
public:
    explicit SqliteUsers(Db& db) : db_(db) {}

    User create(const NewUser& user) override {
        return db_.run({"e-mail already registered"}, [&](Database& db) { return insert_user(db, user); });
    }

    std::vector<User> create_accounts(const std::vector<NewAccount>& accounts) override {
        return db_.run({"e-mail already registered or wallet already linked"}, [&](Database& db) {
            SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
            std::vector<User> created;
            created.reserve(accounts.size());
            for (const NewAccount& account : accounts) {
                created.push_back(insert_user(db, account.user));
                // A plain INSERT: the wallet's primary key refuses one linked to anybody already.
                for (const std::string& address : account.wallets)
                    execute(db, "INSERT INTO wallets (address, user_id, linked_at) VALUES (?, ?, ?)", address,
                            created.back().id, to_millis(created.back().created_at));
            }
            tx.commit();
            return created;
        });
    }

    std::optional<User> find_by_id(const std::string& id) override {
        return db_.run({}, [&](Database& db) {
            return query_one(db, select_columns(kUserColumns, "FROM users u WHERE u.id = ?"), read_user, id);
        });
    }

    std::optional<User> find_by_email(const std::string& email) override {
        return db_.run({}, [&](Database& db) {
            return query_one(db, select_columns(kUserColumns, "FROM users u WHERE u.email = ?"), read_user,
                             lower_ascii(email));
        });
    }

    std::vector<User> list() override {
        return db_.run({}, [&](Database& db) {
            return query_all(db, select_columns(kUserColumns, "FROM users u ORDER BY u.rowid"), read_user);
        });
    }

    std::size_t count() override {
        return db_.run({}, [&](Database& db) {
            return static_cast<std::size_t>(db.execAndGet("SELECT count(*) FROM users").getInt64());
        });
    }

    void set_role(const std::string& user_id, const std::string& role) override {
        const int changed = db_.run(
            {}, [&](Database& db) { return execute(db, "UPDATE users SET role = ? WHERE id = ?", role, user_id); });
        if (changed == 0) throw Error(ErrorKind::not_found, "user not found");
    }

private:
    Db& db_;
};

}  // namespace

std::unique_ptr<Users> make_users(Db& db) { return std::make_unique<SqliteUsers>(db); }

}  // namespace abci::store::sqlite
