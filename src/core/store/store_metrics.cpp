#include "core/store/store_metrics.hpp"

namespace abci::store {

StoreMetrics::StoreMetrics(metrics::Registry& registry, const std::string& backend)
    : duration_(registry
                    .histogram("abcictl_store_transaction_duration_seconds",
                               "Time a store transaction took, its retries and the wait for a connection included.",
                               metrics::latency_buckets())
                    .add({{"backend", backend}})),
      errors_(registry.counter("abcictl_store_errors_total", "Store transactions that ended with an error.")
                  .add({{"backend", backend}})),
      audit_written_(registry.counter("abcictl_audit_rows_written_total",
                                      "Audit entries committed (a refused request's entry may add to an existing row).")
                         .add({})),
      audit_dropped_(registry.counter("abcictl_audit_rows_dropped_total",
                                      "Audit entries the database refused for themselves, dropped and logged.")
                         .add({})) {}

void StoreMetrics::transaction(std::chrono::steady_clock::duration took, bool failed) noexcept {
    duration_.observe(std::chrono::duration<double>(took).count());
    if (failed) errors_.increment();
}

void StoreMetrics::audit_written(std::size_t rows) noexcept { audit_written_.increment(static_cast<double>(rows)); }

void StoreMetrics::audit_dropped() noexcept { audit_dropped_.increment(); }

}  // namespace abci::store
