#include "core/metrics/registry.hpp"

#include <algorithm>
#include <limits>
#include <type_traits>

#include "core/error.hpp"

namespace abci::metrics {

Histogram::Histogram(const Buckets& bounds)
    : bounds_(bounds), counts_(std::make_unique<std::atomic<std::uint64_t>[]>(bounds.size() + 1)) {}

void Histogram::observe(double value) noexcept {
    // A bucket counts what is at most its bound (Prometheus' le).
    const auto bucket = std::lower_bound(bounds_.begin(), bounds_.end(), value) - bounds_.begin();
    counts_[static_cast<std::size_t>(bucket)].fetch_add(1, std::memory_order_relaxed);
    sum_.fetch_add(value, std::memory_order_relaxed);
}

HistogramValue Histogram::value() const {
    HistogramValue out;
    out.buckets.reserve(bounds_.size() + 1);
    for (std::size_t i = 0; i <= bounds_.size(); ++i) {
        out.count += counts_[i].load(std::memory_order_relaxed);
        out.buckets.push_back(
            {i < bounds_.size() ? bounds_[i] : std::numeric_limits<double>::infinity(), out.count});
    }
    out.sum = sum_.load(std::memory_order_relaxed);
    return out;
}

template <typename T>
T& Family<T>::add(const Labels& labels) {
    const std::lock_guard lock(mutex_);
    auto& child = children_[labels];
    if (!child) {
        if constexpr (std::is_same_v<T, Histogram>)
            child = std::make_unique<T>(buckets_);
        else
            child = std::make_unique<T>();
    }
    return *child;
}

template <typename T>
void Family<T>::remove(const T* child) {
    const std::lock_guard lock(mutex_);
    std::erase_if(children_, [child](const auto& entry) { return entry.second.get() == child; });
}

template <typename T>
MetricFamily Family<T>::collect() const {
    MetricFamily out{name_, help_, MetricType::gauge, {}};
    if constexpr (std::is_same_v<T, Counter>) out.type = MetricType::counter;
    if constexpr (std::is_same_v<T, Histogram>) out.type = MetricType::histogram;
    const std::lock_guard lock(mutex_);
    out.samples.reserve(children_.size());
    for (const auto& [labels, child] : children_) {
        Sample sample{labels, 0, {}};
        if constexpr (std::is_same_v<T, Histogram>)
            sample.histogram = child->value();
        else
            sample.value = child->value();
        out.samples.push_back(std::move(sample));
    }
    return out;
}

template class Family<Counter>;
template class Family<Gauge>;
template class Family<Histogram>;

Registry::Registry() = default;

Registry::~Registry() = default;

template <typename T>
Family<T>& Registry::declare(std::vector<std::unique_ptr<Family<T>>>& families, const std::string& name,
                             const std::string& help, Buckets buckets) {
    const std::lock_guard lock(mutex_);
    const auto named = [&name](const auto& family) { return family->name() == name; };
    if (const auto it = std::find_if(families.begin(), families.end(), named); it != families.end()) return **it;
    if (std::any_of(counters_.begin(), counters_.end(), named) || std::any_of(gauges_.begin(), gauges_.end(), named) ||
        std::any_of(histograms_.begin(), histograms_.end(), named))
        throw Error(ErrorKind::internal, "metric family " + name + " is declared twice, as two types");
    return *families.emplace_back(std::make_unique<Family<T>>(name, help, std::move(buckets)));
}

Family<Counter>& Registry::counter(const std::string& name, const std::string& help) {
    return declare(counters_, name, help, {});
}

Family<Gauge>& Registry::gauge(const std::string& name, const std::string& help) {
    return declare(gauges_, name, help, {});
}

HistogramFamily& Registry::histogram(const std::string& name, const std::string& help, Buckets buckets) {
    return declare(histograms_, name, help, std::move(buckets));
}

void Registry::add_collectable(std::shared_ptr<Collectable> collectable) {
    const std::lock_guard lock(mutex_);
    collectables_.push_back(std::move(collectable));
}

std::vector<MetricFamily> Registry::collect() const {
    std::vector<MetricFamily> families;
    std::vector<std::shared_ptr<Collectable>> collectables;
    {
        const std::lock_guard lock(mutex_);
        const auto add = [&families](const auto& declared) {
            for (const auto& family : declared)
                if (auto collected = family->collect(); !collected.samples.empty())
                    families.push_back(std::move(collected));
        };
        add(counters_);
        add(gauges_);
        add(histograms_);
        collectables = collectables_;
    }
    // Outside the lock: a collectable may wait for the database (service/backlog_metrics.cpp).
    for (const auto& collectable : collectables) {
        auto more = collectable->collect();
        families.insert(families.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
    }
    return families;
}

const Buckets& latency_buckets() {
    static const Buckets buckets{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
    return buckets;
}

}  // namespace abci::metrics
