#pragma once
// A real OpenID provider (oidc-provider 9 under node, run from
// tests/support/js/oidc_provider.mjs) on a free loopback port, for every test
// of login through an IdP. Logging in needs no browser: the provider's
// interaction step logs the configured user in and grants the requested
// scopes at once, so authorize() just follows redirects with a cookie jar.
// RAII: the node process is stopped when the fixture goes away (its log's
// tail is printed first when a test is failing by exception).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/auth/oidc.hpp"
#include "core/os/process.hpp"
#include "support/cli_runner.hpp"

namespace abci::test {

class OidcProvider {
public:
    struct Client {
        std::string id;
        std::string secret;                  // empty: a public client (auth method "none", PKCE only)
        std::string id_token_alg = "RS256";  // the client's id_token_signed_response_alg: "RS256" or "ES256"
        std::vector<std::string> redirect_uris{"http://127.0.0.1:9/callback"};
    };
    struct User {
        std::string sub = "user-7f3a";
        std::string email = "alice@example.org";  // sent with email_verified = true
    };
    struct Options {
        /// "rs-client" (secret, RS256), "es-client" (secret, ES256) and
        /// "public-client" (no secret, ES256).
        std::vector<Client> clients = default_clients();
        User user{};
    };
    [[nodiscard]] static std::vector<Client> default_clients();

    /// Starts the provider and waits until it accepts connections; retries on
    /// another port if the chosen one is taken meanwhile. Throws
    /// Error(unavailable) with the log's tail when it does not come up in 20 s.
    explicit OidcProvider(Options options);
    OidcProvider() : OidcProvider(Options{}) {}
    ~OidcProvider();
    OidcProvider(const OidcProvider&) = delete;
    OidcProvider& operator=(const OidcProvider&) = delete;

    /// "http://127.0.0.1:<port>", exactly the provider's "iss".
    [[nodiscard]] std::string issuer() const;
    [[nodiscard]] std::uint16_t port() const noexcept { return port_; }
    [[nodiscard]] const Options& options() const noexcept { return options_; }
    /// The configured client `id`; fails the test (Catch2) when there is none.
    [[nodiscard]] const Client& client(const std::string& id) const;
    /// Relying-party settings for the configured client `id`: issuer, id,
    /// secret, its first redirect URI, endpoints left to discovery, 5 s timeout.
    [[nodiscard]] auth::OidcProviderSettings settings_for(const std::string& id) const;

    /// Does what the user's browser does with an authorization URL: GETs it
    /// and follows the provider's redirects, keeping its cookies, until a
    /// Location leaves the provider's origin, and returns that URL (the
    /// redirect URI with ?code=&state=&iss=, or with ?error= when the
    /// provider refused the request). Throws Error(internal) with the answer
    /// when the provider answers anything but a redirect (e.g. its error page
    /// for an unknown client or redirect URI).
    [[nodiscard]] std::string authorize(const std::string& authorization_url) const;

    /// An ID token the provider issued to client `id` for `nonce`, obtained by
    /// running the code flow with PKCE as that client (independently of the
    /// relying party under test). Fails the test (Catch2) on any error.
    [[nodiscard]] std::string issue_id_token(const std::string& id, const std::string& nonce) const;

    enum class SigningKey {
        rsa,              // the provider's own RS256 key (in its JWKS)
        ec,               // the provider's own ES256 key (in its JWKS)
        encryption_rsa,   // an RSA key in the JWKS with "use": "enc" (kid "encryption-rsa")
        stranger_rsa,     // an RS256 key not in the JWKS (kid "stranger-rsa")
        stranger_ec,      // an ES256 key not in the JWKS (kid "stranger-ec")
        hmac_rsa_public,  // HMAC-SHA256 keyed with the PEM of the provider's RSA public key
        none,             // an empty signature
    };
    /// A compact JWS of exactly `header` and `payload` (JSON as given, no
    /// claims added; a JSON string is taken as the segment's JSON text, e.g.
    /// with a member named twice) signed with `key`, for forged tokens. Fails
    /// the test on error.
    [[nodiscard]] std::string sign(const nlohmann::json& header, const nlohmann::json& payload,
                                   SigningKey key) const;
    /// The kid of the provider's own key `key` (rsa or ec) in its JWKS.
    [[nodiscard]] std::string kid(SigningKey key) const;
    /// How many times the provider's JWKS has been fetched so far.
    [[nodiscard]] int jwks_requests() const;

    /// Stops the provider (the port then refuses connections). Idempotent.
    void stop() noexcept;
    /// The last `lines` lines of the provider's log, for failure messages.
    [[nodiscard]] std::string log_tail(std::size_t lines = 40) const;

private:
    // One attempt to launch on port_; false when the process exited (port taken).
    [[nodiscard]] bool launch();
    // GET of a test-support path that answers JSON; fails the test otherwise.
    [[nodiscard]] nlohmann::json get_json(const std::string& path) const;

    Options options_;
    TempDir dir_;  // the provider's log
    std::string log_path_;
    std::uint16_t port_ = 0;
    std::optional<os::Process> process_;
};

/// The value of query parameter `name` in `url` (percent-decoded), or nullopt.
[[nodiscard]] std::optional<std::string> query_param(const std::string& url, const std::string& name);

}  // namespace abci::test
