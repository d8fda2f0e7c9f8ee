#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <thread>

#include "core/auth/password.hpp"
#include "core/crypto/encoding.hpp"
#include "core/error.hpp"
#include "core/os/process.hpp"
#include "support/error_kind.hpp"

using namespace abci;

namespace password_test {

// 16 MiB per derivation: a real scrypt cost, cheap enough for tests not about the default cost.
const auth::ScryptParams kLight{14, 8, 1};

// The '$'-separated fields of an encoded hash: "", "scrypt", params, salt, hash.
std::vector<std::string> fields(const std::string& encoded) {
    std::vector<std::string> out;
    std::size_t start = 0;
    for (std::size_t end; (end = encoded.find('$', start)) != std::string::npos; start = end + 1)
        out.push_back(encoded.substr(start, end - start));
    out.push_back(encoded.substr(start));
    return out;
}

std::string join(const std::vector<std::string>& parts) {
    std::string out = parts.front();
    for (std::size_t i = 1; i < parts.size(); ++i) out += "$" + parts[i];
    return out;
}

}  // namespace password_test

TEST_CASE("a password hashed at the default cost verifies", "[password]") {
    const std::string encoded = auth::hash_password("correct horse battery staple");
    CHECK(encoded.starts_with("$scrypt$ln=17,r=8,p=1$"));
    CHECK(auth::verify_password("correct horse battery staple", encoded));
}

TEST_CASE("verify_password refuses wrong passwords", "[password]") {
    const std::string encoded = auth::hash_password("hunter2", password_test::kLight);
    CHECK(encoded.starts_with("$scrypt$ln=14,r=8,p=1$"));
    CHECK(auth::verify_password("hunter2", encoded));
    CHECK_FALSE(auth::verify_password("hunter3", encoded));
    CHECK_FALSE(auth::verify_password("hunter2 ", encoded));
    CHECK_FALSE(auth::verify_password("", encoded));

    // A fresh salt every time: the same password never hashes the same twice.
    const std::string again = auth::hash_password("hunter2", password_test::kLight);
    CHECK(again != encoded);
    CHECK(password_test::fields(again)[3] != password_test::fields(encoded)[3]);
    CHECK(auth::verify_password("hunter2", again));

    const std::string empty = auth::hash_password("", password_test::kLight);
    CHECK(auth::verify_password("", empty));
    CHECK_FALSE(auth::verify_password("x", empty));
}

TEST_CASE("malformed or out-of-bounds encodings are a mismatch, not an exception", "[password]") {
    const std::string good = auth::hash_password("pw", password_test::kLight);
    const auto parts = password_test::fields(good);
    REQUIRE(parts.size() == 5);
    const auto with = [&](std::size_t index, const std::string& value) {
        auto copy = parts;
        copy[index] = value;
        return password_test::join(copy);
    };
    const std::string salt_b64 = parts[3];
    const std::string bad[] = {
        "",
        "$scrypt$",
        with(1, "Scrypt"),
        with(1, "argon2id"),
        "scrypt" + good.substr(7),  // missing the leading '$'
        with(2, "ln=40,r=8,p=1"),
        with(2, "ln=0,r=8,p=1"),
        with(2, "ln=14,r=8,p=65"),  // r*p too large
        with(2, "ln=14,r=64,p=2"),
        with(2, "ln=20,r=8,p=1"),  // 1 GiB of memory
        with(2, "ln=16,r=1,p=1"),  // N ≥ 2^(16r): OpenSSL would refuse it
        with(2, "ln=014,r=8,p=1"),  // not the canonical spelling
        with(2, "ln=+14,r=8,p=1"),
        with(2, "ln=14,r=8,p=-1"),
        with(2, "ln=14,p=1,r=8"),
        with(2, "ln=14,r=8,p=1,x=2"),
        with(2, "ln=99999999999999999999,r=8,p=1"),
        with(3, salt_b64.substr(0, salt_b64.size() - 2)),  // bad padding
        with(3, "!" + salt_b64.substr(1)),                 // bad character
        with(3, crypto::base64_encode(crypto::random_bytes(15))),  // wrong salt length
        with(4, parts[4].substr(0, 20)),                           // truncated hash
        with(4, crypto::base64_encode(crypto::random_bytes(31))),  // wrong hash length
        good.substr(0, good.size() - 1),
        good + "$",
        good + "$extra",
        good + "\n",
    };
    for (const auto& encoded : bad) {
        INFO(encoded);
        bool result = true;
        CHECK_NOTHROW(result = auth::verify_password("pw", encoded));
        CHECK_FALSE(result);
    }
    CHECK(auth::verify_password("pw", good));
}

