// Password login, the session routes (me, refresh, logout) and the brute-force
// limit, against a real `abcictl serve`.

#include <chrono>
#include <future>

#include "serve/expect.hpp"

namespace abci::test {

TEST_CASE("password login: response shape, refusals, me, refresh rotation and reuse, logout", "[serve][auth]") {
    Server server;
    const auto http = server.http();
    const std::string path = "/api/auth/login-email-password";

    const auto first = http.post(path, {{"email", Server::admin_email}, {"password", Server::admin_password}});
    const auto admin = require_login_response(first, Server::admin_email, "admin");
    CHECK(first.json["expires_in"] == 3600);
    CHECK(!first.header("X-Request-Id").empty());
    std::vector<std::string> secrets{Server::admin_password, admin.token, admin.refresh_token};
    Session second;  // another session of the same user

    {  // wrong password, unknown e-mail and a password-less body are refused alike
        const std::string wrong = "Tr0ub4dor&3-not-it";
        secrets.push_back(wrong);
        const auto timed = [&](const std::string& email) {
            const auto start = std::chrono::steady_clock::now();
            auto r = http.post(path, {{"email", email}, {"password", wrong}});
            return std::pair(r, std::chrono::steady_clock::now() - start);
        };
        const auto [wrong_password, wrong_password_time] = timed(Server::admin_email);
        const auto [unknown_email, unknown_email_time] = timed("nobody@example.org");
        require_unauthorized(wrong_password, "INVALID_CREDENTIALS");
        require_unauthorized(unknown_email, "INVALID_CREDENTIALS");
        CHECK(wrong_password.json["message"] == unknown_email.json["message"]);
        // An unknown account costs a password hash too (generously: half the time of a wrong password).
        CHECK(unknown_email_time * 2 > wrong_password_time);
        require_unauthorized(http.post(path, {{"email", "admin@example.com"}, {"password", Server::admin_password}}),
                             "INVALID_CREDENTIALS");
        require_invalid_request(http.post(path, {{"email", Server::admin_email}}));
        require_invalid_request(http.post(path, {{"password", wrong}}));
        require_invalid_request(http.post(path, {{"email", 7}, {"password", wrong}}));
        require_invalid_request(http.post(path, nlohmann::json::array()));
    }

    {  // a redirect must be loopback or an allowed origin
        require_invalid_request(http.post(path, {{"email", Server::admin_email},
                                                 {"password", Server::admin_password},
                                                 {"redirect", "https://evil.example.net/steal"}}));
        const auto ok = http.post(path, {{"email", Server::admin_email},
                                         {"password", Server::admin_password},
                                         {"redirect", "http://127.0.0.1:43123/done"}});
        second = require_login_response(ok, Server::admin_email, "admin");
        secrets.insert(secrets.end(), {second.token, second.refresh_token});
    }

    {  // me answers the caller with their wallets; no or a non-bearer credential is MISSING_TOKEN
        const auto me = http.get("/api/auth/me", admin.token);
        INFO(me.body);
        REQUIRE(me.status == 200);
        CHECK(me.json["success"] == true);
        CHECK(me.json["user"]["id"] == admin.id());
        CHECK(me.json["user"]["email"] == Server::admin_email);
        CHECK(me.json["user"]["role"] == "admin");
        CHECK(me.json["user"]["wallets"].is_array());
        require_unauthorized(http.get("/api/auth/me"), "MISSING_TOKEN");
        require_unauthorized(http.get("/api/auth/me", "", {{"Authorization", "Basic YWRtaW46cHc="}}),
                             "MISSING_TOKEN");
        require_unauthorized(http.get("/api/auth/me", "not-a-token"), "INVALID_TOKEN");
    }

    {  // refresh refuses garbage, a missing token and an access token
        require_unauthorized(http.post("/api/auth/refresh", {{"refresh_token", "bm90LWEtcmVmcmVzaC10b2tlbg"}}),
                             "INVALID_TOKEN");
        require_invalid_request(http.post("/api/auth/refresh", nlohmann::json::object()));
        const auto access_as_refresh = http.post("/api/auth/refresh", {{"refresh_token", admin.token}});
        // Not shaped like a refresh token at all (a JWT): malformed input, as a missing one.
        require_invalid_request(access_as_refresh);
    }

    {  // refresh rotates; a spent refresh token presented again revokes the whole session
        const auto rotated = http.post("/api/auth/refresh", {{"refresh_token", second.refresh_token}});
        const auto third = require_login_response(rotated, Server::admin_email, "admin");
        secrets.insert(secrets.end(), {third.token, third.refresh_token});
        CHECK(third.token != second.token);
        CHECK(third.refresh_token != second.refresh_token);
        REQUIRE(http.get("/api/auth/me", third.token).status == 200);

        // Reuse of the spent one: refused, and the family's newer refresh token dies with it
        // (its access tokens too: see the next test case).
        require_unauthorized(http.post("/api/auth/refresh", {{"refresh_token", second.refresh_token}}),
                             "INVALID_TOKEN");
        require_unauthorized(http.post("/api/auth/refresh", {{"refresh_token", third.refresh_token}}),
                             "INVALID_TOKEN");
        // Another session (the first login) is untouched.
        CHECK(http.get("/api/auth/me", admin.token).status == 200);
    }

    const auto survivor = server.login_admin();
    secrets.insert(secrets.end(), {survivor.token, survivor.refresh_token});

    {  // logout: the access token and its refresh tokens stop working at once
        const auto out = http.post("/api/auth/logout", nlohmann::json::object(), admin.token);
        INFO(out.body);
        REQUIRE(out.status == 200);
        CHECK(out.json["success"] == true);
        CHECK(out.json["message"].is_string());
        require_unauthorized(http.get("/api/auth/me", admin.token), "INVALID_TOKEN");
        require_unauthorized(http.post("/api/auth/logout", nlohmann::json::object(), admin.token), "INVALID_TOKEN");
        require_unauthorized(http.post("/api/auth/refresh", {{"refresh_token", admin.refresh_token}}),
                             "INVALID_TOKEN");
        require_unauthorized(http.post("/api/auth/logout", nlohmann::json::object()), "MISSING_TOKEN");
        CHECK(http.get("/api/auth/me", survivor.token).status == 200);
    }

    {  // sessions and revocations survive a restart
        server.restart();
        CHECK(http.get("/api/auth/me", survivor.token).status == 200);
        require_unauthorized(http.get("/api/auth/me", admin.token), "INVALID_TOKEN");
        const auto renewed = http.post("/api/auth/refresh", {{"refresh_token", survivor.refresh_token}});
        secrets.push_back(require_login_response(renewed, Server::admin_email, "admin").refresh_token);
    }

    require_log_free_of(server, secrets);
}

// Reuse detection revokes the session: its refresh tokens and its access tokens.
TEST_CASE("refresh-token reuse ends the session's access tokens too", "[serve][auth]") {
    Server server;
    const auto http = server.http();
    const auto first = server.login_admin();
    const auto rotated = http.post("/api/auth/refresh", {{"refresh_token", first.refresh_token}});
    const auto second = require_login_response(rotated, Server::admin_email, "admin");
    REQUIRE(http.get("/api/auth/me", second.token).status == 200);
    require_unauthorized(http.post("/api/auth/refresh", {{"refresh_token", first.refresh_token}}), "INVALID_TOKEN");
    require_unauthorized(http.get("/api/auth/me", second.token), "INVALID_TOKEN");
    require_unauthorized(http.get("/api/auth/me", first.token), "INVALID_TOKEN");
}

TEST_CASE("brute force: the 11th wrong password for one account is refused with 429", "[serve][auth]") {
    Server server;
    const auto http = server.http();
    const std::string path = "/api/auth/login-email-password";
    const std::string wrong = "guess-number-n0t-right";
    // Ten wrong attempts at once: each costs the server a password hash.
    std::vector<std::future<HttpResponse>> attempts;
    for (int i = 0; i < 10; ++i)
        attempts.push_back(std::async(std::launch::async, [&] {
            return http.post(path, {{"email", Server::admin_email}, {"password", wrong}});
        }));
    for (auto& a : attempts) require_unauthorized(a.get(), "INVALID_CREDENTIALS");

    const auto limited = http.post(path, {{"email", Server::admin_email}, {"password", wrong}});
    require_too_many(limited);
    // The limit holds for the right password too: it stops guessing, not only failures.
    require_too_many(http.post(path, {{"email", Server::admin_email}, {"password", Server::admin_password}}));
    require_log_free_of(server, {wrong, Server::admin_password});
}

}  // namespace abci::test
