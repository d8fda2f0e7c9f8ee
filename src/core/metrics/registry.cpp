#include "core/metrics/registry.hpp"

namespace abci::metrics {

Registry::Registry() : registry_(std::make_shared<prometheus::Registry>()) {}

Registry::~Registry() = default;

prometheus::Family<prometheus::Counter>& Registry::counter(const std::string& name, const std::string& help) {
    return prometheus::BuildCounter().Name(name).Help(help).Register(*registry_);
}

prometheus::Family<prometheus::Gauge>& Registry::gauge(const std::string& name, const std::string& help) {
    return prometheus::BuildGauge().Name(name).Help(help).Register(*registry_);
}

HistogramFamily Registry::histogram(const std::string& name, const std::string& help, Buckets buckets) {
    return {prometheus::BuildHistogram().Name(name).Help(help).Register(*registry_), std::move(buckets)};
}

void Registry::add_collectable(std::shared_ptr<prometheus::Collectable> collectable) {
    const std::lock_guard lock(mutex_);
    collectables_.push_back(std::move(collectable));
}

std::vector<prometheus::MetricFamily> Registry::collect() const {
    auto families = registry_->Collect();
    const std::lock_guard lock(mutex_);
    for (const auto& collectable : collectables_) {
        auto more = collectable->Collect();
        families.insert(families.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
    }
    return families;
}

const Buckets& latency_buckets() {
    static const Buckets buckets{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
    return buckets;
}

}  // namespace abci::metrics
