#pragma once
// A back-off on failures per key (an account), for what must slow down but
// never lock: up to `threshold` failures in a `window` cost nothing; past
// it, each further failure makes the key wait `base`, doubled per failure,
// at most `cap`, before its next attempt is let through. The window and the
// wait both end by themselves, so the owner of the key gets in after at
// most `cap`. Thread-safe; keys whose window and wait are over are dropped
// as the back-off is used, so memory stays bounded by one window's keys.

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace abci::limits {

struct BackoffPolicy {
    std::uint32_t threshold = 0;  // 0 = never back off
    std::chrono::seconds window{300};
    std::chrono::seconds base{1};
    std::chrono::seconds cap{30};
};

/// The wait a key's `failures`-th failure of a window imposes: zero up to the
/// threshold, then `base` doubled per further failure, at most `cap`.
[[nodiscard]] std::chrono::seconds backoff_delay(const BackoffPolicy& policy, std::uint32_t failures);

/// A wait of `left` told in whole seconds, rounded up (a client that waits
/// them finds the way open) and at least 1; zero when `left` is not positive.
[[nodiscard]] std::chrono::seconds seconds_to_wait(std::chrono::nanoseconds left);

/// Counts failures per key against one policy: in this process (Backoff) or
/// shared by the servers on one database (service::SharedBackoff).
class FailureBackoff {
public:
    virtual ~FailureBackoff() = default;
    /// How long `key` must wait before its next attempt; zero when it may go now.
    [[nodiscard]] virtual std::chrono::seconds wait(std::string_view key) = 0;
    /// Counts one failed attempt of `key`.
    virtual void failed(std::string_view key) = 0;
};

class Backoff final : public FailureBackoff {
public:
    using Clock = std::chrono::steady_clock;

    explicit Backoff(BackoffPolicy policy) : policy_(policy) {}

    [[nodiscard]] std::chrono::seconds wait(std::string_view key) override { return wait(key, Clock::now()); }
    void failed(std::string_view key) override { failed(key, Clock::now()); }
    /// wait() and failed() at `now`.
    [[nodiscard]] std::chrono::seconds wait(std::string_view key, Clock::time_point now);
    void failed(std::string_view key, Clock::time_point now);

private:
    struct State {
        Clock::time_point window_start;
        std::uint32_t failures = 0;
        Clock::time_point next_attempt;
    };

    BackoffPolicy policy_;
    std::mutex mutex_;
    std::unordered_map<std::string, State> states_;
    std::uint32_t calls_since_sweep_ = 0;
};

}  // namespace abci::limits
