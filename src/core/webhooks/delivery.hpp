#pragma once
// The delivery worker: fans the outbox's events out into deliveries, one per
// subscription that asks for the event (events.hpp renders the body), sends
// them as Standard Webhooks v1 says (signature.hpp), retries them on a
// schedule and records every attempt. It sleeps until an event is written or
// a delivery queued (wake()) or the next retry is due, never polling per
// request; with replicas on one database each event and each delivery is
// handled by one of them at a time, under a lease (store/webhooks.hpp).
// A pool of senders sends deliveries of different subscriptions at once, so a
// receiver that hangs holds up its own subscription only; the store hands out
// one delivery per subscription at a time (claim_due), which keeps a mint's
// events in order and a receiver from being sent two at once.

#include <chrono>
#include <condition_variable>
#include <deque>
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
    /// A request's connection, and each read and write, time out after this
    /// ([webhooks] timeout).
    std::chrono::milliseconds timeout{15'000};
    /// Deliveries sent at once, each to another subscription ([webhooks] concurrency).
    std::size_t concurrency = 8;
    TargetPolicy policy;
    /// How often a worker with nothing due looks at the store anyway: other
    /// replicas queue deliveries it is not woken for.
    std::chrono::milliseconds idle_check{5'000};
    /// A subscription none of whose attempts succeeded for this long is disabled ([webhooks] disableAfter).
    std::chrono::milliseconds disable_after = store::kDefaultDisableAfter;

    [[nodiscard]] static std::vector<std::chrono::milliseconds> default_schedule();
};

/// "500ms", "5s", "5m", "2h": a wait of at most 7 days from its text form
/// (a number and a unit, ms, s, m or h). Error(invalid_input) naming the text.
[[nodiscard]] std::chrono::milliseconds parse_wait(const std::string& text);
/// "0s, 5s, 5m, 30m, 2h": a schedule from its text form, each entry a wait
/// (parse_wait). Error(invalid_input) naming the bad entry.
[[nodiscard]] std::vector<std::chrono::milliseconds> parse_schedule(const std::string& text);
/// A wait as parse_wait reads it, in its largest whole unit.
[[nodiscard]] std::string wait_text(std::chrono::milliseconds wait);
[[nodiscard]] std::string schedule_text(const std::vector<std::chrono::milliseconds>& schedule);

class DeliveryWorker {
public:
    /// Starts the worker's thread and its senders; `owner` names this server in the leases.
    DeliveryWorker(store::Store& store, const SecretBox& box, DeliverySettings settings, std::string owner,
                   EventViews views);
    /// Stops it: the attempts in flight finish (at most `timeout`), what is
    /// left is due for whichever server runs next.
    ~DeliveryWorker();
    DeliveryWorker(const DeliveryWorker&) = delete;
    DeliveryWorker& operator=(const DeliveryWorker&) = delete;

    /// A delivery was queued or became due: look now.
    void wake();

private:
    /// The worker's thread: fans out, claims as many deliveries as senders are
    /// free and hands them over.
    void run();
    /// A sender's thread: sends what it is handed, then whatever is due next
    /// until nothing is, until the worker has stopped.
    void send();
    /// Fans out what the outbox holds; false when the worker is stopping.
    bool fan_out(std::chrono::milliseconds lease);
    void deliver(const store::WebhookDelivery& delivery);
    [[nodiscard]] std::chrono::milliseconds with_jitter(std::chrono::milliseconds wait);

    store::Store& store_;
    const SecretBox& box_;
    const DeliverySettings settings_;
    const std::string owner_;
    const EventViews views_;
    std::mutex mutex_;  // guards what follows, up to the threads
    std::mt19937_64 random_;
    std::condition_variable changed_;  // for the worker: woken_, stopping_
    std::condition_variable handed_;   // for the senders: handed_over_, closed_
    bool woken_ = true;
    bool stopping_ = false;
    bool closed_ = false;  // the worker has stopped: nothing more is handed over
    std::deque<store::WebhookDelivery> handed_over_;  // claimed, not yet taken by a sender
    std::size_t busy_ = 0;  // senders handed a delivery and not idle again
    std::vector<std::thread> senders_;
    std::thread thread_;
    std::shared_ptr<void> events_written_;  // wake() while registered: last, gone first
};

}  // namespace abci::webhooks
