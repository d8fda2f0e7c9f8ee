#pragma once
// JOSE, the part our access tokens (auth/jwt: HS256) and OpenID providers' ID
// tokens (auth/oidc: RS256, ES256, keys from a JWKS) share: the compact JWS
// (RFC 7515), JWKs (RFC 7517) and the three algorithms (RFC 7518). Segments
// are read with the strict JSON reader, so a member named twice, which
// parsers resolve differently, refuses the token. What a token must contain,
// and which algorithms a caller allows (RFC 8725 3.1), is the caller's.

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>
#include <openssl/types.h>

#include "core/error.hpp"
#include "core/eth/bytes.hpp"

namespace abci::auth::jose {

enum class Alg { hs256, rs256, es256 };

/// "HS256", "RS256" or "ES256".
[[nodiscard]] const char* name(Alg alg) noexcept;

/// The three base64url parts of a compact JWS, not yet verified.
struct CompactJws {
    std::string_view header;
    std::string_view payload;
    std::string_view signature;
    std::string_view signing_input;  // header.payload, what the signature covers
};

/// Splits `token`; nullopt unless it is exactly three dot-separated parts.
[[nodiscard]] std::optional<CompactJws> split(std::string_view token) noexcept;

/// The JSON object the base64url `segment` holds, read strictly (at most
/// `max_depth` levels, no member named twice). Error(unauthenticated) saying
/// what is wrong with the `what` ("header", "payload") otherwise.
[[nodiscard]] nlohmann::json decode_object(std::string_view segment, std::string_view what, std::size_t max_depth);

/// The base64url HS256 signature of `signing_input` under `secret`.
[[nodiscard]] std::string hs256_signature(eth::ByteView secret, std::string_view signing_input);

/// Whether base64url `signature` is the HS256 signature of `signing_input`
/// under `secret`, compared in constant time.
[[nodiscard]] bool hs256_valid(eth::ByteView secret, std::string_view signing_input, std::string_view signature);

/// A string member of a JSON object; nullopt when absent; `on_bad` (which
/// must throw) is called with why when it is not a string.
[[nodiscard]] std::optional<std::string> optional_string(const nlohmann::json& object, const char* key,
                                                         const std::function<void(const std::string&)>& on_bad);

/// One JWK, with why it cannot verify anything when it cannot (kept, so that
/// a token naming it is refused for the right reason).
struct Jwk {
    std::optional<std::string> kid;
    std::string kty;
    std::string crv;
    std::optional<std::string> use;
    std::optional<std::string> alg;
    std::shared_ptr<EVP_PKEY> key;  // RSA (at least 2048 bits) or EC P-256; null when unusable
    std::string unusable;           // why, when key is null

    /// Why this key must not verify an `a` signature (RS256 or ES256), or
    /// nullopt when it may.
    [[nodiscard]] std::optional<std::string> objection(Alg a) const;
};

/// The JWK `entry` (an object of a JWKS's "keys"); never throws for a bad
/// key, which is returned unusable.
[[nodiscard]] Jwk parse_jwk(const nlohmann::json& entry);

/// Whether base64url `signature` is an `alg` (RS256 or ES256) signature of
/// `signing_input` by `key`. Error(unauthenticated) when the signature is not
/// base64url or not the algorithm's shape.
[[nodiscard]] bool signature_valid(EVP_PKEY* key, Alg alg, std::string_view signing_input,
                                   std::string_view signature);

}  // namespace abci::auth::jose
