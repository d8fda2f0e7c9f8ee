#pragma once
// Fixed-window request counting per key (a user id, an API key, a client
// address). A key's window opens with its first request and lasts `window`;
// within it at most `limit` requests are allowed. Thread-safe; the key space
// is sharded so concurrent requests of different callers rarely contend, and
// windows that have ended are dropped as the limiter is used, so memory stays
// bounded by the callers of one window.

#include <array>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/error.hpp"

namespace abci::limits {

/// How often a bounded table sweeps out what expired: sweeping costs a pass
/// over the table, so doing it every this many entries keeps the amortised
/// cost per request constant (the rate limiter's shards, the back-off table).
inline constexpr std::uint32_t kSweepEvery = 1024;

/// "requests/window_seconds" as in the config ("10/60"); "0" means no limit.
struct RateLimit {
    std::uint32_t limit = 0;  // 0 = unlimited
    std::chrono::seconds window{60};

    [[nodiscard]] bool enabled() const noexcept { return limit > 0; }
};

/// Parses "N/S" (N ≥ 1, S ≥ 1) or "0". Error(invalid_input) naming `what` otherwise.
[[nodiscard]] RateLimit parse_rate_limit(std::string_view text, std::string_view what);

/// The configured limit a refusal came from, so that it can say how an operator changes it.
struct LimitSetting {
    RateLimit limit;
    std::string setting;      // the config key, e.g. "rate_limit.abci"
    std::string environment;  // its environment variable, or ""
};

/// Error(rate_limited) that says when to come back (HTTP Retry-After) and
/// which setting sets the limit.
class RateLimitExceeded : public Error {
public:
    RateLimitExceeded(std::string message, std::chrono::seconds retry_after, LimitSetting source)
        : Error(ErrorKind::rate_limited, std::move(message)), retry_after_(retry_after), source_(std::move(source)) {}
    [[nodiscard]] std::chrono::seconds retry_after() const noexcept { return retry_after_; }
    [[nodiscard]] const LimitSetting& source() const noexcept { return source_; }

private:
    std::chrono::seconds retry_after_;
    LimitSetting source_;
};

struct RateDecision {
    bool allowed = true;
    std::uint32_t limit = 0;
    std::uint32_t remaining = 0;
    std::chrono::seconds reset{0};  // until the current window ends (≥ 1 s when limited)
};

/// The decision for a window of `limit` that opened `elapsed` ago and now
/// holds `count` requests (this one included).
[[nodiscard]] RateDecision decide(const RateLimit& limit, std::uint32_t count, std::chrono::seconds elapsed);

/// Counts requests per key against one limit: in this process (RateLimiter)
/// or shared by the servers on one database (service::SharedRateLimiter).
class Limiter {
public:
    virtual ~Limiter() = default;
    /// Counts one request of `key` now and says whether it is allowed. A
    /// refused request is counted too, so hammering does not help.
    [[nodiscard]] virtual RateDecision hit(std::string_view key) = 0;
    /// Takes back one hit of `key` in its current window: for a limit on
    /// failures, each attempt is counted before it is decided (so concurrent
    /// attempts cannot all slip under the limit) and forgiven once it succeeded.
    virtual void forgive(std::string_view key) = 0;
    [[nodiscard]] virtual const RateLimit& limit() const noexcept = 0;
};

class RateLimiter final : public Limiter {
public:
    using Clock = std::chrono::steady_clock;

    explicit RateLimiter(RateLimit limit) : limit_(limit) {}

    [[nodiscard]] RateDecision hit(std::string_view key) override { return hit(key, Clock::now()); }
    /// hit() at `now`.
    [[nodiscard]] RateDecision hit(std::string_view key, Clock::time_point now);
    void forgive(std::string_view key) override;

    [[nodiscard]] const RateLimit& limit() const noexcept override { return limit_; }

private:
    struct Window {
        Clock::time_point start;
        std::uint32_t count = 0;
    };
    struct Shard {
        std::mutex mutex;
        std::unordered_map<std::string, Window> windows;
        std::uint32_t hits_since_sweep = 0;
    };
    static constexpr std::size_t kShards = 16;

    RateLimit limit_;
    std::array<Shard, kShards> shards_;
};

}  // namespace abci::limits
