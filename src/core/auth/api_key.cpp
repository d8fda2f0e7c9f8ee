#include "core/auth/api_key.hpp"

#include <algorithm>

#include "core/crypto/encoding.hpp"
#include "core/error.hpp"

namespace abci::auth {
namespace {

constexpr std::string_view kPrefix = "abci_";
constexpr std::size_t kKeyBytes = 32;
constexpr std::size_t kEncodedLength = (kKeyBytes * 4 + 2) / 3;  // unpadded base64url: 43

bool is_base64url_char(char c) noexcept {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

}  // namespace

GeneratedApiKey generate_api_key() {
    std::string key = std::string(kPrefix) + crypto::random_token(kKeyBytes);
    std::string hash = hash_api_key(key);
    return {std::move(key), std::move(hash)};
}

std::string hash_api_key(std::string_view key) { return crypto::sha256_hex(key); }

bool looks_like_api_key(std::string_view token) noexcept {
    return token.size() == kPrefix.size() + kEncodedLength && token.starts_with(kPrefix) &&
           std::all_of(token.begin() + kPrefix.size(), token.end(), is_base64url_char);
}

const std::vector<std::string>& known_scopes() {
    static const std::vector<std::string> scopes{"abci:read", "abci:health", "abci:mint-entity"};
    return scopes;
}

void check_scope(std::string_view scope) {
    const auto& scopes = known_scopes();
    if (std::find(scopes.begin(), scopes.end(), scope) != scopes.end()) return;
    std::string known;
    for (const auto& s : scopes) known += (known.empty() ? "" : ", ") + s;
    throw Error(ErrorKind::invalid_input, "unknown scope '" + std::string(scope) + "' (known: " + known + ")");
}

}  // namespace abci::auth
