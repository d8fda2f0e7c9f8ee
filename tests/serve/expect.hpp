#pragma once
// The answers of the HTTP contract (docs/api.md, spec §7) that many tests of
// the server check, each as one assertion helper.

#include <catch2/catch.hpp>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "support/cli_runner.hpp"
#include "support/serve.hpp"

namespace abci::test {

/// Seconds since the epoch now (for forged tokens' claims).
inline std::int64_t unix_now() {
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

/// Exactly the keys `keys` in `object` (no more, no fewer).
inline bool has_exactly_keys(const nlohmann::json& object, std::vector<std::string> keys) {
    if (!object.is_object() || object.size() != keys.size()) return false;
    for (const auto& k : keys)
        if (!object.contains(k)) return false;
    return true;
}

/// 401 {error:"unauthorized", message, code:`code`} and nothing else.
inline void require_unauthorized(const HttpResponse& r, const std::string& code) {
    INFO(r.status << " " << r.body);
    CHECK(r.status == 401);
    CHECK(has_exactly_keys(r.json, {"error", "message", "code"}));
    if (r.status != 401 || !r.json.is_object()) return;
    CHECK(r.json["error"] == "unauthorized");
    CHECK(r.json["message"].is_string());
    CHECK(r.json["code"] == code);
}

/// 403 {error:"forbidden", message, code:"INSUFFICIENT_PERMISSIONS"} and nothing else.
inline void require_forbidden(const HttpResponse& r) {
    INFO(r.status << " " << r.body);
    CHECK(r.status == 403);
    CHECK(has_exactly_keys(r.json, {"error", "message", "code"}));
    if (r.status != 403 || !r.json.is_object()) return;
    CHECK(r.json["error"] == "forbidden");
    CHECK(r.json["message"].is_string());
    CHECK(r.json["code"] == "INSUFFICIENT_PERMISSIONS");
}

/// `status` with {error:`error`, message}.
inline void require_error(const HttpResponse& r, int status, const std::string& error) {
    INFO(r.status << " " << r.body);
    CHECK(r.status == status);
    CHECK(r.json.is_object());
    if (r.status != status || !r.json.is_object()) return;
    CHECK(r.json["error"] == error);
    CHECK(r.json.value("message", nlohmann::json()).is_string());
}

/// 400 {error:"invalid_request", details:[…]} with at least one detail.
inline void require_invalid_request(const HttpResponse& r) {
    INFO(r.status << " " << r.body);
    CHECK(r.status == 400);
    CHECK(r.json.is_object());
    if (r.status != 400 || !r.json.is_object()) return;
    CHECK(r.json["error"] == "invalid_request");
    CHECK(r.json.contains("details"));
    CHECK(r.json["details"].is_array());
    CHECK(!r.json["details"].empty());
}

/// 429 {error:"too_many_requests", message} with a positive Retry-After.
inline void require_too_many(const HttpResponse& r) {
    require_error(r, 429, "too_many_requests");
    INFO(r.body);
    CHECK(r.has_header("Retry-After"));
    if (!r.has_header("Retry-After")) return;
    CHECK(std::stoi(r.header("Retry-After")) > 0);
}

/// 200 with exactly the login response of spec 5.3 plus refresh_token, for
/// `email` in `role`; returns its session.
inline Session require_login_response(const HttpResponse& r, const std::string& email, const std::string& role) {
    INFO(r.status << " " << r.body);
    REQUIRE(r.status == 200);
    REQUIRE(has_exactly_keys(r.json, {"success", "token", "expires_in", "refresh_token", "user"}));
    CHECK(r.json["success"] == true);
    REQUIRE(r.json["token"].is_string());
    REQUIRE(r.json["refresh_token"].is_string());
    CHECK(r.json["token"] != r.json["refresh_token"]);
    CHECK(r.json["expires_in"].is_number_integer());
    const auto& user = r.json["user"];
    REQUIRE(has_exactly_keys(user, {"id", "email", "role", "verified"}));
    CHECK(user["id"].is_string());
    CHECK(user["email"] == email);
    CHECK(user["role"] == role);
    CHECK(user["verified"].is_boolean());
    return Session{r.json["token"].get<std::string>(), r.json["refresh_token"].get<std::string>(), user};
}

/// None of `secrets` (passwords, tokens, keys) occurs in the server's log.
inline void require_log_free_of(const Server& server, const std::vector<std::string>& secrets) {
    const auto log = server.log();
    for (const auto& secret : secrets) {
        INFO("secret starting " << secret.substr(0, 6) << " is in the server log");
        CHECK(log.find(secret) == std::string::npos);
    }
}

/// `abcictl serve` refuses to start with each config file: exit code 2 and
/// one line saying what its pair expects (the setting named, and why).
inline void require_refused_configs(const std::vector<std::pair<std::string, std::string>>& cases) {
    CleanHome home;
    for (const auto& [config, says] : cases) {
        INFO(config << "\nexpected: " << says);
        const auto path = home.write("serve.toml", config);
        const auto result = run_abcictl({"serve", "--config", path, "--data-dir", home / "data"}, {}, home.env());
        INFO("stderr: " << result.err);
        CHECK(result.exit_code == 2);
        CHECK(result.err.find(says) != std::string::npos);
        CHECK(std::count(result.err.begin(), result.err.end(), '\n') == 1);
    }
}

}  // namespace abci::test
