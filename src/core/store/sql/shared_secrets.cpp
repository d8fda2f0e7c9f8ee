// Secrets shared by the servers on one database.

#include "core/store/sql/backends.hpp"

namespace abci::store::sql {
namespace {

template <class Db>
class SqlSharedSecrets final : public SharedSecrets {
public:
    explicit SqlSharedSecrets(Db& db) : db_(db) {}

    std::string get_or_create(const std::string& name, const std::string& candidate) override {
        return db_.run({}, [&](auto& c) {
            // The row is never changed once written, so the read after the
            // insert needs no transaction: it finds the winner's value.
            execute(c, "INSERT INTO shared_secrets (name, value, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                    name, candidate, to_millis(now_millis()));
            return *query_one(c, "SELECT value FROM shared_secrets WHERE name = ?",
                              [](const auto& row) { return row.text("value"); }, name);
        });
    }

private:
    Db& db_;
};

}  // namespace

template <class Db>
std::unique_ptr<SharedSecrets> make_shared_secrets(Db& db) {
    return std::make_unique<SqlSharedSecrets<Db>>(db);
}

ABCI_STORE_REPOSITORY(make_shared_secrets, SharedSecrets)

}  // namespace abci::store::sql
