#pragma once
// The server's metrics (issue 32, docs/metrics.md): one registry per server,
// made by whoever builds the service (serve/server.cpp) and handed down by
// reference, never a global, so that two servers in one process (tests) and a
// unit test's own registry never share a series. Each instrumented concept
// declares its families once, in a *_metrics file of its own next to it
// (serve/http_metrics.*, store/store_metrics.*), and resolves the children of
// its fixed label sets once: recording is then an atomic add, with no lock
// and no allocation (a Family's Add() takes a lock and hashes its labels).

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <prometheus/collectable.h>
#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/metric_family.h>
#include <prometheus/registry.h>

namespace abci::metrics {

using Labels = prometheus::Labels;
using Buckets = prometheus::Histogram::BucketBoundaries;

/// A histogram family with the buckets every child of it has: declared together, so that one family
/// never mixes bucket layouts (which a query's histogram_quantile() cannot combine).
class HistogramFamily {
public:
    HistogramFamily(prometheus::Family<prometheus::Histogram>& family, Buckets buckets)
        : family_(&family), buckets_(std::move(buckets)) {}
    /// The child of `labels`: resolve it once and keep the reference.
    [[nodiscard]] prometheus::Histogram& add(const Labels& labels) { return family_->Add(labels, buckets_); }

private:
    prometheus::Family<prometheus::Histogram>* family_;
    Buckets buckets_;
};

class Registry {
public:
    Registry();
    ~Registry();
    Registry(const Registry&) = delete;
    Registry& operator=(const Registry&) = delete;

    /// The family `name` (base units, counters ending in _total: docs/metrics.md), created on first
    /// use; declaring it again with the same help returns the same family.
    [[nodiscard]] prometheus::Family<prometheus::Counter>& counter(const std::string& name, const std::string& help);
    [[nodiscard]] prometheus::Family<prometheus::Gauge>& gauge(const std::string& name, const std::string& help);
    [[nodiscard]] HistogramFamily histogram(const std::string& name, const std::string& help, Buckets buckets);

    /// Families computed at each scrape rather than recorded (the process's figures from /proc).
    void add_collectable(std::shared_ptr<prometheus::Collectable> collectable);

    /// Every family, recorded and computed, for one scrape.
    [[nodiscard]] std::vector<prometheus::MetricFamily> collect() const;

    [[nodiscard]] const std::shared_ptr<prometheus::Registry>& prometheus() const noexcept { return registry_; }

private:
    std::shared_ptr<prometheus::Registry> registry_;
    mutable std::mutex mutex_;  // collectables_ only: recording never takes it
    std::vector<std::shared_ptr<prometheus::Collectable>> collectables_;
};

/// Buckets for a request's or a database transaction's latency in seconds: 0.5 ms to 10 s.
[[nodiscard]] const Buckets& latency_buckets();

}  // namespace abci::metrics
