// The lock-out after wrong passwords (issue 13 item 5): it holds an (account,
// client address) pair, so an attacker cannot lock the owner out from
// elsewhere; failures from many addresses slow the account's logins down
// without locking them. Client addresses come through X-Forwarded-For from
// the trusted proxy the test stands in for.

#include <future>
#include <thread>

#include "serve/expect.hpp"

namespace abci::test::login_lockout_tests {
namespace {

constexpr const char* kLogin = "/api/auth/login-email-password";
constexpr const char* kWrong = "not the admin password 0";

std::string behind_proxy(const std::string& extra = {}) { return "trustedProxies = [\"127.0.0.1\"]\n" + extra; }

HttpResponse login_from(const Http& http, const std::string& address, const std::string& password) {
    return http.post(kLogin, {{"email", Server::admin_email}, {"password", password}}, "",
                     {{"X-Forwarded-For", address}});
}

// `count` (even) wrong passwords from `address`, each refused with 401. Two at a
// time: each costs a password hash, and more at once only queue for the
// server's hashing slots on a busy machine.
void fail_from(const Http& http, const std::string& address, int count) {
    for (int done = 0; done < count; done += 2) {
        auto second = std::async(std::launch::async, [&] { return login_from(http, address, kWrong); });
        require_unauthorized(login_from(http, address, kWrong), "INVALID_CREDENTIALS");
        require_unauthorized(second.get(), "INVALID_CREDENTIALS");
    }
}

}  // namespace

TEST_CASE("login lock-out: an attacker's address is locked, the owner from another address logs in",
          "[serve][auth][lockout]") {
    // 4 attempts per (account, address) rather than the default 10: each wrong one costs a password hash.
    Server server({.config = behind_proxy("[rate_limit]\nlogin = \"4/300\"\n")});
    const auto http = server.http();
    const std::string attacker = "203.0.113.7";

    fail_from(http, attacker, 4);
    require_too_many(login_from(http, attacker, kWrong));
    // Locked for that address even with the right password: it stops guessing, not only failures.
    require_too_many(login_from(http, attacker, Server::admin_password));

    // The owner, elsewhere, is not locked out.
    require_login_response(login_from(http, "198.51.100.20", Server::admin_password), Server::admin_email, "admin");
    require_login_response(http.post(kLogin, {{"email", Server::admin_email}, {"password", Server::admin_password}}),
                           Server::admin_email, "admin");
    require_log_free_of(server, {kWrong, Server::admin_password});
}

TEST_CASE("login lock-out: logins that succeed do not count, only failures lock", "[serve][auth][lockout]") {
    Server server({.config = behind_proxy("[rate_limit]\nlogin = \"4/300\"\n")});
    const auto http = server.http();
    const std::string owner = "198.51.100.30";

    // Three good logins and three typos: seven attempts, but only three failures of the four allowed.
    for (int i = 0; i < 3; ++i)
        require_login_response(login_from(http, owner, Server::admin_password), Server::admin_email, "admin");
    for (int i = 0; i < 3; ++i) require_unauthorized(login_from(http, owner, kWrong), "INVALID_CREDENTIALS");
    require_login_response(login_from(http, owner, Server::admin_password), Server::admin_email, "admin");

    // The fourth failure is still allowed, the fifth is not, and then the right password waits too.
    require_unauthorized(login_from(http, owner, kWrong), "INVALID_CREDENTIALS");
    require_too_many(login_from(http, owner, kWrong));
    require_too_many(login_from(http, owner, Server::admin_password));
}

TEST_CASE("login back-off: failures from many addresses slow the account's logins but never lock them",
          "[serve][auth][lockout]") {
    // 2 attempts per (account, address), so the back-off starts after 5·2 = 10 failures.
    Server server({.config = behind_proxy("[rate_limit]\nlogin = \"2/300\"\n")});
    const auto http = server.http();

    // Ten failures from five addresses: each pair within its limit, no back-off yet.
    for (int i = 1; i <= 5; ++i) fail_from(http, "10.0.0." + std::to_string(i), 2);
    // One more, from a sixth address, starts it.
    require_unauthorized(login_from(http, "10.0.0.6", kWrong), "INVALID_CREDENTIALS");

    // The owner from a fresh address is told to wait a little…
    const auto held = login_from(http, "192.0.2.1", Server::admin_password);
    require_too_many(held);
    REQUIRE(held.has_header("Retry-After"));
    const int wait = std::stoi(held.header("Retry-After"));
    CHECK(wait >= 1);
    CHECK(wait <= 30);
    // …and gets in once the wait is over.
    std::this_thread::sleep_for(std::chrono::seconds(wait));
    require_login_response(login_from(http, "192.0.2.1", Server::admin_password), Server::admin_email, "admin");
}

}  // namespace abci::test::login_lockout_tests
