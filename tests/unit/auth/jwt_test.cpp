#include <catch2/catch.hpp>

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <sys/stat.h>

#include <filesystem>
#include <limits>

#include <nlohmann/json.hpp>

#include "core/auth/jwt.hpp"
#include "core/crypto/encoding.hpp"
#include "core/error.hpp"
#include "support/cli_runner.hpp"
#include "support/error_kind.hpp"
#include "support/tools.hpp"

using namespace abci;

namespace jwt_test {

using nlohmann::json;
using std::chrono::seconds;

const std::string kSecretText = "an HS256 test secret of 32 bytes";
const eth::Bytes kSecret(kSecretText.begin(), kSecretText.end());
const std::int64_t kNowSeconds = 1'760'000'000;
const auth::TimePoint kNow{seconds(kNowSeconds)};

std::string b64(std::string_view text) { return crypto::base64url_encode(eth::as_bytes(text)); }

// A token with any header and payload text, MAC'd with `md` under `secret`:
// what an attacker who knows (or guesses) the secret, or a buggy issuer, sends.
std::string forge_text(const std::string& header, const std::string& payload, const EVP_MD* md = EVP_sha256(),
                       eth::ByteView secret = kSecret) {
    const std::string input = b64(header) + "." + b64(payload);
    std::array<unsigned char, EVP_MAX_MD_SIZE> mac{};
    unsigned int len = 0;
    REQUIRE(HMAC(md, secret.data(), static_cast<int>(secret.size()), eth::as_bytes(input).data(), input.size(),
                 mac.data(), &len) != nullptr);
    return input + "." + crypto::base64url_encode(eth::ByteView(mac.data(), len));
}

std::string forge(const json& header, const json& payload, const EVP_MD* md = EVP_sha256(),
                  eth::ByteView secret = kSecret) {
    return forge_text(header.dump(), payload.dump(), md, secret);
}

json header() { return {{"alg", "HS256"}, {"typ", "at+jwt"}}; }

json claims() {
    return {{"iss", "abcictl"},    {"aud", "abci-api"},  {"sub", "user-1"},      {"role", "farmer"},
            {"email", "f@x.org"},  {"jti", "jti-1"},     {"sid", "session-1"},   {"iat", kNowSeconds},
            {"nbf", kNowSeconds},  {"exp", kNowSeconds + 3600}};
}

// `token` is refused with Error(unauthenticated), and the message does not echo it.
void check_rejected(const auth::JwtCodec& codec, const std::string& token, auth::TimePoint now = kNow) {
    INFO("token: " << token);
    try {
        (void)codec.verify(token, now);
        FAIL_CHECK("the token was accepted");
    } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::unauthenticated);
        if (!token.empty()) CHECK(std::string_view(e.what()).find(token) == std::string_view::npos);
    }
}

}  // namespace jwt_test

TEST_CASE("JwtCodec verifies the tokens it issues", "[jwt]") {
    using jwt_test::json;
    const auth::JwtCodec codec(jwt_test::kSecret, {});
    const auto now = jwt_test::kNow + std::chrono::milliseconds(700);
    const auto issued = codec.issue("user-7", "verifier", "v@example.org", "session-9", now);

    const std::string_view token = issued.token;
    REQUIRE(std::count(token.begin(), token.end(), '.') == 2);
    const auto header = crypto::base64url_decode(token.substr(0, token.find('.')));
    CHECK(std::string(header.begin(), header.end()) == R"({"alg":"HS256","typ":"at+jwt"})");

    CHECK(issued.claims.issued_at == jwt_test::kNow);  // whole seconds
    CHECK(issued.claims.not_before == jwt_test::kNow);
    CHECK(issued.claims.expires_at == jwt_test::kNow + std::chrono::hours(1));
    const auto claims = codec.verify(issued.token, now);
    CHECK(claims.subject == "user-7");
    CHECK(claims.role == "verifier");
    CHECK(claims.email == "v@example.org");
    CHECK(claims.session_id == "session-9");
    CHECK(claims.jti == issued.claims.jti);
    CHECK(claims.issued_at == issued.claims.issued_at);
    CHECK(claims.not_before == issued.claims.not_before);
    CHECK(claims.expires_at == issued.claims.expires_at);

    CHECK(codec.issue("user-7", "verifier", "", "session-9", now).claims.jti != issued.claims.jti);
    CHECK(test::error_kind([&] { (void)codec.issue("", "verifier", "", "s", now); }) == ErrorKind::invalid_input);

    // Within the 30 s leeway after exp, and not beyond it.
    CHECK_NOTHROW((void)codec.verify(issued.token, jwt_test::kNow + std::chrono::seconds(3600 + 29)));
    jwt_test::check_rejected(codec, issued.token, jwt_test::kNow + std::chrono::seconds(3600 + 31));
}

