#pragma once
// What an admin does with webhook subscriptions (issue 34 item 2), over the
// store: requests validated, URLs held to the target policy, signing secrets
// made here, shown once and stored sealed.

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/store/store.hpp"
#include "core/webhooks/secret_box.hpp"
#include "core/webhooks/target_policy.hpp"

namespace abci::webhooks {

/// The event types a subscription may ask for: issue 34 item 3's and webhook.test.
[[nodiscard]] const std::vector<std::string>& event_types();

/// How long a rotated-out secret keeps signing beside its successor, so that
/// receivers can switch to the new one without losing a delivery.
inline constexpr std::chrono::hours kRotationOverlap{24};

/// A subscription with its secret in the clear: what create and rotate
/// answer, the one time the secret is shown.
struct WithSecret {
    store::WebhookSubscription subscription;
    std::string secret;
};

struct DeliveryRecord {
    store::WebhookDelivery delivery;
    std::vector<store::WebhookAttempt> attempts;
};

/// The bytes of an event as sent: {"type","timestamp","data"}.
[[nodiscard]] std::string event_body(const std::string& type, const nlohmann::json& data);

/// The secrets that sign a delivery of `subscription` now, newest first (two
/// during a rotation's overlap). Error(internal) when one does not open.
[[nodiscard]] std::vector<std::string> signing_secrets(const store::WebhookSubscription& subscription,
                                                       const SecretBox& box);

class Subscriptions {
public:
    /// `queued` is told when a delivery is queued (the delivery worker's wake-up).
    Subscriptions(store::Store& store, const SecretBox& box, TargetPolicy policy, std::function<void()> queued);

    /// {url, events, description?}. Error(invalid_input) listing every problem.
    [[nodiscard]] WithSecret create(const nlohmann::json& body);
    [[nodiscard]] std::vector<store::WebhookSubscription> list();
    /// Error(not_found) for an unknown id, as every method taking one.
    [[nodiscard]] store::WebhookSubscription get(const std::string& id);
    /// {url?, events?, description?, enabled?}: at least one.
    [[nodiscard]] store::WebhookSubscription update(const std::string& id, const nlohmann::json& body);
    void remove(const std::string& id);
    [[nodiscard]] WithSecret rotate_secret(const std::string& id);
    /// Queues a webhook.test event for the subscription, whatever its event types.
    [[nodiscard]] store::WebhookDelivery send_test(const std::string& id);
    /// Its deliveries, newest first: `limit` (1 to 500, default 50) of them.
    [[nodiscard]] std::vector<DeliveryRecord> deliveries(const std::string& id, const std::optional<std::string>& limit);
    /// Queues the delivery again with its message id and body.
    [[nodiscard]] store::WebhookDelivery replay(const std::string& id, const std::string& delivery_id);
    /// Why create() and rotate_secret() are refused on this server (422), or
    /// nothing: SecretBox::why_not_sealing(), for its health to tell.
    [[nodiscard]] std::optional<std::string> why_not_creating() const { return box_.why_not_sealing(); }

private:
    [[nodiscard]] std::string checked_url(const std::string& url) const;

    store::Store& store_;
    const SecretBox& box_;
    TargetPolicy policy_;
    std::function<void()> queued_;
};

}  // namespace abci::webhooks
