#pragma once
// Webhook subscriptions and their deliveries (DESIGN.md §11, issue 34).
//
// A delivery is one event for one subscription: its body is fixed when it is
// queued, so every attempt sends the same bytes under the same message id
// (the receiver's idempotency key, the `webhook-id` header). Servers sharing
// a database deliver a given delivery one at a time: a server claims due
// deliveries with a lease (claim_due) and records an attempt only while its
// lease holds. Times that decide who may deliver are the database's clock,
// as the lanes' leases are, so servers with skewed clocks agree.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/store/records.hpp"
#include "core/store/webhook_events.hpp"

namespace abci::store {

struct WebhookSubscription {
    std::string id;  // "wh_" + random
    std::string url;
    std::vector<std::string> events;  // event types, e.g. "mint.confirmed"
    std::string description;
    bool enabled = true;
    std::string disabled_reason;  // why it was disabled, when it was by the server (410, …); else empty
    std::optional<TimePoint> disabled_at;  // when the server disabled it; none when an admin did or it is enabled
    /// The first failed attempt since its last success: none while its deliveries succeed.
    std::optional<TimePoint> failing_since;
    std::string sealed_secret;    // the signing secret, sealed (webhooks/secret_box.hpp), never shown
    /// The secret it had before its last rotation, still signing beside the
    /// new one until previous_secret_until; empty when none.
    std::string sealed_previous_secret;
    std::optional<TimePoint> previous_secret_until;
    TimePoint created_at;
    TimePoint updated_at;
};

struct NewWebhookSubscription {
    std::string id;  // chosen by the caller: the sealed secret is bound to it
    std::string url;
    std::vector<std::string> events;
    std::string description;
    std::string sealed_secret;
};

/// What PATCH changes; a field left empty keeps its value.
struct WebhookSubscriptionChange {
    std::optional<std::string> url;
    std::optional<std::vector<std::string>> events;
    std::optional<std::string> description;
    std::optional<bool> enabled;  // enabling or disabling clears disabled_reason, disabled_at and failing_since
};

enum class DeliveryState { pending, succeeded, failed };
[[nodiscard]] const char* to_string(DeliveryState state) noexcept;
[[nodiscard]] std::optional<DeliveryState> parse_delivery_state(std::string_view name) noexcept;

struct WebhookDelivery {
    std::string id;  // "whd_" + random: names it in the API (replay)
    std::string subscription_id;
    std::string message_id;  // webhook-id: "msg_" + random, the same on every attempt and replay
    std::string type;
    std::string body;  // exactly the bytes sent
    DeliveryState state = DeliveryState::pending;
    std::int64_t attempts = 0;
    TimePoint next_attempt_at;
    TimePoint created_at;
    TimePoint updated_at;
};

struct WebhookAttempt {
    TimePoint attempted_at;
    int status = 0;  // the receiver's HTTP status; 0 when there was no answer
    std::int64_t latency_ms = 0;
    std::string error;  // why it failed, empty on success
};

/// An event of the outbox (webhook_events.hpp), claimed for fan-out.
struct OutboxEvent {
    std::string id;  // the message id (webhook-id) of every delivery made of it
    StoredEvent event;
};

/// Standard Webhooks' advice: a subscription failing for 5 days is disabled.
inline constexpr std::chrono::hours kDefaultDisableAfter{24 * 5};

/// What an attempt leads to.
struct AttemptOutcome {
    WebhookAttempt attempt;
    DeliveryState state = DeliveryState::pending;
    std::chrono::milliseconds retry_in{0};  // when state is pending: how long until the next attempt
    std::string disable_reason;             // non-empty: disable the subscription too (a 410)
    /// A failed attempt disables the subscription when it has been failing
    /// (failing_since, by the attempts' times) at least this long ([webhooks] disableAfter).
    std::chrono::milliseconds disable_after = kDefaultDisableAfter;
};

class Webhooks {
public:
    virtual ~Webhooks() = default;

