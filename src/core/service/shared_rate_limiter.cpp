#include "core/service/shared_rate_limiter.hpp"

#include <algorithm>

namespace abci::service {

limits::RateDecision SharedRateLimiter::hit(std::string_view key) {
    if (!limit_.enabled()) return limits::RateDecision{true, 0, 0, std::chrono::seconds(0)};
    // The wall clock, not a steady one: the window is shared with other machines.
    const auto now = std::chrono::system_clock::now();
    const auto window = windows_.hit(name_ + ":" + std::string(key), limit_.window, now);
    const auto elapsed = std::chrono::duration_cast<std::chrono::seconds>(now - window.started_at);
    return limits::decide(limit_, window.count, std::max(elapsed, std::chrono::seconds(0)));
}

}  // namespace abci::service
