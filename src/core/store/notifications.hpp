#pragma once
// Wake-ups between the servers on one database (PostgreSQL's LISTEN and
// NOTIFY): a write another server may be waiting for names a channel as it
// commits. A notification is only ever a hint that something changed: one
// sent while a listener's connection was down is lost, so whoever waits also
// looks again now and then.
#include <chrono>
#include <string>
#include <vector>

namespace abci::store {

/// A mint job was queued (mint_jobs.hpp); the payload is its mint id.
inline constexpr const char* kMintQueuedChannel = "abci_mint_queued";
/// A mint became final (Mints::finish, release); the payload is its id.
inline constexpr const char* kMintSettledChannel = "abci_mint_settled";
/// The lane's owner stopped waiting for a queued mint's receipt (it stays
/// pending: Mints::announce_unsettled); the payload is its id.
inline constexpr const char* kMintUnsettledChannel = "abci_mint_unsettled";

struct Notification {
    std::string channel;
    std::string payload;
};

class Listener {
public:
    virtual ~Listener() = default;
    /// What arrived within `timeout` (maybe nothing). A lost connection is
    /// opened again, listening anew, on a later call; never throws.
    [[nodiscard]] virtual std::vector<Notification> wait(std::chrono::milliseconds timeout) = 0;
};

}  // namespace abci::store
