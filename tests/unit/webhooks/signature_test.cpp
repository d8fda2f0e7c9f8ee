#include <catch2/catch.hpp>

#include <chrono>
#include <regex>

#include <nlohmann/json.hpp>

#include "core/crypto/encoding.hpp"
#include "core/error.hpp"
#include "core/os/process.hpp"
#include "core/webhooks/signature.hpp"
#include "support/error_kind.hpp"
#include "support/tools.hpp"

using namespace abci;

namespace signature_test {

using nlohmann::json;

std::int64_t now_seconds() {
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// Runs the reference library (tests/support/js/standard_webhooks.mjs) on `requests`.
json reference_library(const json& requests) {
    const auto run =
        os::run_command({"node", test::source_path("tests/support/js/standard_webhooks.mjs")}, requests.dump());
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    json answers = json::parse(run.out);
    REQUIRE(answers.size() == requests.size());
    return answers;
}

json verify(const std::string& secret, const webhooks::SignedHeaders& headers, const std::string& body) {
    return {{"secret", secret},
            {"headers",
             {{"webhook-id", headers.id},
              {"webhook-timestamp", headers.timestamp},
              {"webhook-signature", headers.signature}}},
            {"body", body}};
}

}  // namespace signature_test

TEST_CASE("webhook signature: the specification's published test vector", "[webhooks]") {
    // The vector of the Standard Webhooks test suites (every reference library checks it).
    CHECK(webhooks::sign("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330,
                         R"({"test": 2432232314})") == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
}

TEST_CASE("webhook signature: a new secret is whsec_ and the base64 of 32 random bytes", "[webhooks]") {
    const auto a = webhooks::new_secret();
    const auto b = webhooks::new_secret();
    CHECK(std::regex_match(a, std::regex("whsec_[A-Za-z0-9+/]{43}=")));
    CHECK(webhooks::secret_key(a).size() == 32);
    CHECK(a != b);
}

TEST_CASE("webhook signature: a secret that is not whsec_ and base64 is refused", "[webhooks]") {
    for (const char* bad : {"", "whsec_", "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_not base64!", "whsec_abc"}) {
        INFO(bad);
        CHECK(test::error_kind([&] { (void)webhooks::secret_key(bad); }) == ErrorKind::invalid_input);
    }
    CHECK(test::error_kind([] { (void)webhooks::sign_delivery({}, "msg_1", 1, "{}"); }) == ErrorKind::internal);
}

TEST_CASE("webhook signature: the reference library verifies what we sign, with either of two live secrets",
          "[webhooks]") {
    using signature_test::verify;
    const auto old_secret = webhooks::new_secret();
    const auto new_secret = webhooks::new_secret();
    const auto other = webhooks::new_secret();
    const std::int64_t now = signature_test::now_seconds();
    // Bytes a re-serialisation would change: key order, spacing, escapes, non-ASCII.
    const std::string body = R"({"type":"webhook.test","timestamp":"2026-11-27T20:00:00.000Z","data":{"z":1,"a":"é \u00e9 \"q\""}})";
    const auto one = webhooks::sign_delivery({new_secret}, "msg_one", now, body);
    const auto two = webhooks::sign_delivery({new_secret, old_secret}, "msg_two", now, body);
    CHECK(one.id == "msg_one");
    CHECK(one.timestamp == std::to_string(now));
    CHECK(two.signature.find(' ') != std::string::npos);
    const auto stale = webhooks::sign_delivery({new_secret}, "msg_old", now - 3600, body);

    const auto answers = signature_test::reference_library(nlohmann::json::array({
        verify(new_secret, one, body),
        verify(new_secret, two, body),
        verify(old_secret, two, body),
        verify(other, two, body),
        verify(new_secret, one, body + " "),
        verify(new_secret, stale, body),
        {{"secret", new_secret}, {"sign", {{"id", "msg_lib"}, {"timestamp", now}, {"body", body}}}},
    }));
    INFO(answers.dump());
    CHECK(answers[0]["ok"] == true);
    CHECK(answers[1]["ok"] == true);
    CHECK(answers[2]["ok"] == true);
    CHECK(answers[3]["ok"] == false);
    CHECK(answers[4]["ok"] == false);
    CHECK(answers[5]["ok"] == false);
    CHECK(answers[6]["signature"] == webhooks::sign(new_secret, "msg_lib", now, body));
}
