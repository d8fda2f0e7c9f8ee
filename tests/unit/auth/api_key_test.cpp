#include <catch2/catch.hpp>

#include <set>

#include "core/auth/api_key.hpp"
#include "core/crypto/encoding.hpp"
#include "core/error.hpp"
#include "core/os/process.hpp"
#include "support/error_kind.hpp"

using namespace abci;

TEST_CASE("generated API keys have their documented shape and hash", "[api_key]") {
    std::set<std::string> keys;
    for (int i = 0; i < 20; ++i) {
        const auto generated = auth::generate_api_key();
        INFO(generated.key);
        CHECK(generated.key.starts_with("abci_"));
        CHECK(generated.key.size() == 5 + 43);
        CHECK(crypto::base64url_decode(generated.key.substr(5)).size() == 32);
        CHECK(auth::looks_like_api_key(generated.key));
        CHECK(generated.hash == auth::hash_api_key(generated.key));
        CHECK(generated.hash.size() == 64);
        keys.insert(generated.key);
    }
    CHECK(keys.size() == 20);

    // The stored hash is plain SHA-256 hex of the whole key, as sha256sum computes it.
    const auto generated = auth::generate_api_key();
    const auto r = os::run_command({"sha256sum"}, generated.key);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.substr(0, 64) == generated.hash);
}

TEST_CASE("looks_like_api_key tells API keys from other bearers", "[api_key]") {
    const std::string key = auth::generate_api_key().key;
    CHECK(auth::looks_like_api_key(key));
    for (const std::string& other : {
             std::string(),
             std::string("abci_"),
             key.substr(0, key.size() - 1),
             key + "A",
             "ABCI_" + key.substr(5),
             "abci-" + key.substr(5),
             key.substr(0, 10) + "+" + key.substr(11),
             key.substr(0, 10) + "=" + key.substr(11),
             key.substr(0, 10) + "." + key.substr(11),
             std::string("eyJhbGciOiJIUzI1NiIsInR5cCI6ImF0K2p3dCJ9.e30.sig"),
         }) {
        INFO(other);
        CHECK_FALSE(auth::looks_like_api_key(other));
    }
}

TEST_CASE("check_scope accepts exactly the known scopes", "[api_key]") {
    CHECK(auth::known_scopes() == std::vector<std::string>{"abci:read", "abci:health", "abci:mint-entity"});
    for (const auto& scope : auth::known_scopes()) CHECK_NOTHROW(auth::check_scope(scope));
    for (const char* scope : {"", "abci:READ", "abci:read ", "abci:*", "abci:mint-role-token", "admin"}) {
        INFO(scope);
        CHECK(test::error_kind([&] { auth::check_scope(scope); }) == ErrorKind::invalid_input);
    }
}
