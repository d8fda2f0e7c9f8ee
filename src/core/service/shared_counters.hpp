#pragma once
// Limits counted in the database, so that replicas behind one address
// enforce them together: a caller gets `limit` requests per window, and an
// account its failures before the back-off, whichever replica answers, not
// that many per replica.

#include <string>

#include "core/limits/counters.hpp"
#include "core/store/rate_windows.hpp"

namespace abci::service {

class SharedRateLimiter final : public limits::Limiter {
public:
    /// `name` keeps this limiter's keys apart from another's in the one table.
    SharedRateLimiter(limits::RateLimit limit, store::RateWindows& windows, std::string name)
        : limit_(limit), windows_(windows), name_(std::move(name)) {}

    /// Throws what the store throws (Error(unavailable) when the database is down).
    [[nodiscard]] limits::RateDecision hit(std::string_view key) override;
    void forgive(std::string_view key) override;
    [[nodiscard]] const limits::RateLimit& limit() const noexcept override { return limit_; }

private:
    limits::RateLimit limit_;
    store::RateWindows& windows_;
    std::string name_;
};

/// Two windows per key: the failures of the policy's window, and the wait
/// the last failure imposed (a window as long as the wait, so that it ends by
/// itself like the in-process back-off's).
class SharedBackoff final : public limits::FailureBackoff {
public:
    SharedBackoff(limits::BackoffPolicy policy, store::RateWindows& windows, std::string name)
        : policy_(policy), windows_(windows), name_(std::move(name)) {}

    [[nodiscard]] std::chrono::seconds wait(std::string_view key) override;
    void failed(std::string_view key) override;

private:
    limits::BackoffPolicy policy_;
    store::RateWindows& windows_;
    std::string name_;
};

class SharedCounters final : public limits::Counters {
public:
    explicit SharedCounters(store::RateWindows& windows) : windows_(windows) {}

    [[nodiscard]] std::unique_ptr<limits::Limiter> limiter(const limits::RateLimit& limit,
                                                           std::string_view name) const override;
    [[nodiscard]] std::unique_ptr<limits::FailureBackoff> backoff(const limits::BackoffPolicy& policy,
                                                                  std::string_view name) const override;

private:
    store::RateWindows& windows_;
};

}  // namespace abci::service
