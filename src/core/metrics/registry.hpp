#pragma once
// The server's metrics (issue 32, docs/metrics.md): one registry per server,
// made by whoever builds the service (serve/server.cpp) and handed down by
// reference, never a global, so that two servers in one process (tests) and a
// unit test's own registry never share a series. Each instrumented concept
// declares its families once, in a *_metrics file of its own next to it
// (serve/http_metrics.*, store/store_metrics.*), and resolves the children of
// its fixed label sets once: recording is then an atomic add, with no lock
// and no allocation (a Family's add() takes a lock and looks its labels up).
//
// The types are ours, not prometheus-cpp's: recording needs no library, and
// a scrape's exposition, which does, is a library `serve` loads only when its
// metrics listener is on (core/metrics/exposition.hpp), so that no other
// command maps prometheus-cpp (docs/decisions.md).

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace abci::metrics {

using Labels = std::map<std::string, std::string>;
/// A histogram's upper bounds, ascending; +Inf is implied.
using Buckets = std::vector<double>;

/// A value that only grows: Prometheus' counter.
class Counter {
public:
    void increment(double by = 1) noexcept { value_.fetch_add(by, std::memory_order_relaxed); }
    [[nodiscard]] double value() const noexcept { return value_.load(std::memory_order_relaxed); }

private:
    std::atomic<double> value_{0};
};

/// A value that goes up and down.
class Gauge {
public:
    void set(double value) noexcept { value_.store(value, std::memory_order_relaxed); }
    void increment(double by = 1) noexcept { value_.fetch_add(by, std::memory_order_relaxed); }
    void decrement(double by = 1) noexcept { value_.fetch_sub(by, std::memory_order_relaxed); }
    [[nodiscard]] double value() const noexcept { return value_.load(std::memory_order_relaxed); }

private:
    std::atomic<double> value_{0};
};

/// A histogram's figures at one scrape.
struct HistogramValue {
    struct Bucket {
        double upper_bound;  // the last one is +Inf
        std::uint64_t cumulative_count;
    };
    std::vector<Bucket> buckets;
    std::uint64_t count = 0;
    double sum = 0;
};

/// Observations counted in fixed buckets, each observation a bucket's atomic increment and the sum's atomic add.
class Histogram {
public:
    explicit Histogram(const Buckets& bounds);
    void observe(double value) noexcept;
    [[nodiscard]] HistogramValue value() const;

private:
    const Buckets& bounds_;  // the family's, which outlives its children
    std::unique_ptr<std::atomic<std::uint64_t>[]> counts_;  // by bucket, +Inf's last; not cumulative
    std::atomic<double> sum_{0};
};

enum class MetricType { counter, gauge, histogram };

/// One series' figure at a scrape: `value` for a counter or gauge, `histogram` for a histogram.
struct Sample {
    Labels labels;
    double value = 0;
    HistogramValue histogram;
};

/// One family as a scrape exposes it: what the exposition library writes out.
struct MetricFamily {
    std::string name;
    std::string help;
    MetricType type = MetricType::gauge;
    std::vector<Sample> samples;
};

/// A family's children, one per label set, each made at its first add() and kept (at a stable address) until
/// removed. A family without children is left out of a scrape.
template <typename T>
class Family {
public:
    Family(std::string name, std::string help, Buckets buckets = {})
        : name_(std::move(name)), help_(std::move(help)), buckets_(std::move(buckets)) {}
    Family(const Family&) = delete;
    Family& operator=(const Family&) = delete;

    /// The child of `labels`: resolve it once and keep the reference.
    [[nodiscard]] T& add(const Labels& labels);
    /// Takes `child` out of the family (and out of scrapes); the reference is then gone.
    void remove(const T* child);
    [[nodiscard]] MetricFamily collect() const;

    [[nodiscard]] const std::string& name() const noexcept { return name_; }
    [[nodiscard]] const std::string& help() const noexcept { return help_; }
    [[nodiscard]] const Buckets& buckets() const noexcept { return buckets_; }

private:
    std::string name_;
    std::string help_;
    Buckets buckets_;  // a histogram family's, the same for every child (histogram_quantile() cannot mix layouts)
    mutable std::mutex mutex_;
    std::map<Labels, std::unique_ptr<T>> children_;
};

using HistogramFamily = Family<Histogram>;

/// Families computed at each scrape rather than recorded (the process's figures from /proc, the store's queues).
class Collectable {
public:
    virtual ~Collectable() = default;
    [[nodiscard]] virtual std::vector<MetricFamily> collect() const = 0;
};

class Registry {
public:
    Registry();
    ~Registry();
    Registry(const Registry&) = delete;
    Registry& operator=(const Registry&) = delete;

    /// The family `name` (base units, counters ending in _total: docs/metrics.md), created on first
    /// use; declaring it again returns the same family (Error(internal) when it was declared as another type).
    [[nodiscard]] Family<Counter>& counter(const std::string& name, const std::string& help);
    [[nodiscard]] Family<Gauge>& gauge(const std::string& name, const std::string& help);
    [[nodiscard]] HistogramFamily& histogram(const std::string& name, const std::string& help, Buckets buckets);

    void add_collectable(std::shared_ptr<Collectable> collectable);

    /// Every family with a series, recorded (counters, gauges, histograms, each in the order declared) then
    /// computed, for one scrape.
    [[nodiscard]] std::vector<MetricFamily> collect() const;

private:
    template <typename T>
    Family<T>& declare(std::vector<std::unique_ptr<Family<T>>>& families, const std::string& name,
                       const std::string& help, Buckets buckets);

    mutable std::mutex mutex_;  // declaring a family, the collectables: recording never takes it
    std::vector<std::unique_ptr<Family<Counter>>> counters_;
    std::vector<std::unique_ptr<Family<Gauge>>> gauges_;
    std::vector<std::unique_ptr<HistogramFamily>> histograms_;
    std::vector<std::shared_ptr<Collectable>> collectables_;
};

/// Buckets for a request's or a database transaction's latency in seconds: 0.5 ms to 10 s.
[[nodiscard]] const Buckets& latency_buckets();

}  // namespace abci::metrics