TEST_CASE("JwtCodec accepts only its pinned algorithm and type", "[jwt]") {
    using jwt_test::json;
    using jwt_test::forge;
    const auth::JwtCodec codec(jwt_test::kSecret, {});
    const auto claims = jwt_test::claims();
    CHECK_NOTHROW((void)codec.verify(forge(jwt_test::header(), claims), jwt_test::kNow));

    // alg none, with an empty signature part and without one.
    const std::string unsigned_input =
        jwt_test::b64(R"({"alg":"none","typ":"at+jwt"})") + "." + jwt_test::b64(claims.dump());
    jwt_test::check_rejected(codec, unsigned_input + ".");
    jwt_test::check_rejected(codec, unsigned_input);
    // alg none with a valid HS256 MAC over it still names the wrong algorithm.
    jwt_test::check_rejected(codec, forge({{"alg", "none"}, {"typ", "at+jwt"}}, claims));

    // Other HMACs, correctly computed under the same secret.
    jwt_test::check_rejected(codec, forge({{"alg", "HS384"}, {"typ", "at+jwt"}}, claims, EVP_sha384()));
    jwt_test::check_rejected(codec, forge({{"alg", "HS512"}, {"typ", "at+jwt"}}, claims, EVP_sha512()));
    // Algorithm confusion: an asymmetric alg with an HMAC under the secret.
    for (const char* alg : {"RS256", "ES256", "PS256", "EdDSA", "hs256", "HS256 ", ""}) {
        INFO(alg);
        jwt_test::check_rejected(codec, forge({{"alg", alg}, {"typ", "at+jwt"}}, claims));
    }
    jwt_test::check_rejected(codec, forge({{"alg", json::array({"HS256"})}, {"typ", "at+jwt"}}, claims));
    jwt_test::check_rejected(codec, forge({{"typ", "at+jwt"}}, claims));

    // typ missing or another type.
    jwt_test::check_rejected(codec, forge({{"alg", "HS256"}}, claims));
    for (const char* typ : {"JWT", "AT+JWT", "application/at+jwt", ""}) {
        INFO(typ);
        jwt_test::check_rejected(codec, forge({{"alg", "HS256"}, {"typ", typ}}, claims));
    }

    // Members that point at other keys or demand unknown extensions.
    auto with = [](const char* name, json value) {
        json h = jwt_test::header();
        h[name] = std::move(value);
        return h;
    };
    jwt_test::check_rejected(codec, forge(with("crit", json::array({"exp"})), claims));
    jwt_test::check_rejected(codec, forge(with("jku", "https://attacker.example/jwks.json"), claims));
    jwt_test::check_rejected(codec, forge(with("jwk", {{"kty", "oct"}, {"k", "AAAA"}}), claims));
    jwt_test::check_rejected(codec, forge(with("x5u", "https://attacker.example/cert.pem"), claims));
    // Any other member, even harmless-looking: we issue alg and typ only (RFC 8725 3.1).
    for (const char* name : {"kid", "cty", "x5t", "x5t#S256", "zip", "b64", "enc", "iss", "custom"}) {
        INFO(name);
        jwt_test::check_rejected(codec, forge(with(name, "key-1"), claims));
    }
    jwt_test::check_rejected(codec, forge(with("kid", nullptr), claims));

    // A duplicated member: readers disagree on which one counts.
    jwt_test::check_rejected(
        codec, jwt_test::forge_text(R"({"alg":"none","alg":"HS256","typ":"at+jwt"})", claims.dump()));
    jwt_test::check_rejected(codec, jwt_test::forge_text("[]", claims.dump()));
    jwt_test::check_rejected(codec, jwt_test::forge_text("not json", claims.dump()));
}

