#pragma once
// The store's families (docs/metrics.md): transactions' latency and failures
// by backend, and the audit log's rows. A backend's Db holds a pointer to
// them, set once when the server hands the store its registry
// (Store::set_metrics); until then, and in tools and tests that never do,
// nothing is recorded.

#include <chrono>
#include <cstddef>
#include <exception>
#include <string>

#include "core/metrics/registry.hpp"

namespace abci::store {

class StoreMetrics {
public:
    /// `backend`: "sqlite" or "postgresql".
    StoreMetrics(metrics::Registry& registry, const std::string& backend);

    /// One transaction (its retries included), `failed` when it ended by an exception.
    void transaction(std::chrono::steady_clock::duration took, bool failed) noexcept;
    void audit_written(std::size_t rows) noexcept;
    void audit_dropped() noexcept;

private:
    metrics::Histogram& duration_;
    metrics::Counter& errors_;
    metrics::Counter& audit_written_;
    metrics::Counter& audit_dropped_;
};

/// Times the transaction whose scope it lives in, failed when it is left by an exception.
class TransactionTimer {
public:
    explicit TransactionTimer(StoreMetrics* metrics) noexcept
        : metrics_(metrics), exceptions_(std::uncaught_exceptions()), started_(std::chrono::steady_clock::now()) {}
    ~TransactionTimer() {
        if (metrics_)
            metrics_->transaction(std::chrono::steady_clock::now() - started_, std::uncaught_exceptions() > exceptions_);
    }
    TransactionTimer(const TransactionTimer&) = delete;
    TransactionTimer& operator=(const TransactionTimer&) = delete;

private:
    StoreMetrics* metrics_;
    int exceptions_;
    std::chrono::steady_clock::time_point started_;
};

}  // namespace abci::store
