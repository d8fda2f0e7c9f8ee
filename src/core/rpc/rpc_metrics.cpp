#include "core/rpc/rpc_metrics.hpp"

#include <algorithm>
#include <iterator>

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

// Every JSON-RPC method this code sends, sorted (a binary search finds one).
constexpr std::string_view kKnownMethods[] = {
    "eth_blockNumber",          "eth_call",
    "eth_chainId",              "eth_estimateGas",
    "eth_feeHistory",           "eth_gasPrice",
    "eth_getBalance",           "eth_getBlockByNumber",
    "eth_getBlockReceipts",     "eth_getCode",
    "eth_getTransactionByHash", "eth_getTransactionCount",
    "eth_getTransactionReceipt", "eth_maxPriorityFeePerGas",
    "eth_sendRawTransaction",
};
static_assert(std::is_sorted(std::begin(kKnownMethods), std::end(kKnownMethods)));

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
                     .add({{"chain", chain}})),
      chain_(std::move(chain)),
      known_(std::make_unique<Series[]>(std::size(kKnownMethods))) {}

RpcMetrics::Series& RpcMetrics::series(std::string_view method) {
    const auto* known = std::lower_bound(std::begin(kKnownMethods), std::end(kKnownMethods), method);
    if (known != std::end(kKnownMethods) && *known == method) return known_[known - std::begin(kKnownMethods)];
    std::lock_guard lock(mutex_);
    auto it = other_.find(method);
    if (it == other_.end()) it = other_.try_emplace(std::string(method)).first;
    return it->second;  // a map's elements stay put
}

void RpcMetrics::count(std::string_view method, CallResult result, std::size_t requests) {
    auto& slot = series(method).counters[static_cast<std::size_t>(result)];
    auto* counter = slot.load(std::memory_order_acquire);
    if (!counter) {
        std::lock_guard lock(mutex_);
        counter = slot.load(std::memory_order_relaxed);
        if (!counter) {
            counter = &requests_.add({{"chain", chain_}, {"method", std::string(method)}, {"result", to_string(result)}});
            slot.store(counter, std::memory_order_release);
        }
    }
    counter->increment(static_cast<double>(requests));
}

void RpcMetrics::observe(std::string_view method, std::chrono::duration<double> latency) {
    auto& slot = series(method).histogram;
    auto* histogram = slot.load(std::memory_order_acquire);
    if (!histogram) {
        std::lock_guard lock(mutex_);
        histogram = slot.load(std::memory_order_relaxed);
        if (!histogram) {
            histogram = &durations_.add({{"chain", chain_}, {"method", std::string(method)}});
            slot.store(histogram, std::memory_order_release);
        }
    }
    histogram->observe(latency.count());
}

}  // namespace abci::rpc
