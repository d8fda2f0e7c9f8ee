#pragma once
// Request counts per caller and window, shared by every server on the
// database: with several replicas behind one address, a caller's limit is
// the same whichever replica it reaches (limits::RateLimiter counts in one
// process only).

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "core/store/records.hpp"

namespace abci::store {

/// A key's window as it stands after a hit.
struct RateWindow {
    TimePoint started_at;     // when the window opened (its first hit)
    std::uint32_t count = 0;  // hits in it, this one included
};

class RateWindows {
public:
    virtual ~RateWindows() = default;
    /// Counts one hit of `key` at `now`, atomically: a window older than
    /// `window` starts over with this hit. Of concurrent hits, each sees a
    /// distinct count. Windows that ended are deleted now and then.
    [[nodiscard]] virtual RateWindow hit(const std::string& key, std::chrono::milliseconds window, TimePoint now) = 0;
    /// Takes back one hit of `key`'s window if it is still open at `now`.
    virtual void forgive(const std::string& key, TimePoint now) = 0;
    /// When `key`'s window ends, if it is still open at `now`; counts nothing.
    [[nodiscard]] virtual std::optional<TimePoint> open_until(const std::string& key, TimePoint now) = 0;
};

}  // namespace abci::store
