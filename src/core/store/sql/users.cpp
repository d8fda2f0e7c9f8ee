// Users.

#include "core/crypto/encoding.hpp"
#include "core/store/sql/backends.hpp"

namespace abci::store::sql {
namespace {

/// Inserts a new user with a fresh id; a constraint violation when the e-mail is taken.
template <class Connection>
User insert_user(Connection& c, const NewUser& user) {
    User created{crypto::random_uuid(), lower_ascii(user.email), user.role, user.verified, now_millis()};
    execute(c, "INSERT INTO users (id, email, role, verified, created_at) VALUES (?, ?, ?, ?, ?)", created.id,
            created.email, created.role, created.verified, to_millis(created.created_at));
    return created;
}

template <class Db>
class SqlUsers final : public Users {
public:
    explicit SqlUsers(Db& db) : db_(db) {}

    User create(const NewUser& user) override {
        return db_.run({"e-mail already registered"}, [&](auto& c) { return insert_user(c, user); });
    }

    std::vector<User> create_accounts(const std::vector<NewAccount>& accounts) override {
        return db_.transaction({"e-mail already registered or wallet already linked"}, [&](auto& c) {
            std::vector<User> created;
            created.reserve(accounts.size());
            for (const NewAccount& account : accounts) {
                created.push_back(insert_user(c, account.user));
                // A plain INSERT: the wallet's primary key refuses one linked to anybody already.
                for (const std::string& address : account.wallets)
                    execute(c, "INSERT INTO wallets (address, user_id, linked_at) VALUES (?, ?, ?)", address,
                            created.back().id, to_millis(created.back().created_at));
            }
            return created;
        });
    }

    std::optional<User> find_by_id(const std::string& id) override {
        return db_.run({}, [&](auto& c) {
            return query_one(c, select_columns(kUserColumns, "FROM users u WHERE u.id = ?"), read_user, id);
        });
    }

    std::optional<User> find_by_email(const std::string& email) override {
        return db_.run({}, [&](auto& c) {
            return query_one(c, select_columns(kUserColumns, "FROM users u WHERE u.email = ?"), read_user,
                             lower_ascii(email));
        });
    }

    std::vector<User> list() override {
        return db_.run({}, [&](auto& c) {
            return query_all(c, select_columns(kUserColumns, "FROM users u ORDER BY u.rowid"), read_user);
        });
    }

    std::size_t count() override {
        return db_.run({}, [&](auto& c) {
            const auto count = query_one(c, "SELECT count(*) AS n FROM users", [](const auto& row) { return row.integer("n"); });
            return static_cast<std::size_t>(count.value_or(0));
        });
    }

    void set_role(const std::string& user_id, const std::string& role) override {
        const auto changed = db_.run(
            {}, [&](auto& c) { return execute(c, "UPDATE users SET role = ? WHERE id = ?", role, user_id); });
        if (changed == 0) throw Error(ErrorKind::not_found, "user not found");
    }

private:
    Db& db_;
};

}  // namespace

template <class Db>
std::unique_ptr<Users> make_users(Db& db) {
    return std::make_unique<SqlUsers<Db>>(db);
}

ABCI_STORE_REPOSITORY(make_users, Users)

}  // namespace abci::store::sql
