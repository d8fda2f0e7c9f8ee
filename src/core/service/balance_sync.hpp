#pragma once
// Reconciles stored token balances with the chain (spec 4.3, 4.7) at most
// once per block per wallet. Balances only change with a new block, so a read
// first learns the chain's head (ChainClient::recent_head: observed at most
// the network's headMaxAgeMs ago, by one eth_blockNumber shared by all reads)
// and reads the balances again only when the head moved since this wallet's
// last sync. A burst of balance reads then costs the node a few calls a
// second instead of one balanceOfBatch each, and the database no write per read.

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "core/eth/address.hpp"

namespace abci::store {
class Store;
}

namespace abci::service {

class Network;

class BalanceSync {
public:
    using TimePoint = std::chrono::system_clock::time_point;

    /// `store` must outlive this object.
    explicit BalanceSync(store::Store& store) : store_(store) {}

    /// Brings the stored balances of every token id of `address` on `network`
    /// up to date with the chain's head. Returns the time they were known to
    /// be current (when the head was observed, or the balances read), or nothing when the node did not answer (within the probe
    /// client's short deadline): the stored values then stand as they are.
    [[nodiscard]] std::optional<TimePoint> sync(Network& network, const eth::Address& address);

private:
    store::Store& store_;
    struct Synced {
        std::uint64_t head;  // the head the balances were read at (or after)
        TimePoint at;        // when they were read
    };
    std::mutex mutex_;  // guards synced_at_; never held across a call
    std::unordered_map<std::string, Synced> synced_at_;  // "<network>/<address>" -> its last sync
};

}  // namespace abci::service
