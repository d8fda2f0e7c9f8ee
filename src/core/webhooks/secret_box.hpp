#pragma once
// Webhook signing secrets at rest: sealed with AES-256-GCM under a key derived
// (HKDF-SHA256) from the server's own secret, so that a copy of the database
// alone cannot sign a delivery (docs/decisions.md "Webhook secrets at rest").

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/eth/bytes.hpp"

namespace abci::webhooks {

class SecretBox {
public:
    /// Where the server's secret is kept. In the database (PostgreSQL without
    /// auth.jwtSecretFile), a dump would hold the key beside what it seals, so
    /// a dump alone could sign: such a box opens what was sealed before and
    /// seals nothing new (docs/decisions.md).
    enum class KeyPlace { apart_from_database, in_database };

    /// The box of `server_secret` (the JWT signing key the server already
    /// holds); the key is derived for this use only and kept, not the input.
    SecretBox(eth::ByteView server_secret, KeyPlace place);
    ~SecretBox();
    SecretBox(const SecretBox&) = delete;
    SecretBox& operator=(const SecretBox&) = delete;

    /// Why seal() seals nothing (the key kept in the database), or nothing.
    [[nodiscard]] std::optional<std::string> why_not_sealing() const;
    /// "v1." + base64(nonce || ciphertext || tag), bound to `owner` (the
    /// subscription's id: a sealed secret moved to another row does not open).
    /// Error(unprocessable), saying why_not_sealing() and how to fix it.
    [[nodiscard]] std::string seal(std::string_view secret, std::string_view owner) const;
    /// What seal() sealed for `owner`. Error(internal) when `sealed` is not
    /// one of ours, was altered, or was sealed under another server secret.
    [[nodiscard]] std::string open(std::string_view sealed, std::string_view owner) const;

private:
    std::array<std::uint8_t, 32> key_{};
    KeyPlace place_;
};

}  // namespace abci::webhooks
