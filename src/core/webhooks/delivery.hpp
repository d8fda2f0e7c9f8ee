#pragma once
// The delivery worker: fans the outbox's events out into deliveries, one per
// subscription that asks for the event (events.hpp renders the body), sends
// them as Standard Webhooks v1 says (signature.hpp), retries them on a
// schedule and records every attempt. It sleeps until an event is written or
// a delivery queued (wake()) or the next retry is due, never polling per
// request; with replicas on one database each event and each delivery is
// handled by one of them at a time, under a lease (store/webhooks.hpp).

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/store/store.hpp"
#include "core/webhooks/events.hpp"
#include "core/webhooks/secret_box.hpp"
#include "core/webhooks/target_policy.hpp"

namespace abci::webhooks {

struct DeliverySettings {
    /// The wait before each attempt: the first is the first attempt's (0:
    /// at once), then one per retry; after the last, the delivery has failed.
    /// Standard Webhooks' schedule by default ([webhooks] retrySchedule).
    std::vector<std::chrono::milliseconds> schedule = default_schedule();
    /// A request's connection, and each read and write, time out after this.
    std::chrono::milliseconds timeout{15'000};
    TargetPolicy policy;
    /// How often a worker with nothing due looks at the store anyway: other
    /// replicas queue deliveries it is not woken for.
    std::chrono::milliseconds idle_check{5'000};
    /// A subscription none of whose attempts succeeded for this long is disabled ([webhooks] disableAfter).
    std::chrono::milliseconds disable_after = store::kDefaultDisableAfter;

    [[nodiscard]] static std::vector<std::chrono::milliseconds> default_schedule();
};

/// "0s, 5s, 5m, 30m, 2h": a schedule from its text form (each a number and
/// a unit, ms, s, m or h). Error(invalid_input) naming the bad entry.
[[nodiscard]] std::vector<std::chrono::milliseconds> parse_schedule(const std::string& text);
[[nodiscard]] std::string schedule_text(const std::vector<std::chrono::milliseconds>& schedule);

class DeliveryWorker {
public:
    /// Starts the worker's thread; `owner` names this server in the leases.
    DeliveryWorker(store::Store& store, const SecretBox& box, DeliverySettings settings, std::string owner,
                   EventViews views);
    /// Stops it: an attempt in flight finishes (at most `timeout`), what is
    /// left is due for whichever server runs next.
    ~DeliveryWorker();
    DeliveryWorker(const DeliveryWorker&) = delete;
    DeliveryWorker& operator=(const DeliveryWorker&) = delete;

    /// A delivery was queued or became due: look now.
    void wake();

private:
    void run();
    /// Fans out what the outbox holds; false when the worker is stopping.
    bool fan_out(std::chrono::milliseconds lease);
    void deliver(const store::WebhookDelivery& delivery);
    [[nodiscard]] std::chrono::milliseconds with_jitter(std::chrono::milliseconds wait);

    store::Store& store_;
    const SecretBox& box_;
    const DeliverySettings settings_;
    const std::string owner_;
    const EventViews views_;
    std::mt19937_64 random_;
    std::mutex mutex_;
    std::condition_variable changed_;
    bool woken_ = true;
    bool stopping_ = false;
    std::thread thread_;
    std::shared_ptr<void> events_written_;  // wake() while registered: last, gone first
};

}  // namespace abci::webhooks