    /// Error(conflict) when the id exists.
    [[nodiscard]] virtual WebhookSubscription create_subscription(const NewWebhookSubscription& subscription) = 0;
    [[nodiscard]] virtual std::optional<WebhookSubscription> find_subscription(const std::string& id) = 0;
    /// Every subscription, oldest first.
    [[nodiscard]] virtual std::vector<WebhookSubscription> list_subscriptions() = 0;
    /// The subscription changed, or nothing when there is none with this id.
    [[nodiscard]] virtual std::optional<WebhookSubscription> update_subscription(
        const std::string& id, const WebhookSubscriptionChange& change) = 0;
    /// Makes `sealed_secret` the secret and the current one the previous,
    /// signing beside it for `overlap`. Nothing when there is no such subscription.
    [[nodiscard]] virtual std::optional<WebhookSubscription> rotate_secret(const std::string& id,
                                                                           const std::string& sealed_secret,
                                                                           std::chrono::milliseconds overlap) = 0;
    /// Removes the subscription with its deliveries and their attempts; false when there is none.
    [[nodiscard]] virtual bool remove_subscription(const std::string& id) = 0;

    /// Queues `body` as event `type` for the subscription, due now.
    /// Error(not_found) when the subscription does not exist.
    [[nodiscard]] virtual WebhookDelivery enqueue(const std::string& subscription_id, const std::string& type,
                                                  const std::string& body) = 0;
    [[nodiscard]] virtual std::optional<WebhookDelivery> find_delivery(const std::string& id) = 0;
    /// The subscription's deliveries, newest first, at most `limit`.
    [[nodiscard]] virtual std::vector<WebhookDelivery> deliveries(const std::string& subscription_id,
                                                                  std::size_t limit) = 0;
    /// A delivery's attempts, oldest first.
    [[nodiscard]] virtual std::vector<WebhookAttempt> attempts(const std::string& delivery_id) = 0;

    /// Claims for `owner`, for `lease`, up to `limit` outbox events whose
    /// lease (anyone's) has run out, oldest first, each only once no older
    /// event of its mint is left in the outbox: a mint's events are fanned
    /// out, and so delivered, in the order they happened.
    [[nodiscard]] virtual std::vector<OutboxEvent> claim_events(const std::string& owner,
                                                                std::chrono::milliseconds lease,
                                                                std::size_t limit) = 0;
    /// Makes a claimed event one delivery of `body` per enabled subscription
    /// that asks for its type, each due now under the event's id as message
    /// id, and removes it from the outbox, in one transaction. The number of
    /// deliveries, or nothing (nothing written) when `owner`'s lease was lost.
    [[nodiscard]] virtual std::optional<std::size_t> fan_out(const std::string& event_id, const std::string& owner,
                                                             const std::string& body) = 0;

    /// Claims for `owner`, for `lease`, up to `limit` pending deliveries that
    /// are due and whose lease (anyone's) has run out, oldest due first, of
    /// enabled subscriptions only, and none while an older delivery of the
    /// same mint to the same subscription is still pending. At most one of a
    /// subscription, and none of one whose delivery is leased (in flight) to
    /// any server: a subscription is sent one delivery at a time.
    [[nodiscard]] virtual std::vector<WebhookDelivery> claim_due(const std::string& owner,
                                                                 std::chrono::milliseconds lease,
                                                                 std::size_t limit) = 0;
    /// Records an attempt of a delivery `owner` claimed and applies its
    /// outcome, releasing the lease; false (nothing written) when the lease
    /// was lost, to another server or by a replay. In the same transaction, a
    /// success clears the subscription's failing_since, a failure sets it if
    /// unset and disables the subscription (disabled_at, a reason) for a 410
    /// or once it is `outcome.disable_after` old.
    [[nodiscard]] virtual bool record_attempt(const std::string& delivery_id, const std::string& owner,
                                              const AttemptOutcome& outcome) = 0;
    /// Queues a delivery again, due now, with its message id and body; its
    /// attempts stay. Nothing when there is no such delivery of this subscription.
    [[nodiscard]] virtual std::optional<WebhookDelivery> replay(const std::string& subscription_id,
                                                                const std::string& delivery_id) = 0;
    /// How long until the first pending delivery of an enabled subscription is
    /// due (zero when one is due now), of those claim_due() would take;
    /// nothing when none is pending.
    [[nodiscard]] virtual std::optional<std::chrono::milliseconds> next_due() = 0;

    /// Removes up to `limit` deliveries that succeeded or failed (never a
    /// pending one) and last changed before `finished_before`, oldest first,
    /// with their attempts, in one transaction; how many it removed.
    [[nodiscard]] virtual std::size_t remove_finished_deliveries(TimePoint finished_before, std::size_t limit) = 0;
};

}  // namespace abci::store
