// API keys on SQLite.

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/crypto/encoding.hpp"
#include "core/store/sqlite/sqlite.hpp"

namespace abci::store::sqlite {
namespace {

std::string scopes_to_json(const std::vector<std::string>& scopes) {
    try {
        return nlohmann::json(scopes).dump();
    } catch (const nlohmann::json::exception&) {
        throw Error(ErrorKind::invalid_input, "API key scopes must be valid UTF-8");
    }
}

std::vector<std::string> scopes_from_json(const std::string& text) {
    try {
        return nlohmann::json::parse(text).get<std::vector<std::string>>();
    } catch (const nlohmann::json::exception& e) {
        throw Error(ErrorKind::internal, fmt::format("stored API key scopes are corrupt: {}", e.what()));
    }
}

constexpr const char* kApiKeyColumns = "id, name, scopes, created_by, created_at, revoked_at";
ApiKey read_api_key(const Statement& s) {
    return ApiKey{.id = text(s, "id"),
                  .name = text(s, "name"),
                  .scopes = scopes_from_json(text(s, "scopes")),
                  .created_by = text(s, "created_by"),
                  .created_at = time_at(s, "created_at"),
                  .revoked_at = optional_time_at(s, "revoked_at")};
}

class SqliteApiKeys final : public ApiKeys {
public:
    explicit SqliteApiKeys(Db& db) : db_(db) {}

    ApiKey create(const NewApiKey& key) override {
        ApiKey created{crypto::random_uuid(), key.name, key.scopes, key.created_by, now_millis(), std::nullopt};
        const std::string scopes = scopes_to_json(key.scopes);
        db_.run({"API key already exists"}, [&](Database& db) {
            execute(db,
                    "INSERT INTO api_keys (id, name, key_hash, scopes, created_by, created_at) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    created.id, created.name, key.key_hash, scopes, created.created_by,
                    to_millis(created.created_at));
        });
        return created;
    }

    std::optional<ApiKey> find_by_hash(const std::string& key_hash) override {
        return db_.run({}, [&](Database& db) {
            return query_one(db, select_columns(kApiKeyColumns, "FROM api_keys WHERE key_hash = ?"), read_api_key,
                             key_hash);
        });
    }

    std::vector<ApiKey> list() override {
        return db_.run({}, [&](Database& db) {
            return query_all(db, select_columns(kApiKeyColumns, "FROM api_keys ORDER BY rowid"), read_api_key);
        });
    }

    bool revoke(const std::string& id) override {
        return db_.run({}, [&](Database& db) {
            return execute(db, "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
                           to_millis(now_millis()), id) == 1;
        });
    }

private:
    Db& db_;
};

}  // namespace

std::unique_ptr<ApiKeys> make_api_keys(Db& db) { return std::make_unique<SqliteApiKeys>(db); }

}  // namespace abci::store::sqlite
