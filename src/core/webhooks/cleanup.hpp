#pragma once
// Removes finished webhook deliveries once they are older than [webhooks]
// keepDeliveries, with their attempts, so that the deliveries table holds
// what an admin may still replay rather than every event ever sent. Every
// server runs it: a removal is one bounded transaction, harmless to repeat.

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <thread>

#include "core/store/store.hpp"

namespace abci::webhooks {

struct CleanupSettings {
    /// How long a delivery that succeeded or failed is kept after its last attempt or replay.
    std::chrono::seconds keep_deliveries{std::chrono::hours(24 * 30)};
    /// How often it looks; the first look is at start.
    std::chrono::milliseconds interval{std::chrono::hours(1)};
    /// Deliveries removed per transaction, so that no removal holds the database for long.
    std::size_t batch = 500;
};

class DeliveryCleanup {
public:
    DeliveryCleanup(store::Store& store, CleanupSettings settings);
    /// Stops it, after the batch in progress.
    ~DeliveryCleanup();
    DeliveryCleanup(const DeliveryCleanup&) = delete;
    DeliveryCleanup& operator=(const DeliveryCleanup&) = delete;

private:
    void run();
    /// One look: batches until one comes back short or it is stopping.
    void remove_old();

    store::Store& store_;
    const CleanupSettings settings_;
    std::mutex mutex_;
    std::condition_variable stop_;
    bool stopping_ = false;
    std::thread thread_;  // last: started once the above is ready
};

}  // namespace abci::webhooks
