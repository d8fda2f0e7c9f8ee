#pragma once
// Access tokens: JWT (RFC 7519) with HS256, following RFC 8725's best current
// practice: the algorithm is pinned (we issue exactly
// {"alg":"HS256","typ":"at+jwt"} and accept only alg HS256 with typ at+jwt;
// "none" and every other algorithm are refused before any signature work),
// the signature is checked in constant time before the payload is trusted,
// and iss, aud, exp, nbf, iat, jti, sub, role and sid are all required and
// checked. A header with any member besides alg and typ (kid, jku, jwk, x5u,
// x5c, cty, crit…: RFC 8725 3.1) and duplicate members anywhere are refused.
// ID tokens of an identity provider, which do carry kid, are oidc.hpp's.

#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/eth/bytes.hpp"
#include "core/store/shared_secrets.hpp"

namespace abci::auth {

using TimePoint = std::chrono::system_clock::time_point;

struct AccessClaims {
    std::string subject;     // "sub": the user id
    std::string role;        // "role": farmer | verifier | admin | developer
    std::string email;       // "email"
    std::string jti;         // "jti": unique token id (revocation key)
    std::string session_id;  // "sid": the login session (refresh-token family) the token belongs to
    TimePoint issued_at;     // "iat"
    TimePoint not_before;    // "nbf"
    TimePoint expires_at;    // "exp"
};

struct JwtSettings {
    std::string issuer = "abcictl";
    std::string audience = "abci-api";
    std::chrono::seconds lifetime{3600};
    std::chrono::seconds leeway{30};  // tolerated clock skew for exp and nbf
};

class JwtCodec {
public:
    /// `secret` must be at least 32 bytes, settings.lifetime positive and
    /// settings.leeway not negative (Error(invalid_input) otherwise); the
    /// secret is copied and wiped on destruction.
    JwtCodec(eth::ByteView secret, JwtSettings settings);
    ~JwtCodec();
    JwtCodec(const JwtCodec&) = delete;
    JwtCodec& operator=(const JwtCodec&) = delete;

    struct Issued {
        std::string token;
        AccessClaims claims;
    };
    /// A token for the user in login session `session_id`, valid from `now`
    /// (whole seconds) for settings().lifetime, with a fresh random jti.
    [[nodiscard]] Issued issue(const std::string& user_id, const std::string& role, const std::string& email,
                               const std::string& session_id, TimePoint now) const;

    /// The claims of a valid token. Error(unauthenticated) with a short reason
    /// (never echoing the token) for: not three base64url parts, a header other
    /// than the pinned one, a bad signature, a missing or mistyped claim, a
    /// wrong iss or aud, exp in the past or nbf in the future (beyond leeway).
    /// Revocation (jti) is the caller's check. Thread-safe. A token that
    /// passed the checks that do not depend on the time is remembered (up
    /// to 4096 of them), so a client sending the same token on every request
    /// costs one lookup and the time checks instead of parsing and an HMAC.
    [[nodiscard]] AccessClaims verify(std::string_view token, TimePoint now) const;

    [[nodiscard]] const JwtSettings& settings() const noexcept { return settings_; }

private:
    /// Everything verify() checks but the time.
    [[nodiscard]] AccessClaims verify_untimed(std::string_view token) const;

    eth::Bytes secret_;
    JwtSettings settings_;
    mutable std::mutex verified_mutex_;  // guards verified_ only
    mutable std::unordered_map<std::string, AccessClaims> verified_;  // token -> its claims
};

/// The signing secret: from the file at `path` when it exists (its raw bytes;
/// Error(invalid_input) when shorter than 32 bytes or over 4 KiB; a warning-worthy mode is
/// the caller's concern), else 32 fresh random bytes written there with mode
/// 0600 (atomically, parent directory created 0700; of two processes racing
/// to create it, both get the one written first). Error(unavailable) on I/O failure.
[[nodiscard]] eth::Bytes load_or_create_secret(const std::string& path);

/// A row of the database's shared secrets (store::SharedSecrets).
struct SharedSecretRow {
    std::string name;
    std::string value;
};

/// The secret of the file at `path` (load_or_create_secret's) as
/// load_or_create_shared_secret keeps it in the database: what `admin store
/// copy` carries there, so that the tokens a server on the file signed stay
/// valid on the database's servers. Nothing when there is no file; throws
/// what load_or_create_secret throws for a bad one.
[[nodiscard]] std::optional<SharedSecretRow> shared_form_of_secret_file(const std::string& path);

/// The signing secret kept in the database, shared by the servers on it (a
/// token one replica issued is checked by another): created, 32 fresh random
/// bytes, by the first that asks. Throws what the store throws.
[[nodiscard]] eth::Bytes load_or_create_shared_secret(store::SharedSecrets& secrets);

}  // namespace abci::auth
