// Login through an identity provider (OpenID Connect, code + PKCE) against a
// real `abcictl serve` and a real `oidc-provider` on loopback: the code flow
// through idp-login → provider → idp-callback, the redirect + idp-exchange
// variant, the {id_token} variant, and what an attacker may try on each.

#include <chrono>

#include "serve/expect.hpp"
#include "support/oidc_provider.hpp"

namespace abci::test {
namespace {

const std::string kClientId = "abci";
const std::string kClientSecret = "abci-oidc-client-secret-5e1";

// The path and query of `url` (what our server is asked for).
std::string target_of(const std::string& url) {
    const auto scheme = url.find("://");
    const auto slash = url.find('/', scheme == std::string::npos ? 0 : scheme + 3);
    return slash == std::string::npos ? "/" : url.substr(slash);
}

// A provider whose client "abci" redirects to the server that will listen on `server_port`.
OidcProvider::Options provider_for(std::uint16_t server_port) {
    OidcProvider::Options options;
    options.clients = {{.id = kClientId,
                        .secret = kClientSecret,
                        .id_token_alg = "RS256",
                        .redirect_uris = {"http://127.0.0.1:" + std::to_string(server_port) + "/api/auth/idp-callback"}}};
    return options;
}

std::string idp_config(const OidcProvider& provider) {
    return "[idp]\nname = \"acme\"\nissuer = \"" + provider.issuer() + "\"\nclientId = \"" + kClientId +
           "\"\nclientSecret = \"" + kClientSecret +
           "\"\nredirectUri = \"http://127.0.0.1:{port}/api/auth/idp-callback\"\n";
}

}  // namespace

TEST_CASE("IdP login: code + PKCE through a real oidc-provider, redirect and exchange, id_token", "[serve][oidc]") {
    const auto port = os::free_loopback_port();
    const OidcProvider provider(provider_for(port));
    Server server({.config = idp_config(provider), .port = port});
    const auto http = server.http();
    const auto& alice = provider.options().user;
    server.add_user(alice.email, "developer", "alice has a password too 8");

    // Starts a login; returns the provider's authorization URL.
    const auto begin = [&](const nlohmann::json& body, const std::string& path = "/api/auth/idp-login") {
        const auto r = http.post(path, body);
        INFO(r.body);
        REQUIRE(r.status == 200);
        CHECK(r.json["success"] == true);
        return r.json["authorizationUrl"].get<std::string>();
    };
    std::vector<std::string> secrets;

    {  // the code flow ends in the login response
        const auto url = begin(nlohmann::json::object());
        CHECK(url.rfind(provider.issuer(), 0) == 0);
        CHECK(query_param(url, "client_id") == kClientId);
        CHECK(query_param(url, "code_challenge_method") == "S256");
        CHECK(query_param(url, "code_challenge").has_value());
        CHECK(query_param(url, "state").has_value());
        CHECK(query_param(url, "nonce").has_value());
        CHECK(query_param(url, "response_type") == "code");
        const auto callback = provider.authorize(url);
        INFO(callback);
        REQUIRE(query_param(callback, "code").has_value());
        const auto login = http.get(target_of(callback));
        const auto session = require_login_response(login, alice.email, "developer");
        secrets.insert(secrets.end(), {session.token, session.refresh_token, *query_param(callback, "code")});
        CHECK(http.get("/api/auth/me", session.token).status == 200);

        // The same callback again: its state is spent.
        require_unauthorized(http.get(target_of(callback)), "INVALID_CREDENTIALS");
    }

    {  // the provider's name routes to it too; other names do not
        const auto callback = provider.authorize(begin(nlohmann::json::object(), "/api/auth/acme-login"));
        require_login_response(http.get(target_of(callback)), alice.email, "developer");
        require_error(http.post("/api/auth/nobody-login", nlohmann::json::object()), 404, "not_found");
    }

    {  // with a redirect: a one-time code reaches it, traded once at idp-exchange
        const std::string target = "http://127.0.0.1:45999/cli-callback";
        const auto callback = provider.authorize(begin({{"redirect", target}}));
        const auto redirected = http.get(target_of(callback));
        INFO(redirected.status << " " << redirected.body);
        REQUIRE(redirected.status == 302);
        const auto location = redirected.header("Location");
        CHECK(location.rfind(target + "?code=", 0) == 0);
        CHECK(location.find("token") == std::string::npos);  // never the tokens themselves in a URL
        const auto code = query_param(location, "code");
        REQUIRE(code.has_value());
        const auto exchanged = http.post("/api/auth/idp-exchange", {{"code", *code}});
        const auto session = require_login_response(exchanged, alice.email, "developer");
        secrets.insert(secrets.end(), {session.token, session.refresh_token, *code});
        require_unauthorized(http.post("/api/auth/idp-exchange", {{"code", *code}}), "INVALID_TOKEN");
        require_unauthorized(http.post("/api/auth/idp-exchange", {{"code", "made-up-code"}}), "INVALID_TOKEN");
        require_invalid_request(http.post("/api/auth/idp-login", {{"redirect", "https://evil.example.net/cb"}}));
    }

    {  // bad state, swapped state, missing parameters, the provider's refusal
        const auto first = provider.authorize(begin(nlohmann::json::object()));
        const auto second = provider.authorize(begin(nlohmann::json::object()));
        const auto code = *query_param(first, "code");
        require_unauthorized(http.get("/api/auth/idp-callback?code=" + url_encode(code) + "&state=forged-state-value"),
                             "INVALID_CREDENTIALS");
        // The second login's state with the first login's code: PKCE binds the code to its own verifier.
        require_unauthorized(http.get("/api/auth/idp-callback?code=" + url_encode(code) +
                                      "&state=" + url_encode(*query_param(second, "state"))),
                             "INVALID_CREDENTIALS");
        require_invalid_request(http.get("/api/auth/idp-callback?state=" + url_encode(*query_param(first, "state"))));
        require_invalid_request(http.get("/api/auth/idp-callback"));
        require_unauthorized(http.get("/api/auth/idp-callback?error=access_denied&state=x"), "INVALID_CREDENTIALS");
    }

    {  // an ID token a native client obtained: the provider's own is accepted, forgeries are not
        const auto id_token = provider.issue_id_token(kClientId, "native-nonce-1");
        const auto session = require_login_response(http.post("/api/auth/idp-login", {{"id_token", id_token}}),
                                                    alice.email, "developer");
        secrets.insert(secrets.end(), {session.token, session.refresh_token, id_token});

        const auto now = unix_now();
        const nlohmann::json claims{{"iss", provider.issuer()}, {"sub", alice.sub},    {"aud", kClientId},
                                    {"email", alice.email},     {"email_verified", true}, {"iat", now},
                                    {"exp", now + 600}};
        const nlohmann::json rs_header{{"alg", "RS256"}, {"typ", "JWT"}, {"kid", provider.kid(OidcProvider::SigningKey::rsa)}};
        const auto id_login = [&](const std::string& token) {
            return http.post("/api/auth/idp-login", {{"id_token", token}});
        };
        // Our own forgery with the provider's real key passes: the refusals below are for their one flaw.
        require_login_response(id_login(provider.sign(rs_header, claims, OidcProvider::SigningKey::rsa)), alice.email,
                               "developer");

        require_unauthorized(id_login(provider.sign(rs_header, claims, OidcProvider::SigningKey::stranger_rsa)),
                             "INVALID_CREDENTIALS");
        require_unauthorized(id_login(provider.sign({{"alg", "ES256"}, {"kid", "stranger-ec"}}, claims,
                                                    OidcProvider::SigningKey::stranger_ec)),
                             "INVALID_CREDENTIALS");
        require_unauthorized(id_login(provider.sign({{"alg", "HS256"}, {"kid", provider.kid(OidcProvider::SigningKey::rsa)}},
                                                    claims, OidcProvider::SigningKey::hmac_rsa_public)),
                             "INVALID_CREDENTIALS");
        require_unauthorized(id_login(provider.sign({{"alg", "none"}}, claims, OidcProvider::SigningKey::none)),
                             "INVALID_CREDENTIALS");
        for (const auto& [claim, value] : std::vector<std::pair<std::string, nlohmann::json>>{
                 {"aud", "another-client"},
                 {"iss", "http://127.0.0.1:9/other-issuer"},
                 {"exp", now - 3600},
                 {"email_verified", false},
             }) {
            INFO(claim << " = " << value.dump());
            auto forged = claims;
            forged[claim] = value;
            // A new subject, so the verified-email link of the earlier logins cannot carry it.
            forged["sub"] = "fresh-subject-" + claim;
            require_unauthorized(id_login(provider.sign(rs_header, forged, OidcProvider::SigningKey::rsa)),
                                 "INVALID_CREDENTIALS");
        }
        // A genuine identity whose e-mail no user has, without autoRegister.
        auto stranger = claims;
        stranger["sub"] = "someone-else";
        stranger["email"] = "unknown.person@example.org";
        require_unauthorized(id_login(provider.sign(rs_header, stranger, OidcProvider::SigningKey::rsa)),
                             "INVALID_CREDENTIALS");
        require_invalid_request(http.post("/api/auth/idp-login", {{"id_token", 42}}));
    }

    require_log_free_of(server, secrets);
}

}  // namespace abci::test
