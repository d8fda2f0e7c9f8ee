#pragma once
// Small primitives the auth code needs, on OpenSSL: randomness, SHA-256,
// HMAC-SHA256, base64 and base64url (RFC 4648), constant-time comparison.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/eth/bytes.hpp"

namespace abci::crypto {

/// `n` bytes from the OS CSPRNG (RAND_bytes). Error(internal) if it fails.
[[nodiscard]] eth::Bytes random_bytes(std::size_t n);
/// `n` random bytes as base64url without padding (for tokens, nonces, states).
[[nodiscard]] std::string random_token(std::size_t n);
/// A random UUID v4 in its canonical lower-case form.
[[nodiscard]] std::string random_uuid();

[[nodiscard]] std::array<std::uint8_t, 32> sha256(eth::ByteView data);
/// SHA-256 of `data` as 64 lower-case hex digits (no 0x).
[[nodiscard]] std::string sha256_hex(std::string_view data);
[[nodiscard]] std::array<std::uint8_t, 32> hmac_sha256(eth::ByteView key, eth::ByteView data);

[[nodiscard]] std::string base64url_encode(eth::ByteView data);  // no padding
/// Strict: only the url-safe alphabet, no padding, no whitespace, canonical
/// trailing bits. Error(invalid_input) otherwise.
[[nodiscard]] eth::Bytes base64url_decode(std::string_view text);
[[nodiscard]] std::string base64_encode(eth::ByteView data);  // standard alphabet, padded
/// Strict standard base64 with padding. Error(invalid_input) otherwise.
[[nodiscard]] eth::Bytes base64_decode(std::string_view text);

/// Compares in time that depends only on the lengths (CRYPTO_memcmp).
[[nodiscard]] bool constant_time_equal(eth::ByteView a, eth::ByteView b) noexcept;

}  // namespace abci::crypto
