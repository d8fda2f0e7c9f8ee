// What a real `abcictl serve` counts of the clients it refuses (issue 32):
// credentials by the method that refused them and password lockouts, with no
// user, e-mail or address in a label; connections the caps refuse, by cap.

#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "serve/expect.hpp"
#include "serve/raw_http.hpp"
#include "support/metrics_scrape.hpp"

namespace abci::test {

namespace {

/// Whether `scrape` holds the sample line `sample` ("name{labels} value") exactly.
bool has_sample(const std::string& scrape, const std::string& sample) {
    return scrape.find("\n" + sample + "\n") != std::string::npos;
}

std::string failures(const char* method, int count) {
    return std::string("abcictl_auth_failures_total{method=\"") + method + "\"} " + std::to_string(count);
}

std::string lockouts(const char* scope, int count) {
    return std::string("abcictl_auth_lockouts_total{scope=\"") + scope + "\"} " + std::to_string(count);
}

constexpr const char* kMethods[] = {"password", "siwe", "oidc", "refresh", "access_token", "api_key"};

}  // namespace

TEST_CASE("metrics: refused credentials by method, password lockouts by budget, successes count nothing",
          "[serve][metrics][auth]") {
    // 3 failures of one account from one address lock it there; the address's budget over all accounts is 15.
    Server server({.config = "[rate_limit]\nlogin = \"3/60\"\n[auth.wallet]\nchainIds = [31337]\n",
                   .env = metrics_env()});
    const Http metrics(metrics_url(server));
    const auto http = server.http();
    const auto scrape = [&] { return metrics.get("/metrics").body; };

    const auto before = scrape();
    INFO(before);
    for (const auto* method : kMethods) CHECK(has_sample(before, failures(method, 0)));
    CHECK(has_sample(before, lockouts("account", 0)));
    CHECK(has_sample(before, lockouts("address", 0)));

    // Successes of every method a test can run alone move nothing.
    const auto admin = server.login_admin();
    CHECK(http.get("/api/auth/me", admin.token).status == 200);
    const auto key = server.create_api_key("monitor", {"abci:health"});
    CHECK(http.get("/abci/health", key).status != 401);
    CHECK(http.post("/api/auth/refresh", {{"refresh_token", admin.refresh_token}}).status == 200);
    const auto quiet = scrape();
    for (const auto* method : kMethods) CHECK(has_sample(quiet, failures(method, 0)));

    const auto login = [&](const std::string& email) {
        return http.post("/api/auth/login-email-password", {{"email", email}, {"password", "not the password"}}).status;
    };
    // The admin's account from this address: three wrong passwords lock it, the fourth is refused unchecked.
    for (int i = 0; i < 3; ++i) CHECK(login(Server::admin_email) == 401);
    CHECK(login(Server::admin_email) == 429);
    auto after = scrape();
    CHECK(has_sample(after, failures("password", 3)));
    CHECK(has_sample(after, lockouts("account", 1)));
    CHECK(has_sample(after, lockouts("address", 0)));

    // The address has used 4 of its 15 (the refused attempt counts, the success was forgiven): 11 more
    // failures, 3 each on three accounts (three more account lockouts), one more and an unknown e-mail,
    // lock the address.
    server.add_users({{"grower-0@example.org", "farmer", "grower pass phrase 0"},
                      {"grower-1@example.org", "farmer", "grower pass phrase 1"},
                      {"grower-2@example.org", "farmer", "grower pass phrase 2"},
                      {"grower-3@example.org", "farmer", "grower pass phrase 3"}});
    for (int i = 0; i < 10; ++i) CHECK(login("grower-" + std::to_string(i / 3) + "@example.org") == 401);
    CHECK(login("nobody@example.org") == 401);
    CHECK(login("someone-else@example.org") == 429);
    after = scrape();
    CHECK(has_sample(after, failures("password", 14)));
    CHECK(has_sample(after, lockouts("account", 4)));
    CHECK(has_sample(after, lockouts("address", 1)));

    // Each other method once. A malformed request (400) is not a refused credential.
    CHECK(http.get("/api/auth/me", "not.a.token").status == 401);
    CHECK(http.get("/api/auth/me", "abci_" + std::string(43, 'A')).status == 401);
    CHECK(http.post("/api/auth/refresh", {{"refresh_token", "no-such-refresh-token"}}).status == 401);
    CHECK(http.post("/api/auth/idp-exchange", {{"code", "no-such-code"}}).status == 401);
    const std::string siwe = "evil.example.net wants you to sign in with your Ethereum account:\n"
                             "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266\n\nSign in to ABCI\n\n"
                             "URI: " + server.url() + "\nVersion: 1\nChain ID: 31337\nNonce: abcdefgh12\n"
                             "Issued At: 2026-01-01T00:00:00Z";
    const nlohmann::json wallet{{"address", "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"},
                                {"signature", "0x" + std::string(128, '1') + "1b"},
                                {"message", siwe}};
    CHECK(http.post("/api/auth/wallet-connect", wallet).status == 401);
    CHECK(http.post("/api/auth/wallet-connect", {{"address", "0x12"}, {"signature", "0x"}, {"message", "x"}}).status ==
          400);
    after = scrape();
    INFO(after);
    for (const auto* method : {"siwe", "oidc", "refresh", "access_token", "api_key"}) CHECK(has_sample(after, failures(method, 1)));
    CHECK(has_sample(after, failures("password", 14)));
    // No label names who tried: neither an e-mail nor a wallet.
    CHECK(after.find("example.org") == std::string::npos);
    CHECK(after.find("@") == std::string::npos);
    CHECK(after.find("0xf39F") == std::string::npos);
    CHECK(after.find("f39fd6") == std::string::npos);
}

TEST_CASE("metrics: connections refused by the per-client cap and by capacity, each its own reason",
          "[serve][metrics][connections]") {
    // 8 connections, the last 2 only for addresses holding none, 3 from one address.
    Server server({.config = "[limits]\nmaxConnections = 8\nconnectionReserve = 2\nmaxConnectionsPerClient = 3\n",
                   .env = metrics_env()});
    const Http metrics(metrics_url(server));
    std::vector<int> held;
    // A connection reading its request head: not idle, so nothing is closed to make room for another.
    const auto hold = [&](const char* source) {
        const int fd = connect_from(source, server.port());
        REQUIRE(fd >= 0);
        REQUIRE(send_text(fd, "GET /no/such HTTP/1.1\r\n"));
        held.push_back(fd);
        // Taken in by the server before the next one comes.
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    };
    const auto refused = [&](const char* source) {
        const int fd = connect_from(source, server.port());
        REQUIRE(fd >= 0);
        send_text(fd, "GET /no/such HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
        const auto answer = read_until_closed(fd, std::chrono::seconds(5));
        ::close(fd);
        return status_of(answer);
    };
    for (int i = 0; i < 3; ++i) hold("127.0.0.1");
    CHECK(refused("127.0.0.1") == 503);  // its own cap
    for (int i = 0; i < 3; ++i) hold("127.0.0.2");
    CHECK(refused("127.0.0.2") == 503);  // its own cap
    hold("127.0.0.3");                     // 7 of 8: the reserve, for an address holding none
    CHECK(refused("127.0.0.3") == 503);  // the server is full for an address holding one
    const auto body = metrics.get("/metrics").body;
    INFO(body);
    CHECK(has_sample(body, "abcictl_http_connections_refused_total{reason=\"per_client\"} 2"));
    CHECK(has_sample(body, "abcictl_http_connections_refused_total{reason=\"capacity\"} 1"));
    for (const int fd : held) ::close(fd);
}

// The metrics port takes connections from whoever reaches it, before any token is checked.
TEST_CASE("metrics: idle sockets from many addresses leave a scrape its answer, a slowloris is cut",
          "[serve][metrics][connections]") {
    Server server({.env = metrics_env()});
    const Http metrics(metrics_url(server));
    const auto port = static_cast<std::uint16_t>(std::stoi(metrics_url(server).substr(metrics_url(server).rfind(':') + 1)));

    // 60 addresses, 5 sockets each, that never send a byte.
    const auto connecting = RawClock::now();
    std::vector<int> idle;
    for (int address = 0; address < 60; ++address) {
        const auto source = "127.0.3." + std::to_string(address + 1);
        for (int i = 0; i < 5; ++i)
            if (const int fd = connect_from(source.c_str(), port); fd >= 0) idle.push_back(fd);
    }
    CHECK(idle.size() == 300);
    // With cpp-httplib's backlog of 5 the flood's own connections were dropped and retried a second later:
    // 300 took half a minute.
    CHECK(RawClock::now() - connecting < std::chrono::seconds(10));
    // Past the grace in which a connection reading its first request is not shed for a newcomer.
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    const auto started = RawClock::now();
    const auto scrape = metrics.get("/metrics");
    const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(RawClock::now() - started);
    CHECK(scrape.status == 200);
    CHECK(scrape.body.find("abcictl_build_info{") != std::string::npos);
    WARN("a scrape among 300 idle sockets answered in " << took.count() << " ms");
    CHECK(took < std::chrono::seconds(3));
    for (const int fd : idle) ::close(fd);

    // A header byte every 300 ms: each read is prompt, the head as a whole is not.
    const int slow = connect_from("127.0.0.5", port);
    REQUIRE(slow >= 0);
    send_text(slow, "GET /metrics HTTP/1.1\r\n");
    const auto slow_started = RawClock::now();
    std::string answer;
    while (answer.empty() && RawClock::now() - slow_started < std::chrono::seconds(15)) {
        send_text(slow, "X");
        answer = read_until_closed(slow, std::chrono::milliseconds(300));
    }
    const auto held = std::chrono::duration_cast<std::chrono::milliseconds>(RawClock::now() - slow_started);
    ::close(slow);
    INFO(answer);
    CHECK(status_of(answer) == 408);
    CHECK(held < std::chrono::seconds(8));
}

}  // namespace abci::test
