#pragma once
// The login flows and request authentication of the server (spec 4.9, 5;
// DESIGN.md §4): password, wallet (SIWE), identity provider (OIDC), refresh
// with rotation and reuse detection, logout, and bearer authentication by
// access token or API key. Transport-free: the serve layer maps its errors.
//
// Errors: Error(unauthenticated) for every refused credential (the message
// says what a user may know, never which part of a password login was
// wrong), Error(rate_limited) when the brute-force limit holds, Error(invalid_input)
// for malformed requests, Error(unavailable) when a provider cannot be reached.

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/auth/auth_metrics.hpp"
#include "core/auth/jwt.hpp"
#include "core/auth/oidc.hpp"
#include "core/auth/roles.hpp"
#include "core/limits/counters.hpp"
#include "core/store/store.hpp"

namespace abci::auth {

/// Who is calling: a user with an access token, or an API key.
struct Principal {
    enum class Kind { user, api_key };
    Kind kind = Kind::user;
    std::string id;  // user id or API-key id
    Role role = Role::farmer;  // users only
    std::string email;         // users only
    std::vector<std::string> scopes;  // API keys only
    std::string jti;                  // users: the access token's id
    std::string session_id;           // users: the refresh family the token belongs to
    TimePoint token_expires_at;       // users

    /// The audit and rate-limit identity: the user id, or "apikey:<id>".
    [[nodiscard]] std::string actor() const;
    [[nodiscard]] bool is_admin() const noexcept { return kind == Kind::user && role == Role::admin; }
    [[nodiscard]] bool has_scope(std::string_view scope) const;
};

struct LoginResult {
    std::string access_token;
    std::int64_t expires_in = 0;  // seconds
    std::string refresh_token;
    store::User user;
};

struct WalletLoginSettings {
    std::string domain;      // SIWE domain the messages must name
    std::string uri_origin;  // the messages' URI must start with it
    std::vector<std::uint64_t> chain_ids;
    bool auto_register = false;  // unknown wallets become new farmer users
    std::chrono::seconds nonce_lifetime{300};
    // Every nonce is a row until it is used or expires: an unauthenticated
    // client must not be able to make rows without bound.
    limits::RateLimit nonces_per_address{30, std::chrono::seconds(60)};
    std::size_t max_pending_nonces = 10000;  // unexpired, unused, from all clients
};

struct AuthSettings {
    JwtSettings jwt;
    std::chrono::seconds refresh_lifetime{std::chrono::hours(24 * 30)};
    // Password logins (issue 13): an account is locked for one client address
    // at a time, so an attacker cannot lock its owner out from elsewhere; an
    // address has a budget over all accounts; and failures on one account from
    // everywhere slow its logins down (limits::Backoff) without locking them.
    limits::RateLimit login_per_account_address{10, std::chrono::seconds(300)};
    limits::RateLimit login_per_address{50, std::chrono::seconds(300)};
    limits::BackoffPolicy login_account_backoff{50, std::chrono::seconds(300)};
    WalletLoginSettings wallet;
    std::optional<OidcProviderSettings> idp;
    bool idp_auto_register = false;  // unknown identities with a verified e-mail become farmers
    /// Redirect targets allowed besides loopback (http://127.0.0.1:*, http://localhost:*,
    /// http://[::1]:*, RFC 8252): exact origins such as "https://app.example.org".
    std::vector<std::string> redirect_origins;
};

/// Where an IdP login goes next: the login itself, or a redirect carrying a one-time code.
struct IdpCallbackResult {
    std::optional<LoginResult> login;    // no redirect was asked for
    std::optional<std::string> redirect_to;  // redirect URL with ?code=<one-time code>
};

class AuthService {
public:
    /// `store` must outlive the service. `jwt_secret` ≥ 32 bytes. Refused
    /// credentials and lockouts are counted in `registry` (auth_metrics.hpp).
    /// The login and nonce limits count where `counters` says (this process by
    /// default).
    AuthService(store::Store& store, eth::ByteView jwt_secret, AuthSettings settings, metrics::Registry& registry,
                const limits::Counters& counters = limits::local_counters());
    ~AuthService();

    [[nodiscard]] const AuthSettings& settings() const noexcept { return settings_; }

    /// E-mail and password. An unknown e-mail or a user without a password
    /// costs the same time as a wrong password. Counted against the (account,
    /// client address) pair and the address, and held back while the
    /// account's back-off lasts, before any hashing (Error(rate_limited)).
    [[nodiscard]] LoginResult login_password(std::string_view email, std::string_view password,
                                             std::string_view client_address);

    struct WalletNonce {
        std::string nonce;
        TimePoint expires_at;
    };
    /// A fresh single-use nonce for a SIWE message. RateLimitExceeded when
    /// `client_address` asked for too many; Error(unavailable) when too many
    /// are pending in all.
    [[nodiscard]] WalletNonce issue_wallet_nonce(std::string_view client_address);
    /// Verifies the SIWE message and signature, consumes its nonce, and logs in
    /// the user the wallet is linked to (or a new farmer with auto-registration).
    [[nodiscard]] LoginResult login_wallet(std::string_view address, std::string_view signature,
                                           std::string_view message);

    /// True when an identity provider is configured under `name`.
    [[nodiscard]] bool has_idp(std::string_view name) const noexcept;
    /// Starts an authorization-code login; returns the provider's URL.
    /// `redirect` must be an allowed target (Error(invalid_input) otherwise).
    [[nodiscard]] std::string begin_idp_login(const std::optional<std::string>& redirect);
    /// Completes it: checks the state, trades the code, logs the identity in.
    [[nodiscard]] IdpCallbackResult finish_idp_login(const std::string& code, const std::string& state);
    /// Trades the one-time code of a redirect for the login.
    [[nodiscard]] LoginResult exchange_idp_code(const std::string& one_time_code);
    /// Logs in with an ID token a native client obtained from the provider.
    [[nodiscard]] LoginResult login_id_token(std::string_view id_token);

    /// Rotates a refresh token: the presented one is spent, a new one comes
    /// back with a new access token. A spent token presented again revokes its
    /// whole family (RFC 9700 §4.14).
    [[nodiscard]] LoginResult refresh(std::string_view refresh_token);

    /// Revokes the caller's access token (at once) and its refresh family.
    void logout(const Principal& principal);

    /// Authenticates an "Authorization: Bearer" credential (an access token or
    /// an API key). Error(unauthenticated) for a bad, expired, revoked token,
    /// a revoked key, or a user that no longer exists.
    [[nodiscard]] Principal authenticate(std::string_view bearer);

    /// Error(invalid_input) unless `redirect` is loopback or an allowed origin.
    void check_redirect(std::string_view redirect) const;

private:
    [[nodiscard]] LoginResult start_session(const store::User& user);
    [[nodiscard]] LoginResult issue_tokens(const store::User& user, const std::string& family_id);
    [[nodiscard]] store::User user_for_identity(const IdTokenClaims& claims);

    store::Store& store_;
    JwtCodec jwt_;
    AuthSettings settings_;
    AuthMetrics metrics_;
    std::unique_ptr<limits::Limiter> per_account_address_;
    std::unique_ptr<limits::Limiter> per_address_;
    std::unique_ptr<limits::FailureBackoff> account_backoff_;
    std::unique_ptr<limits::Limiter> nonces_per_address_;
    std::unique_ptr<OidcClient> idp_;
};

}  // namespace abci::auth
