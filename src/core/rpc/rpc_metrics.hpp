#pragma once
// The JSON-RPC families of one chain (docs/metrics.md): every HTTP exchange
// with a node counted by method and result, its latency, and the failovers
// from one endpoint URL to the next. The client records into it
// (rpc::Options::metrics); the methods are the fixed set this code calls,
// never anything a caller of the API chose, so the series stay bounded.
// Recording is one atomic add: every call of the sender's hot path counts.

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "core/metrics/registry.hpp"

namespace abci::rpc {

/// What became of one request in one exchange with a node.
enum class CallResult {
    ok,            // answered with a result
    timeout,       // no answer in time
    http_5xx,      // a 5xx without a JSON-RPC answer
    rate_limited,  // HTTP 429
    rpc_error,     // answered with a JSON-RPC error object
    dropped,       // no usable answer: refused or closed connection, another 4xx, a body that is not JSON-RPC
};

class RpcMetrics {
public:
    /// `chain`: the configured blockchain id the client talks to.
    RpcMetrics(metrics::Registry& registry, std::string chain);

    /// `requests` requests of `method` in one exchange (a batch counts each of its requests).
    void count(std::string_view method, CallResult result, std::size_t requests = 1);
    /// How long one exchange carrying `method` took (a batch: once per method it carries).
    void observe(std::string_view method, std::chrono::duration<double> latency);
    /// A failed exchange moved new calls on to another endpoint URL.
    void failover() { failovers_.increment(); }

private:
    static constexpr std::size_t kResults = 6;  // CallResult's values
    // One method's children, each made at its first use (a scrape shows only
    // what was called, as before) and read without a lock after that.
    struct Series {
        std::atomic<metrics::Counter*> counters[kResults] = {};
        std::atomic<metrics::Histogram*> histogram = nullptr;
    };
    // The methods this code calls, in a table made at start; any other (a
    // method added without a row here) is still counted, found under mutex_.
    [[nodiscard]] Series& series(std::string_view method);

    metrics::Family<metrics::Counter>& requests_;
    metrics::HistogramFamily& durations_;
    metrics::Counter& failovers_;
    std::string chain_;
    std::unique_ptr<Series[]> known_;       // by the index of its method in kKnownMethods (rpc_metrics.cpp)
    std::mutex mutex_;                      // making a child; other_
    std::map<std::string, Series, std::less<>> other_;
};

}  // namespace abci::rpc
