#pragma once
// A rate limit counted in the database, so that replicas behind one address
// enforce it together: a caller gets `limit` requests per window whichever
// replica answers them, not `limit` per replica.

#include <string>

#include "core/limits/rate_limiter.hpp"
#include "core/store/rate_windows.hpp"

namespace abci::service {

class SharedRateLimiter final : public limits::Limiter {
public:
    /// `name` keeps this limiter's keys apart from another's in the one table.
    SharedRateLimiter(limits::RateLimit limit, store::RateWindows& windows, std::string name)
        : limit_(limit), windows_(windows), name_(std::move(name)) {}

    /// Throws what the store throws (Error(unavailable) when the database is down).
    [[nodiscard]] limits::RateDecision hit(std::string_view key) override;
    [[nodiscard]] const limits::RateLimit& limit() const noexcept override { return limit_; }

private:
    limits::RateLimit limit_;
    store::RateWindows& windows_;
    std::string name_;
};

}  // namespace abci::service
