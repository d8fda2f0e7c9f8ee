#pragma once
// Who may hold a connection (and so a request thread): at most
// max_connections open, at most max_per_client from one address, and the
// last `reserve` slots only for an address that has none open, so that a
// flood from one address, or from a few, leaves room for everyone else.
// Under pressure (the reserve reached) each new connection first closes the
// connection that has sat idle between keep-alive requests the longest.
// When the server is full even so, slow connections are shed first: the one
// that has been reading its request the longest (past a short grace) is
// closed for a newcomer from an address holding fewer connections than its
// own, so a flood of slow sockets from thousands of addresses (issue 30)
// cannot keep a new address out, and cannot take a place from a smaller
// holder either. A connection whose request is being handled is never shed.
// Bookkeeping only, under one mutex: no I/O but shutdown(2) happens under it.

#include <chrono>
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
    /// Why admit() refused a connection.
    enum class Refusal {
        per_client,  // its address holds max_per_client connections already
        capacity,    // the server is full: max_connections open, or only the reserve left and its address holds some
    };

    /// `proxies` (trustedProxies) speak for many clients: only the total cap
    /// applies to them. A connection reading its request for less than
    /// `grace` is not shed.
    explicit ConnectionLimiter(const ConnectionLimits& limits, std::vector<std::string> proxies = {},
                               std::chrono::milliseconds grace = std::chrono::seconds(1))
        : limits_(limits), proxies_(std::move(proxies)), grace_(grace) {}

    /// A slot for a new connection on socket `fd` from `address`, reading its
    /// first request, or an empty ticket when the caps refuse it (and why, in
    /// `*refusal` when given).
    [[nodiscard]] Ticket admit(const std::string& address, int fd, Refusal* refusal = nullptr);
    /// The connection waits for its next request: it may be closed (its
    /// socket shut down) to make room for a new one.
    void idle(Slot& slot);
    /// The connection has a request to read (it may be shed while it does);
    /// false when it was closed to make room meanwhile (the caller then
    /// closes it).
    [[nodiscard]] bool reading(Slot& slot);
    /// The connection's request is read and is being handled: it is not shed
    /// until it reads again. False as reading().
    [[nodiscard]] bool handling(Slot& slot);

    /// Closes every idle connection (the server stops): their threads end
    /// now rather than when the keep-alive wait would.
    void close_idle();

    /// Open connections (for tests and logs).
    [[nodiscard]] std::size_t open() const;

    using Clock = std::chrono::steady_clock;
    enum class Phase { reading, handling, idle };

private:
    void release(Slot& slot);
    void evict_oldest_idle();
    /// Sheds the connection reading the longest past the grace whose address
    /// holds more than `held` connections, if there is one.
    void shed_slowest_reader(std::size_t held);
    /// Closes the slot's socket (its thread wakes and ends) and forgets it.
    void shed(Slot& slot);
    /// Moves the slot to `phase`, at the end of its list.
    void enter(Slot& slot, Phase phase);
    void leave_list(Slot& slot);
    /// Gives the slot's place back (once).
    void forget(Slot& slot);

    const ConnectionLimits limits_;
    const std::vector<std::string> proxies_;
    const std::chrono::milliseconds grace_;
    mutable std::mutex mutex_;
    std::size_t open_ = 0;
    std::unordered_map<std::string, std::size_t> per_address_;
    std::list<Slot*> idle_;     // oldest first
    std::list<Slot*> reading_;  // longest reading first
};

/// The refusal as abcictl_http_connections_refused_total's `reason` names it.
[[nodiscard]] const char* to_string(ConnectionLimiter::Refusal refusal) noexcept;

/// The limiter's record of one connection.
struct ConnectionLimiter::Slot {
    ConnectionLimiter& owner;
    std::string address;
    int fd;
    bool counted = true;  // false once shed: its place is already given back
    Phase phase = Phase::handling;
    bool listed = false;                     // in idle_ or reading_, by phase
    std::list<Slot*>::iterator position{};  // there
    Clock::time_point since{};              // of the phase
};

}  // namespace abci::serve