TEST_CASE("JwtCodec refuses tampered and wrongly signed tokens", "[jwt]") {
    using jwt_test::json;
    const auth::JwtCodec codec(jwt_test::kSecret, {});
    const auto issued = codec.issue("user-1", "farmer", "f@x.org", "s-1", jwt_test::kNow);
    const std::string& token = issued.token;
    const std::size_t first = token.find('.');
    const std::size_t second = token.rfind('.');

    // A claim changed, the signature kept.
    auto payload = json::parse(crypto::base64url_decode(token.substr(first + 1, second - first - 1)));
    payload["role"] = "admin";
    jwt_test::check_rejected(
        codec, token.substr(0, first) + "." + jwt_test::b64(payload.dump()) + token.substr(second));

    // The right shape under another secret.
    const eth::Bytes other(32, 0x42);
    jwt_test::check_rejected(codec, jwt_test::forge(jwt_test::header(), jwt_test::claims(), EVP_sha256(), other));
    const auth::JwtCodec other_codec(other, {});
    jwt_test::check_rejected(codec, other_codec.issue("user-1", "admin", "", "s-1", jwt_test::kNow).token);

    // The signature truncated, extended, emptied, or spelled non-canonically.
    const std::string signature = token.substr(second + 1);
    const std::string signed_part = token.substr(0, second + 1);
    jwt_test::check_rejected(codec, signed_part + signature.substr(0, signature.size() - 1));
    jwt_test::check_rejected(codec, signed_part + signature + "A");
    jwt_test::check_rejected(codec, signed_part + signature + "=");
    jwt_test::check_rejected(codec, signed_part);
    std::string flipped = signature;
    flipped.back() = flipped.back() == 'A' ? 'B' : 'A';
    jwt_test::check_rejected(codec, signed_part + flipped);
}

TEST_CASE("JwtCodec checks issuer, audience, times and required claims", "[jwt]") {
    using jwt_test::json;
    const auth::JwtCodec codec(jwt_test::kSecret, {});
    const auto accepted = [&](const json& claims) {
        (void)codec.verify(jwt_test::forge(jwt_test::header(), claims), jwt_test::kNow);
    };
    const auto rejected = [&](const json& claims) {
        jwt_test::check_rejected(codec, jwt_test::forge(jwt_test::header(), claims));
    };
    const auto with = [](const char* name, json value) {
        json c = jwt_test::claims();
        c[name] = std::move(value);
        return c;
    };
    const auto without = [](const char* name) {
        json c = jwt_test::claims();
        c.erase(name);
        return c;
    };
    const std::int64_t now = jwt_test::kNowSeconds;

    CHECK_NOTHROW(accepted(jwt_test::claims()));
    CHECK_NOTHROW(accepted(without("email")));
    CHECK_NOTHROW(accepted(with("aud", json::array({"other", "abci-api"}))));
    CHECK_NOTHROW(accepted(with("extra", {{"nested", 1}})));

    rejected(with("iss", "someone-else"));
    rejected(with("iss", json::array({"abcictl"})));
    rejected(with("aud", "other-api"));
    rejected(with("aud", json::array({"other"})));
    rejected(with("aud", json::array()));
    rejected(with("aud", json::array({"abci-api", 7})));

    // exp and nbf with the 30 s leeway on each side.
    rejected(with("exp", now - 31));
    rejected(with("exp", now - 30));
    CHECK_NOTHROW(accepted(with("exp", now - 29)));
    rejected(with("nbf", now + 31));
    CHECK_NOTHROW(accepted(with("nbf", now + 29)));
    rejected(with("iat", now + 31));

    for (const char* name : {"iss", "aud", "sub", "role", "jti", "sid", "iat", "nbf", "exp"}) {
        INFO(name);
        rejected(without(name));
    }
    for (const char* name : {"iat", "nbf", "exp"}) {
        INFO(name);
        rejected(with(name, std::to_string(now + 10)));
        rejected(with(name, static_cast<double>(now) + 0.5));
        rejected(with(name, true));
        rejected(with(name, nullptr));
        rejected(with(name, -1));
        rejected(with(name, std::numeric_limits<std::uint64_t>::max()));
    }
    for (const char* name : {"sub", "role", "jti", "sid", "email"}) {
        INFO(name);
        rejected(with(name, 12));
        rejected(with(name, json::array({"x"})));
    }
    for (const char* name : {"sub", "role", "jti", "sid"}) {
        INFO(name);
        rejected(with(name, ""));
    }

    // Duplicated claims: which one a reader takes is not to be guessed.
    const std::string base = jwt_test::claims().dump();
    jwt_test::check_rejected(codec, jwt_test::forge_text(jwt_test::header().dump(),
                                                         R"({"sub":"admin-0",)" + base.substr(1)));
    jwt_test::check_rejected(
        codec, jwt_test::forge_text(jwt_test::header().dump(), R"({"exp":99999999999,)" + base.substr(1)));
    // A payload that is not an object.
    jwt_test::check_rejected(codec, jwt_test::forge_text(jwt_test::header().dump(), "[" + base + "]"));
    jwt_test::check_rejected(codec, jwt_test::forge_text(jwt_test::header().dump(), R"("claims")"));
}

