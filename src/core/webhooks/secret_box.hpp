#pragma once
// Webhook signing secrets at rest: sealed with AES-256-GCM under a key derived
// (HKDF-SHA256) from the server's own secret, so that a copy of the database
// alone cannot sign a delivery (docs/decisions.md "Webhook secrets at rest").

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/eth/bytes.hpp"

namespace abci::webhooks {

class SecretBox {
public:
    /// The box of `server_secret` (the JWT signing key the server already
    /// holds); the key is derived for this use only and kept, not the input.
    explicit SecretBox(eth::ByteView server_secret);
    ~SecretBox();
    SecretBox(const SecretBox&) = delete;
    SecretBox& operator=(const SecretBox&) = delete;

    /// "v1." + base64(nonce || ciphertext || tag), bound to `owner` (the
    /// subscription's id: a sealed secret moved to another row does not open).
    [[nodiscard]] std::string seal(std::string_view secret, std::string_view owner) const;
    /// What seal() sealed for `owner`. Error(internal) when `sealed` is not
    /// one of ours, was altered, or was sealed under another server secret.
    [[nodiscard]] std::string open(std::string_view sealed, std::string_view owner) const;

private:
    std::array<std::uint8_t, 32> key_{};
};

}  // namespace abci::webhooks
