// The Prometheus listener of a real `abcictl serve` (issue 32): a port of its
// own answering GET /metrics, while the API's port knows no /metrics.

#include "serve/expect.hpp"
#include "support/metrics_scrape.hpp"

namespace abci::test {

TEST_CASE("metrics: GET /metrics on the listener's own port in Prometheus' text format; the API's port answers 404",
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
}

TEST_CASE("metrics: off unless metrics.listen is set; the API's port still answers 404 for /metrics", "[serve][metrics]") {
    Server server;
    CHECK(server.http().get("/metrics").status == 404);
    CHECK(server.log().find("serving metrics") == std::string::npos);
}

}  // namespace abci::test
