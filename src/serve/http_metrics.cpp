#include "serve/http_metrics.hpp"

#include <deque>
#include <map>
#include <mutex>

namespace abci::serve {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::array<std::string_view, 4> kStatusClasses{"2xx", "3xx", "4xx", "5xx"};
// The methods a route may have, and what an unmatched request's method is counted as: any other
// word a client sends is `other`, so that it cannot add a series.
constexpr std::array<std::string_view, 8> kMethods{"GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "other"};
constexpr std::array<std::string_view, 7> kRefusals{"capacity",     "per_client",     "head_timeout", "header_limit",
                                                    "body_timeout", "body_too_large", "bad_framing"};
constexpr std::array<std::string_view, 4> kRateLimits{"abci", "api", "login", "wallet_nonce"};
// The config key of each, in kRateLimits' order.
constexpr std::array<std::string_view, 4> kRateLimitSettings{"rate_limit.abci", "rate_limit.api", "rate_limit.login",
                                                             "limits.walletNonceRate"};

std::size_t status_class(int status) noexcept {
    if (status < 300) return 0;
    if (status >= 500) return 3;
    return static_cast<std::size_t>(status / 100 - 2);
}

template <std::size_t N>
std::size_t index_of(const std::array<std::string_view, N>& values, std::string_view value) noexcept {
    for (std::size_t i = 0; i < N; ++i)
        if (values[i] == value) return i;
    return N - 1;
}

double seconds(Clock::duration took) { return std::chrono::duration<double>(took).count(); }

// What finish() needs of the request this thread is answering: cpp-httplib
// calls the pre-routing handler, the route's handler and the request log on
// the one thread that reads the request.
thread_local Clock::time_point request_start{};
thread_local bool request_routed = false;

}  // namespace

struct HttpMetrics::Families {
    explicit Families(metrics::Registry& registry)
        : requests(registry.counter("abcictl_http_requests_total",
                                    "Requests answered, by route pattern of the route table (unmatched: none), method "
                                    "and status class.")),
          duration(registry.histogram("abcictl_http_request_duration_seconds",
                                      "Time from the request's arrival to its answer, by route pattern and method.",
                                      metrics::latency_buckets())),
          in_flight(registry.gauge("abcictl_http_requests_in_flight", "Requests a route is answering now.").add({})),
          refused_family(registry.counter("abcictl_http_connections_refused_total",
                                          "Connections refused or closed by the connection limits, by reason.")),
          rate_family(registry.counter("abcictl_http_rate_limited_total", "Requests refused by a rate limit, by limit.")) {
        for (std::size_t i = 0; i < kRefusals.size(); ++i) refused[i] = &refused_family.add({{"reason", std::string(kRefusals[i])}});
        for (std::size_t i = 0; i < kRateLimits.size(); ++i)
            rate_limited[i] = &rate_family.add({{"limit", std::string(kRateLimits[i])}});
    }

    metrics::Family<metrics::Counter>& requests;
    metrics::HistogramFamily& duration;
    metrics::Gauge& in_flight;
    metrics::Family<metrics::Counter>& refused_family;
    metrics::Family<metrics::Counter>& rate_family;
    std::array<metrics::Counter*, kRefusals.size()> refused{};
    std::array<metrics::Counter*, kRateLimits.size()> rate_limited{};

    std::mutex mutex;  // routes only, taken while the server registers its routes
    std::map<std::pair<std::string, std::string>, RouteSeries*> by_route;
    std::deque<RouteSeries> routes;  // stable addresses
    std::array<RouteSeries*, kMethods.size()> unmatched{};
};

HttpMetrics::RouteSeries::RouteSeries(HttpMetrics& metrics, const std::string& route, const std::string& method) {
    auto& families = *metrics.families_;
    for (std::size_t i = 0; i < kStatusClasses.size(); ++i)
        by_class_[i] = &families.requests.add(
            {{"route", route}, {"method", method}, {"status_class", std::string(kStatusClasses[i])}});
    duration_ = &families.duration.add({{"route", route}, {"method", method}});
}

void HttpMetrics::RouteSeries::observe(int status, Clock::duration took) noexcept {
    by_class_[status_class(status)]->increment();
    duration_->observe(seconds(took));
}

HttpMetrics::HttpMetrics(metrics::Registry& registry) : families_(std::make_unique<Families>(registry)) {
    for (std::size_t i = 0; i < kMethods.size(); ++i)
        families_->unmatched[i] = &families_->routes.emplace_back(*this, "unmatched", std::string(kMethods[i]));
}

HttpMetrics::~HttpMetrics() = default;

HttpMetrics::RouteSeries& HttpMetrics::route(const std::string& pattern, const std::string& method) {
    const std::lock_guard lock(families_->mutex);
    auto& found = families_->by_route[{route_label(pattern), method}];
    if (!found) found = &families_->routes.emplace_back(*this, route_label(pattern), method);
    return *found;
}

void HttpMetrics::enter() noexcept { families_->in_flight.increment(); }
void HttpMetrics::leave() noexcept { families_->in_flight.decrement(); }

void HttpMetrics::start() noexcept {
    request_start = Clock::now();
    request_routed = false;
}

void HttpMetrics::mark_routed() noexcept { request_routed = true; }

void HttpMetrics::finish(std::string_view method, int status) noexcept {
    if (!request_routed) {
        // A request refused before routing (a malformed one) has no start: it took no time worth timing.
        const auto took = request_start == Clock::time_point{} ? Clock::duration{} : Clock::now() - request_start;
        families_->unmatched[index_of(kMethods, method)]->observe(status, took);
    }
    request_routed = false;
    request_start = {};
}

void HttpMetrics::refused(std::string_view reason) noexcept { families_->refused[index_of(kRefusals, reason)]->increment(); }

void HttpMetrics::rate_limited(std::string_view setting) noexcept {
    for (std::size_t i = 0; i < kRateLimitSettings.size(); ++i)
        if (kRateLimitSettings[i] == setting) families_->rate_limited[i]->increment();
}

std::string route_label(const std::string& pattern) {
    std::string out;
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        const auto close = pattern[i] == '(' ? pattern.find(')', i + 1) : std::string::npos;
        if (close == std::string::npos) {
            out += pattern[i];
            continue;
        }
        const auto group = std::string_view(pattern).substr(i + 1, close - i - 1);
        // "/abci(/.*)?": the rest of a path; "([^/]+)": one segment, an id; else a name within one ("{name}-login").
        out += group.starts_with("/") ? "/{path}" : group == "[^/]+" ? "{id}" : "{name}";
        i = close + 1 < pattern.size() && pattern[close + 1] == '?' ? close + 1 : close;
    }
    return out;
}

}  // namespace abci::serve
