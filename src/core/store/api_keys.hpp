#pragma once
// API keys for machine clients: only their hashes are stored.

#include <optional>
#include <string>
#include <vector>

#include "core/store/records.hpp"

namespace abci::store {

struct ApiKey {
    std::string id;  // UUID v4
    std::string name;
    std::vector<std::string> scopes;  // e.g. "abci:read", "abci:health"
    std::string created_by;           // user id or "" when created from the command line
    TimePoint created_at;
    std::optional<TimePoint> revoked_at;
};

struct NewApiKey {
    std::string name;
    std::string key_hash;  // SHA-256 of the key, hex; unique
    std::vector<std::string> scopes;
    std::string created_by;
};

class ApiKeys {
public:
    virtual ~ApiKeys() = default;
    /// Error(conflict) when the hash exists.
    [[nodiscard]] virtual ApiKey create(const NewApiKey& key) = 0;
    /// The key with this hash, revoked or not (the caller checks revoked_at).
    [[nodiscard]] virtual std::optional<ApiKey> find_by_hash(const std::string& key_hash) = 0;
    /// Every key, oldest first.
    [[nodiscard]] virtual std::vector<ApiKey> list() = 0;
    /// Revokes the key; false when no unrevoked key has this id.
    [[nodiscard]] virtual bool revoke(const std::string& id) = 0;
};

}  // namespace abci::store