TEST_CASE("hash_password and spend_password_verification_time refuse out-of-bounds parameters", "[password]") {
    for (const auth::ScryptParams& params : {auth::ScryptParams{21, 8, 1}, auth::ScryptParams{14, 8, 9},
                                             auth::ScryptParams{14, 0, 1}, auth::ScryptParams{17, 1, 1}}) {
        INFO(params.log2_n << " " << params.r << " " << params.p);
        CHECK(test::error_kind([&] { (void)auth::hash_password("pw", params); }) == ErrorKind::invalid_input);
        CHECK(test::error_kind([&] { auth::spend_password_verification_time("pw", params); }) ==
              ErrorKind::invalid_input);
    }
    CHECK_NOTHROW(auth::spend_password_verification_time("pw", password_test::kLight));
}

TEST_CASE("scrypt matches RFC 7914's vectors", "[password]") {
    std::array<std::uint8_t, 64> out{};
    auth::detail::scrypt("", {}, auth::ScryptParams{4, 1, 1}, out);
    CHECK(eth::to_hex(out, false) ==
          "77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442"
          "fcd0069ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906");
    auth::detail::scrypt("password", eth::as_bytes("NaCl"), auth::ScryptParams{10, 8, 16}, out);
    CHECK(eth::to_hex(std::span(out).first(16), false) == "fdbabe1c9d3472007856e7190d01e9fe");
    CHECK(eth::to_hex(out, false) ==
          "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b373162"
          "2eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640");
}

TEST_CASE("an encoded hash matches the openssl tool's scrypt", "[password]") {
    const std::string password = "pässwörd with spaces";
    const std::string encoded = auth::hash_password(password, password_test::kLight);
    const auto parts = password_test::fields(encoded);
    const eth::Bytes salt = crypto::base64_decode(parts[3]);
    const auto r = os::run_command({"openssl", "kdf", "-keylen", "32", "-kdfopt", "pass:" + password, "-kdfopt",
                                    "hexsalt:" + eth::to_hex(salt, false), "-kdfopt", "n:16384", "-kdfopt", "r:8",
                                    "-kdfopt", "p:1", "SCRYPT"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    std::string hex = r.out;
    hex.erase(std::remove_if(hex.begin(), hex.end(), [](char c) { return c == ':' || c == '\n'; }), hex.end());
    CHECK(eth::from_hex(hex) == crypto::base64_decode(parts[4]));
}

TEST_CASE("concurrent hashing and verification stay correct", "[password]") {
    // More threads than derivation slots, so some of them wait for one.
    const std::string encoded = auth::hash_password("shared", password_test::kLight);
    std::atomic<int> matches{0};
    std::vector<std::thread> threads;
    for (int i = 0; i < auth::kMaxConcurrentDerivations + 1; ++i)
        threads.emplace_back([&, i] {
            if (auth::verify_password("shared", encoded)) ++matches;
            const std::string own = auth::hash_password("pw" + std::to_string(i), password_test::kLight);
            if (auth::verify_password("pw" + std::to_string(i), own)) ++matches;
        });
    for (auto& t : threads) t.join();
    CHECK(matches == 2 * (auth::kMaxConcurrentDerivations + 1));
}
