#include "core/limits/counters.hpp"

namespace abci::limits {

std::unique_ptr<Limiter> Counters::limiter(const RateLimit& limit, std::string_view /*name*/) const {
    return std::make_unique<RateLimiter>(limit);
}

std::unique_ptr<FailureBackoff> Counters::backoff(const BackoffPolicy& policy, std::string_view /*name*/) const {
    return std::make_unique<Backoff>(policy);
}

const Counters& local_counters() {
    static const Counters counters;
    return counters;
}

}  // namespace abci::limits
