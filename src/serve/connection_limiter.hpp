#pragma once
// Who may hold a connection (and so a request thread): at most
// max_connections open, at most max_per_client from one address, and the
// last `reserve` slots only for an address that has none open, so that a
// flood from one address, or from a few, leaves room for everyone else.
// Under pressure (the reserve reached) each new connection first closes the
// connection that has sat idle between keep-alive requests the longest.
// Bookkeeping only, under one mutex: no I/O but shutdown(2) happens under it.

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "serve/settings.hpp"

namespace abci::serve {

class ConnectionLimiter {
public:
    struct Slot;
    /// Ends the slot's accounting when the connection closes.
    struct Closer {
        void operator()(Slot* slot) const;
    };
    using Ticket = std::unique_ptr<Slot, Closer>;

    /// `proxies` (trustedProxies) speak for many clients: only the total cap
    /// applies to them.
    explicit ConnectionLimiter(const ConnectionLimits& limits, std::vector<std::string> proxies = {})
        : limits_(limits), proxies_(std::move(proxies)) {}

    /// A slot for a new connection on socket `fd` from `address`, or an empty
    /// ticket when the caps refuse it.
    [[nodiscard]] Ticket admit(const std::string& address, int fd);
    /// The connection waits for its next request: it may be closed (its
    /// socket shut down) to make room for a new one.
    void idle(Slot& slot);
    /// The connection has a request to read; false when it was closed to make
    /// room meanwhile (the caller then closes it).
    [[nodiscard]] bool busy(Slot& slot);

    /// Closes every idle connection (the server stops): their threads end
    /// now rather than when the keep-alive wait would.
    void close_idle();

    /// Open connections (for tests and logs).
    [[nodiscard]] std::size_t open() const;

private:
    void release(Slot& slot);
    void evict_oldest_idle();
    void leave_idle(Slot& slot);
    /// Gives the slot's place back (once).
    void forget(Slot& slot);

    const ConnectionLimits limits_;
    const std::vector<std::string> proxies_;
    mutable std::mutex mutex_;
    std::size_t open_ = 0;
    std::unordered_map<std::string, std::size_t> per_address_;
    std::list<Slot*> idle_;  // oldest first
};

/// The limiter's record of one connection.
struct ConnectionLimiter::Slot {
    ConnectionLimiter& owner;
    std::string address;
    int fd;
    bool counted = true;  // false once evicted: its place is already given back
    bool idle = false;
    std::list<Slot*>::iterator idle_position{};
};

}  // namespace abci::serve
