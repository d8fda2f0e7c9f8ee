// What an unauthenticated client can add to the database (issue 13): /abci
// requests refused before they are let in are counted into a few audit rows
// instead of a row each, yet every one of them is counted; wallet nonces are
// limited per client address and in number.

#include <filesystem>
#include <string>
#include <thread>

#include "serve/expect.hpp"
#include "serve/raw_http.hpp"
#include "support/tools.hpp"

namespace abci::test {

TEST_CASE("20,000 refused /abci requests (5,000 under the sanitizers) add a few hundred KB at most, and the audit "
          "log counts every one",
          "[serve][audit][tables]") {
    Server server;
    const auto database = std::filesystem::path(server.data_dir()) / "abci.db";
    // Stopped, the database is one file (the write-ahead log is folded in).
    server.stop();
    const auto before = static_cast<std::int64_t>(std::filesystem::file_size(database));
    server.restart();

    // Pipelined on one connection: no token or a forged one, paths of 1 KiB
    // that all differ, on a route, on no route and on the health route.
    // An instrumented server takes 30 s for 20,000 (its profile shows the
    // routes' regexes over 1 KiB paths and the error bodies' JSON); a quarter
    // of them takes the same ways through it.
    const int kRequests = sanitized_build() ? 5000 : 20000;
    std::string requests;
    for (int i = 0; i < kRequests; ++i) {
        const std::string tail = std::to_string(i) + std::string(1024, 'p');
        const std::string path = i % 3 == 0 ? "/abci/tokens/metadata/" + tail
                                 : i % 3 == 1 ? "/abci/no/such/" + tail
                                              : "/abci/health";
        requests += "GET " + path + " HTTP/1.1\r\nHost: a\r\n" + (i % 2 ? "Authorization: Bearer forged\r\n" : "") +
                    (i + 1 == kRequests ? "Connection: close\r\n" : "") + "\r\n";
    }
    const auto answers = exchange_from("127.0.0.1", server.port(), requests, std::chrono::seconds(120));
    const auto count = [&](const std::string& what) {
        std::size_t n = 0;
        for (auto at = answers.find(what); at != std::string::npos; at = answers.find(what, at + 1)) ++n;
        return n;
    };
    CHECK(count("HTTP/1.1 401 ") == 10);
    CHECK(count("HTTP/1.1 429 ") == static_cast<std::size_t>(kRequests - 10));

    server.stop();
    const auto added = static_cast<std::int64_t>(std::filesystem::file_size(database)) - before;
    WARN(kRequests << " refused requests added " << added << " bytes to the database");
    CHECK(added < 300 * 1024);

    server.restart();
    const auto admin = server.login_admin();
    // A request let in keeps a row of its own, with its path cut short (at a character's edge).
    std::string long_path = "/abci/no/such/x";  // 15 bytes: 256 falls inside a character
    for (int i = 0; i < 300; ++i) long_path += "%C3%A9";
    require_error(server.http().get(long_path, admin.token), 404, "not_found");
    const auto listed = server.http().get("/api/admin/audit?limit=1000", admin.token);
    REQUIRE(listed.status == 200);
    auto rows = listed.json["data"];
    REQUIRE(!rows.empty());
    const auto own = rows.back();
    rows.erase(rows.size() - 1);
    CHECK(own["actor"] == admin.id());
    CHECK(own["count"] == 1);
    const auto kept = own["path"].get<std::string>();
    CHECK(kept.size() <= 256 + 3);
    CHECK(kept.rfind("/abci/no/such/x\xc3\xa9", 0) == 0);
    CHECK(kept.substr(kept.size() - 5) == "\xc3\xa9\xe2\x80\xa6");  // é then …, no broken character
    std::int64_t counted = 0;
    for (const auto& row : rows) {
        INFO(row.dump());
        counted += row["count"].get<std::int64_t>();
        CHECK(row["path"].get<std::string>().size() < 64);
        CHECK(row["lastTime"].is_string());
        CHECK(row["clientAddress"] == "127.0.0.1");
    }
    // Two statuses, three routes, two callers (none and a forged token,
    // both unauthenticated), at most two windows: 24 rows at most.
    CHECK(rows.size() <= 24);
    CHECK(counted == kRequests);
}

TEST_CASE("wallet nonces are limited per client address and capped in number", "[serve][auth][tables]") {
    Server server({.config = "[auth.wallet]\nchainIds = [31337]\n\n[limits]\nwalletNonceRate = \"5/60\"\n"
                             "maxPendingWalletNonces = 8\n"});
    const auto nonce_from = [&](const char* source) {
        const auto answer = exchange_from(source, server.port(),
                                          "GET /api/auth/wallet-nonce HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
        INFO(answer);
        return answer;
    };
    for (int i = 0; i < 5; ++i) CHECK(status_of(nonce_from("127.0.0.1")) == 200);
    const auto limited = nonce_from("127.0.0.1");
    CHECK(status_of(limited) == 429);
    CHECK(limited.find("Retry-After: ") != std::string::npos);
    CHECK(body_of(limited)["error"] == "too_many_requests");

    // Another address has its own allowance, until eight are pending in all.
    for (int i = 0; i < 3; ++i) CHECK(status_of(nonce_from("127.0.0.2")) == 200);
    const auto full = nonce_from("127.0.0.2");
    CHECK(status_of(full) == 503);
    CHECK(body_of(full)["error"] == "unavailable");
}

}  // namespace abci::test
