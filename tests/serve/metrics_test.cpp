// The Prometheus listener of a real `abcictl serve` (issue 32): a port of its
// own answering GET /metrics, while the API's port knows no /metrics.

#include <sstream>

#include <fmt/format.h>

#include "serve/expect.hpp"
#include "support/cli_runner.hpp"
#include "support/eventually.hpp"
#include "support/metrics_scrape.hpp"

namespace abci::test {

TEST_CASE("metrics: GET /metrics on the listener's own port in Prometheus' text format, the API's port answers 404",
          "[serve][metrics]") {
    Server server({.env = metrics_env()});
    const Http metrics(metrics_url(server));
    const auto scrape = metrics.get("/metrics");
    REQUIRE(scrape.status == 200);
    CHECK(scrape.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8");
    CHECK(scrape.body.find("# TYPE abcictl_build_info gauge\n") != std::string::npos);
    CHECK(scrape.body.find("abcictl_build_info{") != std::string::npos);

    CHECK(server.http().get("/metrics").status == 404);
    CHECK(metrics.get("/").status == 404);
    for (const auto* family : {"process_cpu_seconds_total", "process_start_time_seconds", "process_open_fds",
                               "process_max_fds", "process_resident_memory_bytes", "process_virtual_memory_bytes"}) {
        INFO(family);
        CHECK(scrape.body.find(std::string("\n") + family + " ") != std::string::npos);
    }
}

TEST_CASE("metrics: HTTP requests by the route table's pattern, never the raw path, unknown paths are one series",
          "[serve][metrics]") {
    Server server({.env = metrics_env()});
    const Http metrics(metrics_url(server));
    const auto http = server.http();
    CHECK(http.get("/abci/contracts/mints/mint-one").status == 401);
    CHECK(http.get("/abci/contracts/mints/mint-two").status == 401);
    CHECK(http.get("/no/such/path").status == 404);
    (void)server.login_admin();
    const auto body = metrics.get("/metrics").body;
    INFO(body);
    CHECK(body.find("abcictl_http_requests_total{method=\"GET\",route=\"/abci/contracts/mints/{id}\",status_class=\"4xx\"} 2\n") !=
          std::string::npos);
    CHECK(body.find("abcictl_http_requests_total{method=\"POST\",route=\"/api/auth/login-email-password\",status_class=\"2xx\"} 1\n") !=
          std::string::npos);
    CHECK(body.find("abcictl_http_requests_total{method=\"GET\",route=\"unmatched\",status_class=\"4xx\"} 1\n") !=
          std::string::npos);
    CHECK(body.find("abcictl_http_request_duration_seconds_count{method=\"GET\",route=\"/abci/contracts/mints/{id}\"} 2\n") !=
          std::string::npos);
    CHECK(body.find("abcictl_http_requests_in_flight 0\n") != std::string::npos);
    CHECK(body.find("mint-one") == std::string::npos);
    CHECK(body.find("/no/such/path") == std::string::npos);
}

namespace {

/// The samples of a scrape in the text format: its lines that are not comments.
std::size_t series(const std::string& scrape) {
    std::size_t count = 0;
    std::istringstream lines(scrape);
    for (std::string line; std::getline(lines, line);)
        if (!line.empty() && line[0] != '#') ++count;
    return count;
}

}  // namespace

// Issue 32: a label from a bounded set only, whatever the clients send.
TEST_CASE("metrics: a thousand distinct unknown paths, methods and wallets add no series", "[serve][metrics]") {
    Server server({.env = metrics_env()});
    const Http metrics(metrics_url(server));
    const auto http = server.http();
    const auto before = metrics.get("/metrics").body;
    for (int i = 0; i < 1000; ++i) {
        CHECK(http.get("/unknown/" + std::to_string(i)).status == 404);
        if (i % 5 == 0) (void)http.send("VERB" + std::to_string(i), "/abci/x" + std::to_string(i), "");
        (void)http.get("/api/auth/wallet-nonce?address=" + fmt::format("0x{:040x}", i + 1));
    }
    const auto after = metrics.get("/metrics").body;
    INFO(after);
    CHECK(series(after) == series(before));
    CHECK(after.find("{method=\"GET\",route=\"unmatched\",status_class=\"4xx\"} 1000\n") != std::string::npos);
}

TEST_CASE("metrics: OpenMetrics 1.0 when the scraper's Accept header asks for it", "[serve][metrics]") {
    Server server({.env = metrics_env()});
    const Http metrics(metrics_url(server));
    // What Prometheus 2.x sends.
    const auto scrape = metrics.get("/metrics", {},
                                    {{"Accept", "application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
                                                "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"}});
    REQUIRE(scrape.status == 200);
    CHECK(scrape.header("Content-Type") == "application/openmetrics-text; version=1.0.0; charset=utf-8");
    CHECK(scrape.body.starts_with("# TYPE "));
    CHECK(scrape.body.ends_with("\n# EOF\n"));
    CHECK(scrape.body.find("# TYPE abcictl_build_info gauge\n") != std::string::npos);
    // A counter's family is named without _total, its samples with it; a name in base units has its # UNIT.
    CHECK(scrape.body.find("# TYPE abcictl_http_requests counter\n") != std::string::npos);
    CHECK(scrape.body.find("\nabcictl_http_requests_total{") != std::string::npos);
    CHECK(scrape.body.find("# TYPE process_cpu_seconds counter\n# UNIT process_cpu_seconds seconds\n") != std::string::npos);
    CHECK(scrape.body.find("# TYPE abcictl_http_request_duration_seconds histogram\n"
                           "# UNIT abcictl_http_request_duration_seconds seconds\n") != std::string::npos);
    CHECK(scrape.body.find("le=\"+Inf\"") != std::string::npos);
    CHECK(scrape.body.find("_total_total") == std::string::npos);
}

TEST_CASE("metrics: with metrics.tokenFile a scrape without its bearer token is 401", "[serve][metrics]") {
    TempDir dir;
    const auto token = dir.write("metrics.token", "s3cret-scrape-token\n");
    Server server({.config = "[metrics]\nlisten = \"127.0.0.1:0\"\ntokenFile = \"" + token + "\"\n"});
    const Http metrics(metrics_url(server));
    const auto refused = metrics.get("/metrics");
    CHECK(refused.status == 401);
    CHECK(refused.header("WWW-Authenticate") == "Bearer realm=\"metrics\"");
    CHECK(refused.body.find("abcictl_") == std::string::npos);
    CHECK(metrics.get("/metrics", "s3cret-scrape-tokex").status == 401);
    CHECK(metrics.get("/metrics", "s3cret-scrape-token-and-more").status == 401);
    CHECK(metrics.get("/metrics", "s3cret-scrape-token").status == 200);
    CHECK(server.log().find("s3cret") == std::string::npos);
}

TEST_CASE("metrics: connections the limits refuse and requests a rate limit refuses, by reason", "[serve][metrics]") {
    auto env = metrics_env();
    env["ABCI_RATE_LIMIT"] = "1/60";
    Server server({.config = "[rate_limit]\nlogin = \"1/60\"\n", .env = env});
    const Http metrics(metrics_url(server));
    const auto http = server.http();
    Headers many;
    for (int i = 0; i < 101; ++i) many.emplace_back("X-Filler-" + std::to_string(i), "x");
    CHECK(http.get("/readyz", {}, many).status == 431);
    CHECK(http.get("/abci/health").status == 401);
    CHECK(http.get("/abci/health").status == 429);
    const nlohmann::json wrong{{"email", Server::admin_email}, {"password", "not the password"}};
    CHECK(http.post("/api/auth/login-email-password", wrong).status == 401);
    CHECK(http.post("/api/auth/login-email-password", wrong).status == 429);
    const auto body = metrics.get("/metrics").body;
    INFO(body);
    CHECK(body.find("abcictl_http_connections_refused_total{reason=\"header_limit\"} 1\n") != std::string::npos);
    CHECK(body.find("abcictl_http_connections_refused_total{reason=\"capacity\"} 0\n") != std::string::npos);
    CHECK(body.find("abcictl_http_rate_limited_total{limit=\"abci\"} 1\n") != std::string::npos);
    CHECK(body.find("abcictl_http_rate_limited_total{limit=\"api\"} 0\n") != std::string::npos);
    CHECK(body.find("abcictl_http_rate_limited_total{limit=\"login\"} 1\n") != std::string::npos);
    CHECK(body.find("abcictl_http_rate_limited_total{limit=\"wallet_nonce\"} 0\n") != std::string::npos);
}

TEST_CASE("metrics: the store's transactions by backend and the audit rows it writes", "[serve][metrics]") {
    Server server({.env = metrics_env()});
    const Http metrics(metrics_url(server));
    const auto admin = server.login_admin();
    CHECK(server.http().get("/abci/blockchains/list", admin.token).status == 200);
    std::string body;
    // The audit row is committed by a writer of its own, a few milliseconds later.
    CHECK(eventually([&] {
        body = metrics.get("/metrics").body;
        return body.find("abcictl_audit_rows_written_total 1\n") != std::string::npos;
    }));
    INFO(body);
    CHECK(body.find("abcictl_audit_rows_dropped_total 0\n") != std::string::npos);
    CHECK(body.find("abcictl_store_errors_total{backend=\"sqlite\"} 0\n") != std::string::npos);
    CHECK(body.find("abcictl_store_transaction_duration_seconds_count{backend=\"sqlite\"} ") != std::string::npos);
    CHECK(body.find("abcictl_store_transaction_duration_seconds_count{backend=\"sqlite\"} 0\n") == std::string::npos);
}

TEST_CASE("metrics: off unless metrics.listen is set, the API's port still answers 404 for /metrics", "[serve][metrics]") {
    Server server;
    CHECK(server.http().get("/metrics").status == 404);
    CHECK(server.log().find("serving metrics") == std::string::npos);
}

}  // namespace abci::test
