#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "core/webhooks/secret_box.hpp"
#include "core/webhooks/signature.hpp"
#include "support/error_kind.hpp"

using namespace abci;

namespace secret_box_test {

eth::Bytes server_secret(char fill) { return eth::Bytes(32, static_cast<std::uint8_t>(fill)); }

constexpr auto kApart = webhooks::SecretBox::KeyPlace::apart_from_database;

}  // namespace secret_box_test

TEST_CASE("webhook secret box: a sealed secret opens for its subscription under the same server secret only",
          "[webhooks]") {
    const webhooks::SecretBox box(secret_box_test::server_secret('a'), secret_box_test::kApart);
    const auto secret = webhooks::new_secret();
    const auto sealed = box.seal(secret, "sub-1");
    CHECK(sealed.starts_with("v1."));
    CHECK(sealed.find(secret) == std::string::npos);
    CHECK(sealed.find(secret.substr(6, 20)) == std::string::npos);
    CHECK(box.seal(secret, "sub-1") != sealed);  // a fresh nonce each time
    CHECK(box.open(sealed, "sub-1") == secret);
    // The same server secret in another process derives the same key.
    CHECK(webhooks::SecretBox(secret_box_test::server_secret('a'), secret_box_test::kApart).open(sealed, "sub-1") == secret);

    const webhooks::SecretBox other(secret_box_test::server_secret('b'), secret_box_test::kApart);
    CHECK(test::error_kind([&] { (void)other.open(sealed, "sub-1"); }) == ErrorKind::internal);
    CHECK(test::error_kind([&] { (void)box.open(sealed, "sub-2"); }) == ErrorKind::internal);
    std::string altered = sealed;
    altered[10] = altered[10] == 'A' ? 'B' : 'A';
    CHECK(test::error_kind([&] { (void)box.open(altered, "sub-1"); }) == ErrorKind::internal);
    for (const char* bad : {"", "v1.", "v1.AAAA", "v2.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "plain"}) {
        INFO(bad);
        CHECK(test::error_kind([&] { (void)box.open(bad, "sub-1"); }) == ErrorKind::internal);
    }
}

TEST_CASE("webhook secret box: with its key kept in the database it seals nothing, naming auth.jwtSecretFile, and "
          "opens what was sealed before",
          "[webhooks]") {
    const auto secret = webhooks::new_secret();
    const auto sealed =
        webhooks::SecretBox(secret_box_test::server_secret('a'), secret_box_test::kApart).seal(secret, "sub-1");
    const webhooks::SecretBox box(secret_box_test::server_secret('a'), webhooks::SecretBox::KeyPlace::in_database);
    CHECK(box.why_not_sealing().value_or("").find("auth.jwtSecretFile") != std::string::npos);
    CHECK_FALSE(webhooks::SecretBox(secret_box_test::server_secret('a'), secret_box_test::kApart).why_not_sealing());
    try {
        (void)box.seal(secret, "sub-1");
        FAIL("sealed with the key in the database");
    } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::unprocessable);
        CHECK(std::string(e.what()).find("auth.jwtSecretFile") != std::string::npos);
    }
    CHECK(box.open(sealed, "sub-1") == secret);
}
