#include "core/limits/backoff.hpp"
#include "core/limits/rate_limiter.hpp"

#include <algorithm>

namespace abci::limits {

namespace {

// 2^kMaxDoublings · base is beyond any sensible cap; stops the shift overflowing.
constexpr std::uint32_t kMaxDoublings = 20;

}  // namespace

std::chrono::seconds backoff_delay(const BackoffPolicy& policy, std::uint32_t failures) {
    if (policy.threshold == 0 || failures <= policy.threshold) return std::chrono::seconds(0);
    const auto doublings = std::min(failures - policy.threshold - 1, kMaxDoublings);
    return std::min(policy.base * (std::int64_t{1} << doublings), policy.cap);
}

std::chrono::seconds seconds_to_wait(std::chrono::nanoseconds left) {
    if (left <= std::chrono::nanoseconds(0)) return std::chrono::seconds(0);
    return std::max(std::chrono::ceil<std::chrono::seconds>(left), std::chrono::seconds(1));
}

std::chrono::seconds Backoff::wait(std::string_view key, Clock::time_point now) {
    if (policy_.threshold == 0) return std::chrono::seconds(0);
    std::lock_guard lock(mutex_);
    const auto it = states_.find(std::string(key));
    if (it == states_.end()) return std::chrono::seconds(0);
    return seconds_to_wait(it->second.next_attempt - now);
}

void Backoff::failed(std::string_view key, Clock::time_point now) {
    if (policy_.threshold == 0) return;
    std::lock_guard lock(mutex_);
    if (++calls_since_sweep_ >= kSweepEvery) {
        calls_since_sweep_ = 0;
        std::erase_if(states_, [&](const auto& entry) {
            return now - entry.second.window_start >= policy_.window && now >= entry.second.next_attempt;
        });
    }
    // No wait until the threshold: a next attempt "from now" would hold
    // back a concurrent attempt that read the clock a moment earlier.
    auto [it, inserted] = states_.try_emplace(std::string(key), State{now, 0, Clock::time_point{}});
    auto& state = it->second;
    if (!inserted && now - state.window_start >= policy_.window) {
        state.window_start = now;
        state.failures = 0;
    }
    if (state.failures < UINT32_MAX) ++state.failures;
    if (state.failures <= policy_.threshold) return;
    state.next_attempt = now + backoff_delay(policy_, state.failures);
}

}  // namespace abci::limits
