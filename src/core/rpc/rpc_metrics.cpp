#include "core/rpc/rpc_metrics.hpp"

namespace abci::rpc {

namespace {

const char* to_string(CallResult result) noexcept {
    switch (result) {
    case CallResult::ok: return "ok";
    case CallResult::timeout: return "timeout";
    case CallResult::http_5xx: return "http_5xx";
    case CallResult::rate_limited: return "rate_limited";
    case CallResult::rpc_error: return "rpc_error";
    case CallResult::dropped: return "dropped";
    }
    return "dropped";
}

}  // namespace

RpcMetrics::RpcMetrics(metrics::Registry& registry, std::string chain)
    : requests_(registry.counter("abcictl_rpc_requests_total",
                                 "JSON-RPC requests sent to the chain's nodes, by method and result; a batch counts "
                                 "each of its requests")),
      durations_(registry.histogram("abcictl_rpc_request_duration_seconds",
                                    "How long one HTTP exchange with a node took, by the JSON-RPC method it carried",
                                    metrics::latency_buckets())),
      failovers_(registry
                     .counter("abcictl_rpc_failovers_total",
                              "Failed exchanges after which new calls go to the chain's next rpcUrls endpoint")
                     .Add({{"chain", chain}})),
      chain_(std::move(chain)) {}

void RpcMetrics::count(std::string_view method, CallResult result, std::size_t requests) {
    prometheus::Counter* counter = nullptr;
    {
        std::lock_guard lock(mutex_);
        auto& slot = counters_[{std::string(method), result}];
        if (!slot) slot = &requests_.Add({{"chain", chain_}, {"method", std::string(method)}, {"result", to_string(result)}});
        counter = slot;
    }
    counter->Increment(static_cast<double>(requests));
}

void RpcMetrics::observe(std::string_view method, std::chrono::duration<double> latency) {
    prometheus::Histogram* histogram = nullptr;
    {
        std::lock_guard lock(mutex_);
        auto it = histograms_.find(method);
        if (it == histograms_.end())
            it = histograms_.emplace(std::string(method), &durations_.add({{"chain", chain_}, {"method", std::string(method)}})).first;
        histogram = it->second;
    }
    histogram->Observe(latency.count());
}

}  // namespace abci::rpc