TEST_CASE("JwtCodec refuses times the clock cannot hold", "[jwt]") {
    // Found by tests/fuzz/jwt.cpp: a claim in seconds was turned into the
    // clock's nanoseconds unchecked up to year 9999, so "nbf" in 2532
    // overflowed to 1948 and the token was accepted 500 years early.
    using jwt_test::json;
    const auth::JwtCodec codec(jwt_test::kSecret, {});
    for (const char* name : {"iat", "nbf", "exp"}) {
        for (const std::int64_t seconds : {std::int64_t{17'760'000'000}, std::int64_t{253'402'300'799}}) {
            INFO(name << " = " << seconds);
            auto claims = jwt_test::claims();
            claims[name] = seconds;
            jwt_test::check_rejected(codec, jwt_test::forge(jwt_test::header(), claims));
        }
    }
}

TEST_CASE("JwtCodec refuses a segment with a number beyond a double's range as malformed", "[jwt]") {
    // Found by tests/fuzz/jwt.cpp: the JSON library's own exception escaped
    // verify(), before the MAC was checked, from any client's token.
    const auth::JwtCodec codec(jwt_test::kSecret, {});
    jwt_test::check_rejected(codec, jwt_test::forge_text(R"({"alg": 333E333})", jwt_test::claims().dump()));
    jwt_test::check_rejected(codec, jwt_test::forge_text(jwt_test::header().dump(), R"({"exp": -1e999})"));
}

TEST_CASE("JwtCodec refuses malformed tokens", "[jwt]") {
    using jwt_test::json;
    const auth::JwtCodec codec(jwt_test::kSecret, {});
    const std::string good = codec.issue("user-1", "farmer", "", "s-1", jwt_test::kNow).token;
    const std::size_t first = good.find('.');
    for (const std::string& bad : {
             std::string(),
             std::string("."),
             std::string(".."),
             std::string("..."),
             std::string("abc"),
             good + ".",
             good + ".x",
             "." + good,
             good.substr(0, first) + "=" + good.substr(first),  // padding in the header part
             "e" + good,                                       // header no longer base64url of JSON
             good.substr(0, first) + good.substr(first + 1),   // two parts
             std::string(9000, 'a'),
             good + std::string(9000, 'A'),
         }) {
        jwt_test::check_rejected(codec, bad);
    }
}

TEST_CASE("JwtCodec needs a secret of at least 32 bytes", "[jwt]") {
    using jwt_test::json;
    const eth::Bytes short_secret(31, 7);
    CHECK(test::error_kind([&] { auth::JwtCodec codec(short_secret, {}); }) == ErrorKind::invalid_input);
    CHECK(test::error_kind([&] { auth::JwtCodec codec(eth::Bytes{}, {}); }) == ErrorKind::invalid_input);
    auth::JwtSettings no_lifetime;
    no_lifetime.lifetime = std::chrono::seconds(0);
    CHECK(test::error_kind([&] { auth::JwtCodec codec(jwt_test::kSecret, no_lifetime); }) ==
          ErrorKind::invalid_input);
    CHECK_NOTHROW(auth::JwtCodec(eth::Bytes(32, 7), {}));
}

