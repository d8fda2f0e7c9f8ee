#pragma once
// Where the limits count. One server counts in its own memory; replicas on
// one database count there (service::SharedCounters), so that a caller's
// budget is the same whichever replica answers, not one per replica.

#include <memory>
#include <string_view>

#include "core/limits/backoff.hpp"
#include "core/limits/rate_limiter.hpp"

namespace abci::limits {

class Counters {
public:
    virtual ~Counters() = default;
    /// `name` keeps one limit's keys apart from another's where they share a table.
    [[nodiscard]] virtual std::unique_ptr<Limiter> limiter(const RateLimit& limit, std::string_view name) const;
    [[nodiscard]] virtual std::unique_ptr<FailureBackoff> backoff(const BackoffPolicy& policy,
                                                                  std::string_view name) const;
};

/// The counters of one process.
[[nodiscard]] const Counters& local_counters();

}  // namespace abci::limits
