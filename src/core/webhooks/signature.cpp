#include "core/webhooks/signature.hpp"

#include "core/crypto/encoding.hpp"
#include "core/error.hpp"

namespace abci::webhooks {
namespace {

constexpr std::string_view kSecretPrefix = "whsec_";
constexpr std::size_t kSecretBytes = 32;

}  // namespace

std::string new_secret() {
    return std::string(kSecretPrefix) + crypto::base64_encode(crypto::random_bytes(kSecretBytes));
}

eth::Bytes secret_key(std::string_view secret) {
    if (!secret.starts_with(kSecretPrefix))
        throw Error(ErrorKind::invalid_input, "a webhook secret starts with \"whsec_\"");
    eth::Bytes key = crypto::base64_decode(secret.substr(kSecretPrefix.size()));
    if (key.empty()) throw Error(ErrorKind::invalid_input, "a webhook secret holds at least one byte");
    return key;
}

std::string sign(std::string_view secret, std::string_view id, std::int64_t timestamp, std::string_view body) {
    std::string content;
    content.reserve(id.size() + body.size() + 24);
    content.append(id).append(".").append(std::to_string(timestamp)).append(".").append(body);
    return "v1," + crypto::base64_encode(crypto::hmac_sha256(secret_key(secret), eth::as_bytes(content)));
}

SignedHeaders sign_delivery(const std::vector<std::string>& secrets, std::string_view id, std::int64_t timestamp,
                            std::string_view body) {
    if (secrets.empty()) throw Error(ErrorKind::internal, "a webhook delivery needs a secret to sign with");
    SignedHeaders headers{std::string(id), std::to_string(timestamp), {}};
    for (const auto& secret : secrets) {
        if (!headers.signature.empty()) headers.signature += ' ';
        headers.signature += sign(secret, id, timestamp, body);
    }
    return headers;
}

}  // namespace abci::webhooks
