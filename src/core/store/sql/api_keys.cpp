// API keys.

#include "core/crypto/encoding.hpp"
#include "core/store/sql/backends.hpp"

namespace abci::store::sql {
namespace {

constexpr const char* kApiKeyColumns = "id, name, scopes, created_by, created_at, revoked_at";
constexpr auto read_api_key = [](const auto& row) {
    return ApiKey{.id = row.text("id"),
                  .name = row.text("name"),
                  .scopes = string_list_from_json(row.text("scopes"), "API key scopes"),
                  .created_by = row.text("created_by"),
                  .created_at = row.time_at("created_at"),
                  .revoked_at = row.optional_time_at("revoked_at")};
};

template <class Db>
class SqlApiKeys final : public ApiKeys {
public:
    explicit SqlApiKeys(Db& db) : db_(db) {}

    ApiKey create(const NewApiKey& key) override {
        ApiKey created{crypto::random_uuid(), key.name, key.scopes, key.created_by, now_millis(), std::nullopt};
        const std::string scopes = string_list_to_json(key.scopes, "API key scopes");
        db_.run({"API key already exists"}, [&](auto& c) {
            execute(c,
                    "INSERT INTO api_keys (id, name, key_hash, scopes, created_by, created_at) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    created.id, created.name, key.key_hash, scopes, created.created_by,
                    to_millis(created.created_at));
        });
        return created;
    }

    std::optional<ApiKey> find_by_hash(const std::string& key_hash) override {
        return db_.run({}, [&](auto& c) {
            return query_one(c, select_columns(kApiKeyColumns, "FROM api_keys WHERE key_hash = ?"), read_api_key,
                             key_hash);
        });
    }

    std::vector<ApiKey> list() override {
        return db_.run({}, [&](auto& c) {
            return query_all(c, select_columns(kApiKeyColumns, "FROM api_keys ORDER BY rowid"), read_api_key);
        });
    }

    bool revoke(const std::string& id) override {
        return db_.run({}, [&](auto& c) {
            return execute(c, "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
                           to_millis(now_millis()), id) == 1;
        });
    }

private:
    Db& db_;
};

}  // namespace

template <class Db>
std::unique_ptr<ApiKeys> make_api_keys(Db& db) {
    return std::make_unique<SqlApiKeys<Db>>(db);
}

ABCI_STORE_REPOSITORY(make_api_keys, ApiKeys)

}  // namespace abci::store::sql
