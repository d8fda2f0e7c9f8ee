#pragma once
// OpenID Connect relying party: authorization code flow with PKCE (S256), and
// ID-token verification against the provider's JWKS (RS256 and ES256) with
// iss, aud, exp, iat and nonce checks. Provider endpoints come from the
// configuration or from its discovery document.

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace abci::auth {

struct OidcProviderSettings {
    std::string name = "idp";         // routes /api/auth/<name>-login
    std::string issuer;               // exact "iss"; discovery at <issuer>/.well-known/openid-configuration
    std::string client_id;
    std::string client_secret;        // empty for a public client (PKCE only)
    std::string redirect_uri;         // this server's callback, e.g. https://host/api/auth/idp-callback
    std::vector<std::string> scopes{"openid", "email", "profile"};
    // Filled from discovery when empty:
    std::string authorization_endpoint;
    std::string token_endpoint;
    std::string jwks_uri;
    std::chrono::seconds http_timeout{10};
    std::chrono::seconds leeway{60};
};

struct IdTokenClaims {
    std::string issuer;
    std::string subject;
    std::string email;  // empty when the provider sent none
    bool email_verified = false;
};

struct AuthorizationRequest {
    std::string url;            // where to send the user's browser
    std::string state;          // random, to check on the callback
    std::string nonce;          // random, must come back in the ID token
    std::string code_verifier;  // PKCE secret, kept server-side
};

class OidcClient {
public:
    /// Does no I/O; discovery and JWKS are fetched on first need. Throws
    /// Error(invalid_input) when issuer, client_id or redirect_uri is missing,
    /// or a configured URL is not http(s).
    explicit OidcClient(OidcProviderSettings settings);
    ~OidcClient();

    [[nodiscard]] const OidcProviderSettings& settings() const noexcept { return settings_; }

    /// A fresh authorization request (state, nonce, PKCE S256 challenge in the URL).
    /// Error(unavailable) when discovery is needed and fails.
    [[nodiscard]] AuthorizationRequest begin();

    /// Trades `code` at the token endpoint (with the PKCE verifier and, when
    /// configured, client_secret_basic) and verifies the returned ID token
    /// against `expected_nonce`. Error(unauthenticated) when the provider
    /// refuses the code or the token fails verification; Error(unavailable)
    /// when the provider cannot be reached.
    [[nodiscard]] IdTokenClaims exchange_code(const std::string& code, const std::string& code_verifier,
                                              const std::string& expected_nonce);

    /// Verifies a compact JWS ID token: alg RS256 or ES256 only (the key's own
    /// kty/alg must match), signature by the JWKS key named by "kid" (the JWKS is
    /// refetched once when the kid is unknown), iss == settings.issuer, aud
    /// contains client_id (and azp == client_id when several audiences), exp
    /// and iat within leeway, and nonce == expected_nonce when one is given.
    /// Error(unauthenticated) naming the failed check; a claim missing or of
    /// another type is a util::MemberError (unauthenticated) naming it.
    [[nodiscard]] IdTokenClaims verify_id_token(std::string_view id_token,
                                                const std::optional<std::string>& expected_nonce);

    /// The provider's discovery document and JWKS, as it serves them, taken
    /// as if just fetched (what tests/fuzz/oidc.cpp feeds in place of the
    /// network). Error(unavailable) naming what is wrong, as when fetched.
    void use_discovery(std::string_view document);
    void use_jwks(std::string_view document);

private:
    struct Endpoints;
    struct Cache;
    // The endpoints, from the settings or (first time, under mutex_) discovery.
    [[nodiscard]] Endpoints endpoints();
    // The configured endpoints, the missing ones from discovery `document` (named `what` in errors).
    [[nodiscard]] Endpoints discovered(std::string_view document, const std::string& what) const;

    const OidcProviderSettings settings_;  // never changes, so settings() needs no lock
    std::mutex mutex_;                     // guards cache_
    std::unique_ptr<Cache> cache_;         // discovered endpoints and the JWKS
};

}  // namespace abci::auth
