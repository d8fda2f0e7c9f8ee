#include "core/limits/rate_limiter.hpp"

#include <charconv>
#include <functional>

#include "core/error.hpp"

namespace abci::limits {

namespace {

Error not_a_rate_limit(std::string_view text, std::string_view what) {
    return Error(ErrorKind::invalid_input, std::string(what) + ": '" + std::string(text) +
                                               "' is not a rate limit (expected requests/seconds, e.g. 10/60, or 0 for none)");
}

std::uint32_t parse_positive(std::string_view digits, std::string_view text, std::string_view what) {
    std::uint32_t value = 0;
    const auto* end = digits.data() + digits.size();
    const auto [ptr, ec] = std::from_chars(digits.data(), end, value);
    if (ec != std::errc() || ptr != end || value == 0) throw not_a_rate_limit(text, what);
    return value;
}

}  // namespace

RateLimit parse_rate_limit(std::string_view text, std::string_view what) {
    if (text == "0") return RateLimit{0, std::chrono::seconds(60)};
    const auto slash = text.find('/');
    if (slash == std::string_view::npos) throw not_a_rate_limit(text, what);
    return RateLimit{parse_positive(text.substr(0, slash), text, what),
                     std::chrono::seconds(parse_positive(text.substr(slash + 1), text, what))};
}

RateDecision RateLimiter::hit(std::string_view key, Clock::time_point now) {
    if (!limit_.enabled()) return RateDecision{true, 0, 0, std::chrono::seconds(0)};
    auto& shard = shards_[std::hash<std::string_view>{}(key) % kShards];
    std::lock_guard lock(shard.mutex);
    if (++shard.hits_since_sweep >= kSweepEvery) {
        shard.hits_since_sweep = 0;
        std::erase_if(shard.windows, [&](const auto& entry) { return now - entry.second.start >= limit_.window; });
    }
    auto [it, inserted] = shard.windows.try_emplace(std::string(key), Window{now, 0});
    auto& window = it->second;
    if (!inserted && now - window.start >= limit_.window) window = Window{now, 0};
    if (window.count < UINT32_MAX) ++window.count;
    return decide(limit_, window.count, std::chrono::duration_cast<std::chrono::seconds>(now - window.start));
}

void RateLimiter::forgive(std::string_view key) {
    if (!limit_.enabled()) return;
    auto& shard = shards_[std::hash<std::string_view>{}(key) % kShards];
    std::lock_guard lock(shard.mutex);
    const auto it = shard.windows.find(std::string(key));
    if (it != shard.windows.end() && it->second.count > 0) --it->second.count;
}

RateDecision decide(const RateLimit& limit, std::uint32_t count, std::chrono::seconds elapsed) {
    RateDecision decision;
    decision.limit = limit.limit;
    decision.allowed = count <= limit.limit;
    decision.remaining = decision.allowed ? limit.limit - count : 0;
    decision.reset = std::max(limit.window - elapsed, std::chrono::seconds(1));
    return decision;
}

}  // namespace abci::limits
