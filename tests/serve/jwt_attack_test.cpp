// Attacks on the access token (RFC 8725) against protected routes of a real
// `abcictl serve`: every forged or stale token is 401 INVALID_TOKEN. Tokens
// are taken apart and re-signed here with OpenSSL directly, with the server's
// own secret read from its data directory, so that only the attacked part of
// a token is wrong.

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <chrono>
#include <fstream>
#include <iterator>

#include "serve/expect.hpp"

namespace abci::test {
namespace {

std::string b64url(std::string_view data) {
    std::string out(4 * ((data.size() + 2) / 3) + 1, '\0');
    const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                  reinterpret_cast<const unsigned char*>(data.data()), static_cast<int>(data.size()));
    out.resize(static_cast<std::size_t>(n));
    while (!out.empty() && out.back() == '=') out.pop_back();
    for (auto& c : out) c = c == '+' ? '-' : c == '/' ? '_' : c;
    return out;
}

std::string b64url_decode(std::string text) {
    for (auto& c : text) c = c == '-' ? '+' : c == '_' ? '/' : c;
    const std::size_t pad = (4 - text.size() % 4) % 4;
    text.append(pad, '=');
    std::string out(text.size() / 4 * 3, '\0');
    const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                  reinterpret_cast<const unsigned char*>(text.data()), static_cast<int>(text.size()));
    REQUIRE(n >= 0);
    out.resize(static_cast<std::size_t>(n) - pad);
    return out;
}

struct Jwt {
    nlohmann::json header;
    nlohmann::json payload;
};

Jwt decode(const std::string& token) {
    const auto dot1 = token.find('.');
    const auto dot2 = token.find('.', dot1 + 1);
    REQUIRE(dot2 != std::string::npos);
    return {nlohmann::json::parse(b64url_decode(token.substr(0, dot1))),
            nlohmann::json::parse(b64url_decode(token.substr(dot1 + 1, dot2 - dot1 - 1)))};
}

