#include "core/service/shared_counters.hpp"

#include <algorithm>

namespace abci::service {

namespace {

// The wall clock, not a steady one: the windows are shared with other machines.
store::TimePoint now() { return std::chrono::system_clock::now(); }

}  // namespace

limits::RateDecision SharedRateLimiter::hit(std::string_view key) {
    if (!limit_.enabled()) return limits::RateDecision{true, 0, 0, std::chrono::seconds(0)};
    const auto at = now();
    const auto window = windows_.hit(name_ + ":" + std::string(key), limit_.window, at);
    const auto elapsed = std::chrono::duration_cast<std::chrono::seconds>(at - window.started_at);
    return limits::decide(limit_, window.count, std::max(elapsed, std::chrono::seconds(0)));
}

void SharedRateLimiter::forgive(std::string_view key) {
    if (limit_.enabled()) windows_.forgive(name_ + ":" + std::string(key), now());
}

std::chrono::seconds SharedBackoff::wait(std::string_view key) {
    if (policy_.threshold == 0) return std::chrono::seconds(0);
    const auto at = now();
    const auto until = windows_.open_until(name_ + ":wait:" + std::string(key), at);
    return until ? limits::seconds_to_wait(*until - at) : std::chrono::seconds(0);
}

void SharedBackoff::failed(std::string_view key) {
    if (policy_.threshold == 0) return;
    const auto at = now();
    const auto failures = windows_.hit(name_ + ":failures:" + std::string(key), policy_.window, at).count;
    if (const auto delay = limits::backoff_delay(policy_, failures); delay.count() > 0)
        (void)windows_.hit(name_ + ":wait:" + std::string(key), delay, at);
}

std::unique_ptr<limits::Limiter> SharedCounters::limiter(const limits::RateLimit& limit, std::string_view name) const {
    return std::make_unique<SharedRateLimiter>(limit, windows_, std::string(name));
}

std::unique_ptr<limits::FailureBackoff> SharedCounters::backoff(const limits::BackoffPolicy& policy,
                                                                std::string_view name) const {
    return std::make_unique<SharedBackoff>(policy, windows_, std::string(name));
}

}  // namespace abci::service
