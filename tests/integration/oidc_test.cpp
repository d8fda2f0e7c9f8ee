// The OpenID Connect relying party against a real oidc-provider on loopback:
// the code flow with PKCE for RS256 and ES256 clients, refusals by the
// provider (wrong verifier, reused code), forged ID tokens signed through the
// fixture's test endpoint, discovery of another issuer, and a provider that is down.

#include <catch2/catch.hpp>
#include <chrono>

#include <nlohmann/json.hpp>

#include "core/auth/oidc.hpp"
#include "core/crypto/encoding.hpp"
#include "core/util/json_members.hpp"
#include "support/error_kind.hpp"
#include "support/oidc_provider.hpp"

using namespace abci;
using nlohmann::json;
using Key = test::OidcProvider::SigningKey;

namespace oidc_test {

// One provider per test process: node takes seconds to start, and no test
// changes its state in a way another could see.
test::OidcProvider& provider() {
    static test::OidcProvider instance;
    return instance;
}

std::int64_t now() {
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// Claims the provider would issue to `client` for `nonce`.
json claims(const std::string& client, const std::string& nonce) {
    return {{"iss", provider().issuer()}, {"sub", provider().options().user.sub},
            {"aud", client},              {"email", provider().options().user.email},
            {"email_verified", true},     {"iat", now()},
            {"exp", now() + 300},         {"nonce", nonce}};
}

// `claims` with `changes` merged in (RFC 7386), or without `claim`.
json with(json claims, const json& changes) {
    claims.merge_patch(changes);
    return claims;
}
json without(json claims, const char* claim) {
    claims.erase(claim);
    return claims;
}

json header(const std::string& alg, const std::string& kid) { return {{"alg", alg}, {"kid", kid}, {"typ", "JWT"}}; }

json json_part(const std::string& token, std::size_t index) {
    std::size_t from = 0;
    for (std::size_t i = 0; i < index; ++i) from = token.find('.', from) + 1;
    const auto raw = crypto::base64url_decode(std::string_view(token).substr(from, token.find('.', from) - from));
    return json::parse(raw.begin(), raw.end());
}

// Settings for client "c" of `issuer`, everything else left to discovery.
auth::OidcProviderSettings minimal_settings(const std::string& issuer) {
    auth::OidcProviderSettings s;
    s.issuer = issuer;
    s.client_id = "c";
    s.redirect_uri = "http://127.0.0.1:9/callback";
    s.http_timeout = std::chrono::seconds(2);
    return s;
}

}  // namespace oidc_test

using oidc_test::provider;

TEST_CASE("oidc: code flow with PKCE for RS256, ES256 and public clients", "[oidc]") {
    for (const auto& client_config : provider().options().clients) {
        DYNAMIC_SECTION(client_config.id) {
            auth::OidcClient client(provider().settings_for(client_config.id));
            const auto request = client.begin();
            CHECK(request.state != request.nonce);
            CHECK(request.code_verifier.size() >= 43);  // RFC 7636: 43 to 128 characters
            CHECK(request.url.rfind(provider().issuer() + "/auth?", 0) == 0);
            CHECK(test::query_param(request.url, "client_id") == client_config.id);
            CHECK(test::query_param(request.url, "redirect_uri") == client_config.redirect_uris.front());
            CHECK(test::query_param(request.url, "scope") == "openid email profile");
            CHECK(test::query_param(request.url, "response_type") == "code");
            CHECK(test::query_param(request.url, "state") == request.state);
            CHECK(test::query_param(request.url, "nonce") == request.nonce);
            CHECK(test::query_param(request.url, "code_challenge_method") == "S256");
            CHECK(test::query_param(request.url, "code_challenge") ==
                  crypto::base64url_encode(crypto::sha256(eth::as_bytes(request.code_verifier))));

            const auto callback = provider().authorize(request.url);
            INFO("callback " << callback);
            REQUIRE(callback.rfind(client_config.redirect_uris.front() + "?", 0) == 0);
            CHECK(test::query_param(callback, "state") == request.state);
            const auto code = test::query_param(callback, "code");
            REQUIRE(code);

            const auto claims = client.exchange_code(*code, request.code_verifier, request.nonce);
            CHECK(claims.issuer == provider().issuer());
            CHECK(claims.subject == provider().options().user.sub);
            CHECK(claims.email == provider().options().user.email);
            CHECK(claims.email_verified);

            // The code is single-use: the provider refuses it the second time.
            CHECK(test::error_kind([&] { (void)client.exchange_code(*code, request.code_verifier, request.nonce); }) ==
                  ErrorKind::unauthenticated);
        }
    }
}

TEST_CASE("oidc: ID tokens the provider issued, with the algorithm each client registered", "[oidc]") {
    for (const auto& client_config : provider().options().clients) {
        DYNAMIC_SECTION(client_config.id) {
            auth::OidcClient client(provider().settings_for(client_config.id));
            const auto token = provider().issue_id_token(client_config.id, "nonce-1");
            CHECK(oidc_test::json_part(token, 0).at("alg") == client_config.id_token_alg);
            const auto claims = client.verify_id_token(token, std::string("nonce-1"));
            CHECK(claims.subject == provider().options().user.sub);
            CHECK(client.verify_id_token(token, std::nullopt).subject == claims.subject);
            CHECK(test::error_kind([&] { (void)client.verify_id_token(token, std::string("nonce-2")); }) ==
                  ErrorKind::unauthenticated);
            // Another client of the same provider must not accept it.
            auto other = provider().settings_for(client_config.id == "rs-client" ? "es-client" : "rs-client");
            auth::OidcClient other_client(other);
            CHECK(test::error_kind([&] { (void)other_client.verify_id_token(token, std::string("nonce-1")); }) ==
                  ErrorKind::unauthenticated);
        }
    }
}

TEST_CASE("oidc: the provider's refusals are unauthenticated", "[oidc]") {
    auth::OidcClient client(provider().settings_for("rs-client"));
    const auto request = client.begin();
    const auto code = test::query_param(provider().authorize(request.url), "code");
    REQUIRE(code);

    SECTION("wrong PKCE verifier") {
        CHECK(test::error_kind([&] { (void)client.exchange_code(*code, crypto::random_token(32), request.nonce); }) ==
              ErrorKind::unauthenticated);
    }
    SECTION("nonce of another login") {
        CHECK(test::error_kind([&] { (void)client.exchange_code(*code, request.code_verifier, "other-nonce"); }) ==
              ErrorKind::unauthenticated);
    }
    SECTION("a made-up code") {
        CHECK(test::error_kind([&] {
                  (void)client.exchange_code(crypto::random_token(32), request.code_verifier, request.nonce);
              }) == ErrorKind::unauthenticated);
    }
    SECTION("wrong client secret") {
        auto settings = provider().settings_for("rs-client");
        settings.client_secret = "not-the-secret";
        auth::OidcClient impostor(settings);
        CHECK(test::error_kind([&] { (void)impostor.exchange_code(*code, request.code_verifier, request.nonce); }) ==
              ErrorKind::unauthenticated);
    }
    SECTION("a state of another login does not come back") {
        // The caller compares states; the provider must hand back ours untouched.
        const auto other = client.begin();
        CHECK(test::query_param(provider().authorize(other.url), "state") == other.state);
        CHECK(other.state != request.state);
    }
}

TEST_CASE("oidc: forged ID tokens are refused", "[oidc]") {
    using oidc_test::claims;
    using oidc_test::header;
    auto& op = provider();
    auth::OidcClient client(op.settings_for("rs-client"));
    const auto rsa = op.kid(Key::rsa);
    const auto ec = op.kid(Key::ec);
    const std::string nonce = "n-0S6_WzA2Mj";
    const auto good = claims("rs-client", nonce);

    // The forging path itself yields tokens we accept when nothing is wrong.
    CHECK(client.verify_id_token(op.sign(header("RS256", rsa), good, Key::rsa), nonce).subject == op.options().user.sub);
    CHECK(client.verify_id_token(op.sign(header("ES256", ec), good, Key::ec), nonce).email == op.options().user.email);
    CHECK(client.verify_id_token(op.sign({{"alg", "RS256"}}, good, Key::rsa), nonce).subject ==
          op.options().user.sub);  // no kid: the only RS256 signing key

    const auto with = [&](const json& changes) { return oidc_test::with(good, changes); };
    const auto without = [&](const char* claim) { return oidc_test::without(good, claim); };
    const auto tampered = [&] {
        const auto token = op.sign(header("RS256", rsa), good, Key::rsa);
        const auto dot1 = token.find('.');
        const auto dot2 = token.find('.', dot1 + 1);
        const auto payload = with({{"sub", "admin"}}).dump();
        return token.substr(0, dot1 + 1) + crypto::base64url_encode(eth::as_bytes(payload)) + token.substr(dot2);
    };
    const auto valid = op.sign(header("RS256", rsa), good, Key::rsa);
    auto critical = header("RS256", rsa);
    critical.update({{"crit", {"exp"}}, {"exp", 1}});

    const std::vector<std::pair<std::string, std::string>> forgeries{
        {"wrong iss", op.sign(header("RS256", rsa), with({{"iss", "https://evil.example"}}), Key::rsa)},
        {"iss with a trailing slash", op.sign(header("RS256", rsa), with({{"iss", op.issuer() + "/"}}), Key::rsa)},
        {"no iss", op.sign(header("RS256", rsa), without("iss"), Key::rsa)},
        {"aud of another client", op.sign(header("RS256", rsa), with({{"aud", "es-client"}}), Key::rsa)},
        {"aud list without us", op.sign(header("RS256", rsa), with({{"aud", {"a", "b"}}}), Key::rsa)},
        {"aud list with us but no azp", op.sign(header("RS256", rsa), with({{"aud", {"rs-client", "b"}}}), Key::rsa)},
        {"azp of another client", op.sign(header("RS256", rsa), with({{"azp", "es-client"}}), Key::rsa)},
        {"no aud", op.sign(header("RS256", rsa), without("aud"), Key::rsa)},
        {"expired", op.sign(header("RS256", rsa), with({{"exp", oidc_test::now() - 3600}}), Key::rsa)},
        {"no exp", op.sign(header("RS256", rsa), without("exp"), Key::rsa)},
        {"exp not a number", op.sign(header("RS256", rsa), with({{"exp", "tomorrow"}}), Key::rsa)},
        {"issued in the future", op.sign(header("RS256", rsa), with({{"iat", oidc_test::now() + 3600}}), Key::rsa)},
        {"not valid yet", op.sign(header("RS256", rsa), with({{"nbf", oidc_test::now() + 3600}}), Key::rsa)},
        {"nonce mismatch", op.sign(header("RS256", rsa), with({{"nonce", "n-other"}}), Key::rsa)},
        {"no nonce", op.sign(header("RS256", rsa), without("nonce"), Key::rsa)},
        {"no sub", op.sign(header("RS256", rsa), without("sub"), Key::rsa)},
        {"alg none", op.sign({{"alg", "none"}}, good, Key::none)},
        {"alg none with a kid", op.sign(header("none", rsa), good, Key::none)},
        {"HS256 keyed with the public key", op.sign(header("HS256", rsa), good, Key::hmac_rsa_public)},
        {"HS256 without kid", op.sign({{"alg", "HS256"}}, good, Key::hmac_rsa_public)},
        {"PS256", op.sign(header("PS256", rsa), good, Key::rsa)},
        {"unknown kid", op.sign(header("RS256", "no-such-kid"), good, Key::rsa)},
        {"tampered payload", tampered()},
        {"RSA key not in the JWKS, our kid", op.sign(header("RS256", rsa), good, Key::stranger_rsa)},
        {"EC key not in the JWKS, our kid", op.sign(header("ES256", ec), good, Key::stranger_ec)},
        {"stranger's own kid", op.sign(header("RS256", "stranger-rsa"), good, Key::stranger_rsa)},
        {"ES256 naming the RSA key", op.sign(header("ES256", rsa), good, Key::ec)},
        {"RS256 naming the EC key", op.sign(header("RS256", ec), good, Key::rsa)},
        {"key whose use is enc", op.sign(header("RS256", "encryption-rsa"), good, Key::encryption_rsa)},
        {"critical header", op.sign(critical, good, Key::rsa)},
        {"signature cut short", valid.substr(0, valid.size() - 4)},
        {"no signature", valid.substr(0, valid.rfind('.') + 1)},
        {"two parts", valid.substr(0, valid.rfind('.'))},
        {"four parts", valid + ".e30"},
        {"padded base64", valid + "="},
        {"not a JWS", "hello"},
    };
    // A loop, not sections: sections would re-sign every forgery per section.
    for (const auto& [name, token] : forgeries) {
        INFO(name);
        CHECK(test::error_kind([&] { (void)client.verify_id_token(token, nonce); }) == ErrorKind::unauthenticated);
    }
}

TEST_CASE("oidc: a signed ID token missing a claim or holding one of another type is refused naming it", "[oidc]") {
    auto& op = provider();
    auth::OidcClient client(op.settings_for("rs-client"));
    const auto rsa = op.kid(Key::rsa);
    const std::string nonce = "n-claims";
    const auto good = oidc_test::claims("rs-client", nonce);
    const auto sign = [&](const json& claims) { return op.sign(oidc_test::header("RS256", rsa), claims, Key::rsa); };
    const auto with = [&](const json& changes) { return oidc_test::with(good, changes); };
    const auto without = [&](const char* claim) { return oidc_test::without(good, claim); };
    // NumericDate allows a fraction (RFC 7519 §2): such a time is no type error.
    REQUIRE(client.verify_id_token(sign(with({{"exp", oidc_test::now() + 300.5}})), nonce).subject ==
            op.options().user.sub);

    const std::vector<std::pair<std::string, json>> tokens{
        {"iss", without("iss")},
        {"iss", with({{"iss", 7}})},
        {"sub", without("sub")},
        {"sub", with({{"sub", 7}})},
        {"sub", with({{"sub", ""}})},
        {"sub", with({{"sub", std::string(256, 's')}})},
        {"aud", without("aud")},
        {"aud", with({{"aud", 7}})},
        {"aud", with({{"aud", {"rs-client", 7}}})},
        {"azp", with({{"azp", 7}})},
        {"exp", without("exp")},
        {"exp", with({{"exp", "tomorrow"}})},
        {"iat", without("iat")},
        {"iat", with({{"iat", true}})},
        {"nbf", with({{"nbf", "now"}})},
        {"nonce", without("nonce")},
        {"nonce", with({{"nonce", 7}})},
        {"email", with({{"email", 7}})},
        {"email_verified", with({{"email_verified", "yes"}})},
    };
    for (const auto& [claim, claims] : tokens) {
        INFO(claim << " in " << claims.dump());
        try {
            (void)client.verify_id_token(sign(claims), nonce);
            FAIL("accepted");
        } catch (const util::MemberError& e) {
            CHECK(e.kind() == ErrorKind::unauthenticated);
            CHECK(e.member() == claim);
        }
    }
}

TEST_CASE("oidc: ID tokens naming a member twice are refused", "[oidc]") {
    auto& op = provider();
    auth::OidcClient client(op.settings_for("rs-client"));
    const auto rsa = op.kid(Key::rsa);
    const std::string nonce = "n-twice";
    const std::string good = oidc_test::claims("rs-client", nonce).dump();
    const std::string header = oidc_test::header("RS256", rsa).dump();
    // Members put in front of the good ones: a parser keeping the last of
    // two names would read the good token.
    const auto first = [](const std::string& members, const std::string& object) {
        return "{" + members + "," + object.substr(1);
    };
    // The JSON texts as given, signed by the provider's own key.
    const auto signed_text = [&](const std::string& header_text, const std::string& payload_text) {
        return op.sign(json(header_text), json(payload_text), Key::rsa);
    };
    REQUIRE(client.verify_id_token(signed_text(header, good), nonce).subject == op.options().user.sub);

    const std::vector<std::pair<std::string, std::string>> tokens{
        {"sub twice", signed_text(header, first(R"("sub":"admin")", good))},
        {"aud twice", signed_text(header, first(R"("aud":"es-client")", good))},
        {"nested member twice", signed_text(header, first(R"("address":{"country":"a","country":"b"})", good))},
        {"alg twice in the header", signed_text(first(R"("alg":"HS256")", header), good)},
    };
    for (const auto& [name, token] : tokens) {
        INFO(name);
        CHECK(test::error_kind([&] { (void)client.verify_id_token(token, nonce); }) == ErrorKind::unauthenticated);
    }
}

TEST_CASE("oidc: unknown kids do not make the client refetch the JWKS", "[oidc]") {
    auto& op = provider();
    auth::OidcClient client(op.settings_for("es-client"));
    const auto payload = oidc_test::claims("es-client", "n");
    const auto before = op.jwks_requests();
    for (int i = 0; i < 5; ++i) {
        const auto token = op.sign(oidc_test::header("ES256", "kid-" + std::to_string(i)), payload, Key::ec);
        CHECK(test::error_kind([&] { (void)client.verify_id_token(token, std::string("n")); }) ==
              ErrorKind::unauthenticated);
    }
    CHECK(op.jwks_requests() - before == 1);  // the first fetch only
    // A known kid still verifies from the cache.
    CHECK(client.verify_id_token(op.sign(oidc_test::header("ES256", op.kid(Key::ec)), payload, Key::ec), "n").subject ==
          op.options().user.sub);
    CHECK(op.jwks_requests() - before == 1);
}

TEST_CASE("oidc: discovery of another issuer is refused", "[oidc]") {
    auto settings = provider().settings_for("rs-client");
    settings.issuer += "/";  // discovery answers for the issuer without the slash
    auth::OidcClient client(settings);
    CHECK(test::error_kind([&] { (void)client.begin(); }) == ErrorKind::unavailable);
    const auto token = provider().issue_id_token("rs-client", "n");
    CHECK(test::error_kind([&] { (void)client.verify_id_token(token, std::string("n")); }) == ErrorKind::unavailable);
}

TEST_CASE("oidc: a provider that is down is unavailable", "[oidc]") {
    const auto dead = "http://127.0.0.1:" + std::to_string(os::free_loopback_port());
    auto settings = oidc_test::minimal_settings(dead);
    SECTION("discovery") {
        auth::OidcClient client(settings);
        CHECK(test::error_kind([&] { (void)client.begin(); }) == ErrorKind::unavailable);
    }
    SECTION("configured endpoints") {
        settings.authorization_endpoint = dead + "/auth";
        settings.token_endpoint = dead + "/token";
        settings.jwks_uri = dead + "/jwks";
        auth::OidcClient client(settings);
        CHECK(client.begin().url.rfind(dead + "/auth?", 0) == 0);  // no I/O needed
        CHECK(test::error_kind([&] { (void)client.exchange_code("code", "verifier", "nonce"); }) ==
              ErrorKind::unavailable);
        CHECK(test::error_kind([&] { (void)client.verify_id_token("eyJhbGciOiJSUzI1NiJ9.e30.c2ln", std::nullopt); }) ==
              ErrorKind::unavailable);
    }
}

TEST_CASE("oidc: settings are checked up front", "[oidc]") {
    const auto settings = oidc_test::minimal_settings("http://127.0.0.1:9");
    CHECK_NOTHROW(auth::OidcClient(settings));
    auto no_issuer = settings;
    no_issuer.issuer.clear();
    CHECK(test::error_kind([&] { auth::OidcClient c(no_issuer); }) == ErrorKind::invalid_input);
    auto ftp = settings;
    ftp.jwks_uri = "ftp://127.0.0.1/jwks";
    CHECK(test::error_kind([&] { auth::OidcClient c(ftp); }) == ErrorKind::invalid_input);
}
