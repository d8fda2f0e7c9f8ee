#pragma once
// The API's HTTP families (docs/metrics.md): requests and their latency by
// route pattern from the route table (never the raw path: a path that
// matches no route is the one `unmatched` route), method and status class;
// requests in flight; connections refused; rate-limited requests. Every
// series is resolved when the route is registered or the server is built,
// so recording a request is a few atomic adds.

#include <array>
#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "core/metrics/registry.hpp"

namespace abci::serve {

class HttpMetrics {
public:
    /// The series of one route and method.
    class RouteSeries {
    public:
        RouteSeries(HttpMetrics& metrics, const std::string& route, const std::string& method);
        /// One answered request: its status and how long it took.
        void observe(int status, std::chrono::steady_clock::duration took) noexcept;

    private:
        std::array<metrics::Counter*, 4> by_class_{};  // 2xx, 3xx, 4xx, 5xx
        metrics::Histogram* duration_ = nullptr;
    };

    explicit HttpMetrics(metrics::Registry& registry);
    ~HttpMetrics();
    HttpMetrics(const HttpMetrics&) = delete;
    HttpMetrics& operator=(const HttpMetrics&) = delete;

    /// The series of a route of the table, `pattern` its regex ("/abci/contracts/mints/([^/]+)"), labelled with
    /// its template ("/abci/contracts/mints/{id}"). The reference lives as long as this.
    [[nodiscard]] RouteSeries& route(const std::string& pattern, const std::string& method);

    /// Brackets a request that a route answers (abcictl_http_requests_in_flight).
    void enter() noexcept;
    void leave() noexcept;

    /// Every request the server answers, from its request log (server.cpp): counted as `unmatched` unless a route's
    /// series observed it on this thread since the previous call.
    void finish(std::string_view method, int status) noexcept;
    /// A route's series observed the request on this thread (finish() does not count it again).
    static void mark_routed() noexcept;
    /// The start of a request on this thread (the pre-routing handler): what finish() times an unmatched one from.
    static void start() noexcept;

    /// A connection refused by the connection limits; `reason` one of the fixed set ("capacity", "per_client", …).
    void refused(std::string_view reason) noexcept;
    /// A request refused by the rate limit that config key `setting` holds ("rate_limit.abci", …).
    void rate_limited(std::string_view setting) noexcept;

private:
    struct Families;
    std::unique_ptr<Families> families_;
};

/// A route's pattern as its metric label names it: each regex group as a named parameter.
[[nodiscard]] std::string route_label(const std::string& pattern);

}  // namespace abci::serve