// header.payload signed with HMAC over `md` (nullptr: no signature at all).
std::string sign(const nlohmann::json& header, const nlohmann::json& payload, const EVP_MD* md,
                 const std::string& secret) {
    const auto input = b64url(header.dump()) + "." + b64url(payload.dump());
    if (!md) return input + ".";
    unsigned char mac[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    REQUIRE(HMAC(md, secret.data(), static_cast<int>(secret.size()), reinterpret_cast<const unsigned char*>(input.data()),
                 input.size(), mac, &len));
    return input + "." + b64url(std::string_view(reinterpret_cast<const char*>(mac), len));
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    REQUIRE(in);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("JWT attacks on protected routes are 401 INVALID_TOKEN", "[serve][jwt]") {
    // Every refused probe of /abci counts against the rate limit: off here.
    Server server({.env = {{"ABCI_RATE_LIMIT", "0"}}});
    const auto http = server.http();
    const auto admin = server.login_admin();
    const auto secret = read_file(server.data_dir() + "/jwt.secret");
    REQUIRE(secret.size() >= 32);
    const auto real = decode(admin.token);
    const auto hs256 = EVP_sha256();

    // Both kinds of protected route: an /api one and the /abci gate.
    const auto require_refused = [&](const std::string& token) {
        require_unauthorized(http.get("/api/auth/me", token), "INVALID_TOKEN");
        require_unauthorized(http.get("/abci/health", token), "INVALID_TOKEN");
    };

    {  // the genuine token, and one re-signed here unchanged, are accepted
        REQUIRE(http.get("/api/auth/me", admin.token).status == 200);
        CHECK(real.header == nlohmann::json({{"alg", "HS256"}, {"typ", "at+jwt"}}));
        for (const char* claim : {"iss", "aud", "exp", "nbf", "iat", "jti", "sub"}) {
            INFO(claim);
            CHECK(real.payload.contains(claim));
        }
        // The forging code is right: the same header and payload re-signed here pass.
        const auto copy = sign(real.header, real.payload, hs256, secret);
        CHECK(http.get("/api/auth/me", copy).status == 200);
    }

    {  // alg none, other algorithms and other header types
        for (const char* alg : {"none", "None", "NONE"}) {
            INFO(alg);
            require_refused(sign({{"alg", alg}, {"typ", "at+jwt"}}, real.payload, nullptr, secret));
            // Keeping the genuine signature does not help either.
            auto with_sig = sign({{"alg", alg}, {"typ", "at+jwt"}}, real.payload, nullptr, secret);
            require_refused(with_sig + admin.token.substr(admin.token.rfind('.') + 1));
        }
        require_refused(sign({{"alg", "HS512"}, {"typ", "at+jwt"}}, real.payload, EVP_sha512(), secret));
        require_refused(sign({{"alg", "HS384"}, {"typ", "at+jwt"}}, real.payload, EVP_sha384(), secret));
        // RS256 named, HMAC made with the shared secret: algorithm confusion.
        require_refused(sign({{"alg", "RS256"}, {"typ", "at+jwt"}}, real.payload, hs256, secret));
        require_refused(sign({{"alg", "ES256"}, {"typ", "at+jwt"}}, real.payload, hs256, secret));
        // Right algorithm, wrong or missing type (a token of another kind).
        require_refused(sign({{"alg", "HS256"}, {"typ", "JWT"}}, real.payload, hs256, secret));
        require_refused(sign({{"alg", "HS256"}}, real.payload, hs256, secret));
        // Header parameters that would make a lax verifier fetch or pick a key.
        require_refused(sign({{"alg", "HS256"}, {"typ", "at+jwt"}, {"jku", "http://127.0.0.1:9/jwks"}}, real.payload,
                             hs256, secret));
        require_refused(sign({{"alg", "HS256"}, {"typ", "at+jwt"}, {"kid", "../../../dev/null"}}, real.payload,
                             hs256, ""));
    }

    {  // any header member besides alg and typ, even on a token signed with the server's own secret
        for (const auto& [name, value] : std::vector<std::pair<std::string, nlohmann::json>>{
                 {"kid", "key-1"},
                 {"kid", ""},
                 {"cty", "JWT"},
                 {"x5t", "dGh1bWJwcmludA"},
                 {"x5u", "https://127.0.0.1:9/cert.pem"},
                 {"crit", nlohmann::json::array({"exp"})},
                 {"b64", false},
                 {"zip", "DEF"},
                 {"x-custom", 1},
             }) {
            INFO(name << " = " << value.dump());
            auto header = real.header;
            header[name] = value;
            require_refused(sign(header, real.payload, hs256, secret));
        }
    }

    {  // a tampered payload, a wrong key, a broken shape
        auto payload = real.payload;
        payload["role"] = "admin";
        payload["sub"] = "someone-else";
        const auto genuine_sig = admin.token.substr(admin.token.rfind('.') + 1);
        require_refused(b64url(real.header.dump()) + "." + b64url(payload.dump()) + "." + genuine_sig);
        require_refused(sign(real.header, real.payload, hs256, std::string(32, 'k')));
        // One bit off the real secret. (Not a truncated secret: HMAC pads a short
        // key with zeros, so a secret ending in 0x00 minus its last byte is the
        // same key, and such a test fails once in 256 runs.)
        auto near_secret = secret;
        near_secret.back() = static_cast<char>(near_secret.back() ^ 1);
        require_refused(sign(real.header, real.payload, hs256, near_secret));
        std::string flipped = admin.token;
        flipped.back() = flipped.back() == 'A' ? 'B' : 'A';
        require_refused(flipped);
        require_refused(admin.token.substr(0, admin.token.rfind('.')));
        require_refused(admin.token + ".");
        require_refused(admin.token + "x");
        require_refused("..");
        require_refused("e30.e30.");
    }

    {  // a wrong audience or issuer, even signed with the server's own secret
        for (const auto& [claim, value] : std::vector<std::pair<std::string, nlohmann::json>>{
                 {"aud", "another-api"},
                 {"aud", nlohmann::json::array({"another-api"})},
                 {"iss", "https://issuer.example.net"},
                 {"iss", ""},
             }) {
            INFO(claim << " = " << value.dump());
            auto payload = real.payload;
            payload[claim] = value;
            require_refused(sign(real.header, payload, hs256, secret));
        }
        for (const char* claim : {"iss", "aud", "exp", "jti", "sub"}) {
            INFO("without " << claim);
            auto payload = real.payload;
            payload.erase(claim);
            require_refused(sign(real.header, payload, hs256, secret));
        }
    }

    {  // expired, not yet valid, and the clock-skew leeway
        const auto now = unix_now();
        auto payload = real.payload;
        payload["iat"] = now - 7200;
        payload["nbf"] = now - 7200;
        payload["exp"] = now - 3600;
        require_refused(sign(real.header, payload, hs256, secret));
        payload["exp"] = now - 120;  // beyond the default 30 s of leeway
        require_refused(sign(real.header, payload, hs256, secret));
        payload["exp"] = now + 3600;
        payload["nbf"] = now + 600;  // not yet valid
        require_refused(sign(real.header, payload, hs256, secret));
        payload["nbf"] = now - 60;
        payload["exp"] = "9999999999";  // a claim of the wrong type
        require_refused(sign(real.header, payload, hs256, secret));
        // Within the leeway a just-expired token still passes: the checks read the clock, not a constant.
        payload["exp"] = now - 5;
        CHECK(http.get("/api/auth/me", sign(real.header, payload, hs256, secret)).status == 200);
    }

    {  // a revoked jti stays revoked in any re-signed form
        REQUIRE(http.post("/api/auth/logout", nlohmann::json::object(), admin.token).status == 200);
        require_refused(admin.token);
        auto payload = real.payload;
        payload["exp"] = unix_now() + 7200;
        require_refused(sign(real.header, payload, hs256, secret));
    }

    {  // a well-signed token for a user that does not exist
        auto payload = real.payload;
        payload["sub"] = "no-such-user";
        payload["jti"] = "fresh-jti-" + std::to_string(unix_now());
        require_refused(sign(real.header, payload, hs256, secret));
    }

    require_log_free_of(server, {admin.token, admin.refresh_token, Server::admin_password});
}

}  // namespace abci::test
