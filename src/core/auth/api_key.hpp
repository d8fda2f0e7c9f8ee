#pragma once
// API keys (service tokens): "abci_" followed by 43 base64url characters (32
// random bytes). Only their SHA-256 is stored; the key is shown once.

#include <string>
#include <string_view>
#include <vector>

namespace abci::auth {

struct GeneratedApiKey {
    std::string key;   // the secret, shown to the operator once
    std::string hash;  // sha256 hex, what the store keeps
};

[[nodiscard]] GeneratedApiKey generate_api_key();
/// The hash under which `key` would be stored.
[[nodiscard]] std::string hash_api_key(std::string_view key);
/// True when `token` has the API-key shape (so a bearer is not parsed as a JWT).
[[nodiscard]] bool looks_like_api_key(std::string_view token) noexcept;

/// The scopes an API key may carry; each is a "system permission" (spec 5.2).
[[nodiscard]] const std::vector<std::string>& known_scopes();
/// Error(invalid_input) naming the known scopes when `scope` is not one.
void check_scope(std::string_view scope);

}  // namespace abci::auth