TEST_CASE("load_or_create_secret creates a 0600 secret once and reads it back", "[jwt]") {
    using jwt_test::json;
    namespace fs = std::filesystem;
    const test::TempDir dir;
    const fs::path path = dir.path() / "data" / "jwt.secret";

    const eth::Bytes created = auth::load_or_create_secret(path.string());
    CHECK(created.size() == 32);
    struct stat st {};
    REQUIRE(::stat(path.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);
    CHECK(st.st_size == 32);
    REQUIRE(::stat(path.parent_path().c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0700);
    // No temporary file is left behind.
    CHECK(std::distance(fs::directory_iterator(path.parent_path()), fs::directory_iterator()) == 1);

    CHECK(auth::load_or_create_secret(path.string()) == created);
    CHECK(auth::load_or_create_secret(path.string()) != auth::load_or_create_secret(dir / "other.secret"));

    const std::string own(40, 's');
    CHECK(auth::load_or_create_secret(dir.write("own.secret", own)) == eth::Bytes(own.begin(), own.end()));
    CHECK(test::error_kind([&] { (void)auth::load_or_create_secret(dir.write("short.secret", "0123456789")); }) ==
          ErrorKind::invalid_input);
    CHECK(test::error_kind([&] { (void)auth::load_or_create_secret(dir.path().string()); }) ==
          ErrorKind::unavailable);
}

TEST_CASE("tokens agree with the jose package", "[jwt][jose]") {
    using jwt_test::json;
    const auth::JwtCodec codec(jwt_test::kSecret, {});
    const auto now = std::chrono::system_clock::now();
    const std::int64_t now_seconds = std::chrono::floor<std::chrono::seconds>(now).time_since_epoch().count();
    const auto issued = codec.issue("user-3", "admin", "a@x.org", "session-3", now);
    const std::string tampered = jwt_test::forge(jwt_test::header(), jwt_test::claims(), EVP_sha256(),
                                                 eth::Bytes(32, 1));
    const std::string secret_hex = eth::to_hex(jwt_test::kSecret, false);
    const auto verify = [&](const std::string& token) {
        return json{{"secretHex", secret_hex}, {"verify", token}, {"issuer", "abcictl"}, {"audience", "abci-api"},
                    {"now", now_seconds}};
    };
    const auto sign = [&](json header) {
        return json{{"secretHex", secret_hex}, {"sign", jwt_test::claims()}, {"header", std::move(header)}};
    };
    const json requests = json::array({
        verify(issued.token),
        verify(tampered),
        sign(jwt_test::header()),
        sign({{"alg", "HS256"}, {"typ", "JWT"}}),
        sign({{"alg", "HS512"}, {"typ", "at+jwt"}}),
    });
    const auto run = os::run_command({"node", test::source_path("tests/support/js/jose_hs256.mjs")}, requests.dump());
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    const json answers = json::parse(run.out);
    REQUIRE(answers.size() == requests.size());

    // jose accepts what we issue, with the claims we put in.
    INFO(answers.dump());
    REQUIRE(answers[0]["ok"] == true);
    CHECK(answers[0]["header"] == jwt_test::header());
    const json& payload = answers[0]["payload"];
    CHECK(payload["sub"] == "user-3");
    CHECK(payload["role"] == "admin");
    CHECK(payload["sid"] == "session-3");
    CHECK(payload["jti"] == issued.claims.jti);
    CHECK(payload["exp"] == now_seconds + 3600);
    // and refuses what we refuse.
    CHECK(answers[1]["ok"] == false);
    jwt_test::check_rejected(codec, tampered);

    // We accept what jose signs with our header and claims, and nothing else.
    const auto claims = codec.verify(answers[2]["token"].get<std::string>(), jwt_test::kNow);
    CHECK(claims.subject == "user-1");
    CHECK(claims.jti == "jti-1");
    CHECK(claims.session_id == "session-1");
    CHECK(claims.expires_at == jwt_test::kNow + std::chrono::hours(1));
    jwt_test::check_rejected(codec, answers[3]["token"].get<std::string>());
    jwt_test::check_rejected(codec, answers[4]["token"].get<std::string>());
}
