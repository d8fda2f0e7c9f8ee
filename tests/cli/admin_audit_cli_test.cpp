// `abcictl admin audit` through the real binary, on entries the test appends
// through the store as the server does.

#include <SQLiteCpp/SQLiteCpp.h>
#include <catch2/catch.hpp>
#include <chrono>
#include <nlohmann/json.hpp>
#include <regex>

#include "admin_data_dir.hpp"
#include "core/util/time.hpp"

namespace abci::test {
namespace {

using namespace std::chrono_literals;

TEST_CASE("admin audit on an empty log prints the headers only, or []", "[cli][admin][audit]") {
    const AdminDataDir data;
    data.add_user("root@example.com", "admin");
    CHECK(data.ok({"admin", "audit"}) == "TIME  ACTOR  METHOD  PATH  STATUS  CLIENT  REQUEST-ID\n");
    CHECK(data.json({"admin", "audit"}) == nlohmann::json::array());
    CHECK(data.ok({"-q", "admin", "audit"}).empty());
}

TEST_CASE("admin audit --oldest-first lists entries oldest first, filtered by --since and cut by --limit", "[cli][admin][audit]") {
    const AdminDataDir data;
    const std::string admin_id = data.add_user("root@example.com", "admin").at("id");
    // Whole seconds, so the printed milliseconds are exact.
    const auto now = std::chrono::time_point_cast<std::chrono::seconds>(std::chrono::system_clock::now());
    const std::vector<store::AuditEntry> entries{
        {0, now - 3h, "", "POST", "/api/auth/login", 401, "127.0.0.1", "req-1"},
        {0, now - 2h, admin_id, "GET", "/api/admin/users", 200, "10.0.0.2", "req-2"},
        {0, now - 5min, "apikey:k1", "GET", "/abci/health", 200, "10.0.0.3", "req-3"},
    };
    {
        const auto store = data.open_store();
        for (const auto& entry : entries) store->audit().append(entry);
    }

    const nlohmann::json all = data.json({"admin", "audit", "--oldest-first"});
    REQUIRE(all.size() == 3);
    CHECK(all[0].at("time") == util::format_iso8601_utc(now - 3h));
    CHECK(all[0].at("actor") == "");
    CHECK(all[0].at("method") == "POST");
    CHECK(all[0].at("path") == "/api/auth/login");
    CHECK(all[0].at("status") == 401);
    CHECK(all[0].at("clientAddress") == "127.0.0.1");
    CHECK(all[0].at("requestId") == "req-1");
    CHECK(all[1].at("actor") == admin_id);
    CHECK(all[1].at("actorEmail") == "root@example.com");
    CHECK(all[2].at("requestId") == "req-3");
    CHECK(all[0].at("id") < all[1].at("id"));

    const auto request_ids = [&](const std::vector<std::string>& args) {
        std::vector<std::string> ids;
        auto oldest_first = args;
        oldest_first.push_back("--oldest-first");
        for (const auto& entry : data.json(oldest_first)) ids.push_back(entry.at("requestId"));
        return ids;
    };
    using Ids = std::vector<std::string>;
    CHECK(request_ids({"admin", "audit", "--since", "1h"}) == Ids{"req-3"});
    CHECK(request_ids({"admin", "audit", "--since", "150m"}) == Ids{"req-2", "req-3"});
    CHECK(request_ids({"admin", "audit", "--since", "1d"}) == Ids{"req-1", "req-2", "req-3"});
    // An ISO 8601 time is inclusive, in UTC or with an offset.
    CHECK(request_ids({"admin", "audit", "--since", util::format_iso8601_utc(now - 2h)}) == Ids{"req-2", "req-3"});
    std::string two_hours_ago_in_utc_plus_2 = util::format_iso8601_utc(now);
    two_hours_ago_in_utc_plus_2.replace(two_hours_ago_in_utc_plus_2.size() - 1, 1, "+02:00");
    CHECK(request_ids({"admin", "audit", "--since", two_hours_ago_in_utc_plus_2}) == Ids{"req-2", "req-3"});
    CHECK(request_ids({"admin", "audit", "--since", util::format_iso8601_utc(now + 1s)}).empty());
    CHECK(request_ids({"admin", "audit", "--limit", "2"}) == Ids{"req-1", "req-2"});

    const auto table = lines_of(data.ok({"admin", "audit", "--oldest-first"}));
    REQUIRE(table.size() == 4);
    CHECK(table[0].rfind("TIME", 0) == 0);
    // An unauthenticated request has no actor: shown as "-".
    CHECK(std::regex_match(table[1], std::regex(util::format_iso8601_utc(now - 3h) +
                                                " +- +POST +/api/auth/login +401 +127\\.0\\.0\\.1 +req-1")));
    CHECK(table[3].find("apikey:k1") != std::string::npos);

    for (const std::string bad : {"yesterday", "15", "m", "2026-13-01T00:00:00Z", "9999999999d"}) {
        const auto r = data.run({"admin", "audit", "--since", bad});
        INFO("--since " << bad << ": " << r.err);
        CHECK(r.exit_code == 2);
        CHECK(r.err.find("15m") != std::string::npos);
    }
    CHECK(data.run({"admin", "audit", "--limit", "0"}).exit_code == 2);
}

// Issue 14: an operator's `--limit 5` wants the latest five, and knows people by e-mail.
TEST_CASE("admin audit: newest first by default, users by e-mail, filtered by actor, status and path",
          "[cli][admin][audit]") {
    const AdminDataDir data;
    const std::string admin_id = data.add_user("root@example.com", "admin").at("id");
    const std::string other_id = data.add_user("ann@example.com", "farmer").at("id");
    const auto now = std::chrono::time_point_cast<std::chrono::seconds>(std::chrono::system_clock::now());
    {
        const auto store = data.open_store();
        store->audit().append({0, now - 4h, "", "POST", "/api/auth/login-email-password", 401, "127.0.0.1", "req-1"});
        store->audit().append({0, now - 3h, admin_id, "GET", "/api/admin/users", 200, "10.0.0.2", "req-2"});
        store->audit().append({0, now - 2h, other_id, "POST", "/abci/contracts/mint-role-token", 403, "10.0.0.4", "req-3"});
        store->audit().append({0, now - 1h, "apikey:k1", "GET", "/abci/health", 200, "10.0.0.3", "req-4"});
    }
    const auto request_ids = [&](std::vector<std::string> args) {
        args.insert(args.begin(), {"admin", "audit"});
        std::vector<std::string> ids;
        for (const auto& entry : data.json(args)) ids.push_back(entry.at("requestId"));
        return ids;
    };
    using Ids = std::vector<std::string>;
    CHECK(request_ids({}) == Ids{"req-4", "req-3", "req-2", "req-1"});
    CHECK(request_ids({"--limit", "2"}) == Ids{"req-4", "req-3"});
    CHECK(request_ids({"--actor", "ann@example.com"}) == Ids{"req-3"});
    CHECK(request_ids({"--actor", admin_id}) == Ids{"req-2"});
    CHECK(request_ids({"--actor", "apikey:k1"}) == Ids{"req-4"});
    CHECK(request_ids({"--status", "4xx"}) == Ids{"req-3", "req-1"});
    CHECK(request_ids({"--status", "403"}) == Ids{"req-3"});
    CHECK(request_ids({"--path", "/abci/"}) == Ids{"req-4", "req-3"});
    CHECK(request_ids({"--path", "/abci/", "--status", "2xx"}) == Ids{"req-4"});
    CHECK(request_ids({"--path", "%"}).empty());  // no LIKE wildcards: a prefix is a prefix

    const auto table = lines_of(data.ok({"admin", "audit"}));
    REQUIRE(table.size() == 5);
    CHECK(table[2].find("ann@example.com") != std::string::npos);
    CHECK(table[3].find("root@example.com") != std::string::npos);
    CHECK(table[3].find(admin_id) == std::string::npos);

    const auto unknown = data.run({"admin", "audit", "--actor", "nobody@example.com"});
    CHECK(unknown.exit_code == 1);
    CHECK(unknown.err.find("abcictl admin user list") != std::string::npos);
    CHECK(data.run({"admin", "audit", "--status", "4x"}).exit_code == 2);
}

TEST_CASE("admin audit lists, escaped, the rows an older release stored with a NUL or 0xFF in a path",
          "[cli][admin][audit]") {
    const AdminDataDir data;
    data.add_user("root@example.com", "admin");
    {
        // As the release before text was checked recorded a request for /abci/%FF and one for /abci/x%00y.
        SQLite::Database file(data.database(), SQLite::OPEN_READWRITE);
        file.exec("INSERT INTO audit_log (time, actor, method, path, status, client_address, request_id) VALUES "
                  "(1000, 'u', 'GET', CAST(x'2f616263692fff' AS TEXT), 403, '127.0.0.1', 'r-ff'), "
                  "(2000, 'u', 'GET', '/abci/x' || char(0) || 'y', 403, '127.0.0.1', 'r-nul')");
    }
    const nlohmann::json rows = data.json({"admin", "audit", "--oldest-first"});
    REQUIRE(rows.size() == 2);
    CHECK(rows[0].at("path") == "/abci/%FF");
    CHECK(rows[1].at("path") == "/abci/x%00y");
    const auto table = data.ok({"admin", "audit"});
    CHECK(table.find("/abci/%FF") != std::string::npos);
    CHECK(table.find("/abci/x%00y") != std::string::npos);
    // The prefix filter still finds them.
    CHECK(data.json({"admin", "audit", "--path", "/abci/"}).size() == 2);
}

}  // namespace
}  // namespace abci::test
