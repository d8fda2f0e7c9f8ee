#include "core/webhooks/subscriptions.hpp"

#include <algorithm>

#include "core/crypto/encoding.hpp"
#include "core/error.hpp"
#include "core/util/fields.hpp"
#include "core/util/time.hpp"
#include "core/webhooks/signature.hpp"

namespace abci::webhooks {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxUrl = 2048;
constexpr std::size_t kMaxDescription = 500;

std::string known_types() {
    std::string names;
    for (const auto& type : event_types()) names += (names.empty() ? "" : ", ") + type;
    return names;
}

/// The `events` member: a non-empty array of known types, each once.
std::optional<std::vector<std::string>> read_events(const json& body, util::Fields& fields, bool required) {
    const auto it = body.find("events");
    if (it == body.end() || it->is_null()) {
        fields.check(!required, "events is required: an array of event types (" + known_types() + ")");
        return std::nullopt;
    }
    if (!it->is_array() || it->empty()) {
        fields.check(false, "events must be a non-empty array of event types (" + known_types() + ")");
        return std::nullopt;
    }
    std::vector<std::string> events;
    for (const auto& item : *it) {
        if (!item.is_string() ||
            std::find(event_types().begin(), event_types().end(), item.get<std::string>()) == event_types().end()) {
            fields.check(false, "events: " + (item.is_string() ? "'" + item.get<std::string>() + "'" : item.dump()) +
                                    " is not an event type; known: " + known_types());
            continue;
        }
        if (std::find(events.begin(), events.end(), item.get<std::string>()) == events.end())
            events.push_back(item.get<std::string>());
    }
    return events;
}

void refuse_unknown_members(const json& body, util::Fields& fields, std::initializer_list<const char*> known) {
    for (const auto& [key, value] : body.items())
        fields.check(std::find_if(known.begin(), known.end(), [&](const char* k) { return key == k; }) != known.end(),
                     "'" + key + "' is not a field of a webhook subscription");
}

}  // namespace

const std::vector<std::string>& event_types() {
    static const std::vector<std::string> types = [] {
        std::vector<std::string> names;
        for (const auto type : store::all_event_types()) names.emplace_back(to_string(type));
        return names;
    }();
    return types;
}

std::string event_body(const std::string& type, const json& data) {
    return json{{"type", type}, {"timestamp", util::format_iso8601_utc(std::chrono::system_clock::now())},
                {"data", data}}
        .dump();
}

std::vector<std::string> signing_secrets(const store::WebhookSubscription& subscription, const SecretBox& box) {
    std::vector<std::string> secrets{box.open(subscription.sealed_secret, subscription.id)};
    if (!subscription.sealed_previous_secret.empty() && subscription.previous_secret_until &&
        *subscription.previous_secret_until > std::chrono::system_clock::now())
        secrets.push_back(box.open(subscription.sealed_previous_secret, subscription.id));
    return secrets;
}

Subscriptions::Subscriptions(store::Store& store, const SecretBox& box, TargetPolicy policy,
                             std::function<void()> queued)
    : store_(store), box_(box), policy_(policy), queued_(std::move(queued)) {}

std::string Subscriptions::checked_url(const std::string& url) const {
    const auto parsed = check_target_url(url, policy_);
    try {
        (void)resolve_target(parsed, policy_);
    } catch (const Error& e) {
        // A name that does not resolve now may tomorrow: each delivery checks again.
        if (e.kind() != ErrorKind::unavailable) throw;
    }
    return url;
}

WithSecret Subscriptions::create(const json& body) {
    if (!body.is_object()) throw Error(ErrorKind::invalid_input, "invalid request", {"the body must be a JSON object"});
    util::Fields fields(body);
    refuse_unknown_members(body, fields, {"url", "events", "description"});
    const auto url = fields.required_string("url", kMaxUrl);
    auto events = read_events(body, fields, true);
    auto description = fields.optional_string("description", kMaxDescription).value_or("");
    fields.done();
    WithSecret created{.subscription = {}, .secret = new_secret()};
    const std::string id = "wh_" + crypto::random_token(16);
    created.subscription = store_.webhooks().create_subscription({.id = id,
                                                                  .url = checked_url(url),
                                                                  .events = std::move(*events),
                                                                  .description = std::move(description),
                                                                  .sealed_secret = box_.seal(created.secret, id)});
    return created;
}

std::vector<store::WebhookSubscription> Subscriptions::list() { return store_.webhooks().list_subscriptions(); }

store::WebhookSubscription Subscriptions::get(const std::string& id) {
    auto found = store_.webhooks().find_subscription(id);
    if (!found) throw Error(ErrorKind::not_found, "no webhook subscription " + id);
    return std::move(*found);
}

store::WebhookSubscription Subscriptions::update(const std::string& id, const json& body) {
    if (!body.is_object()) throw Error(ErrorKind::invalid_input, "invalid request", {"the body must be a JSON object"});
    util::Fields fields(body);
    refuse_unknown_members(body, fields, {"url", "events", "description", "enabled"});
    store::WebhookSubscriptionChange change;
    change.url = fields.optional_string("url", kMaxUrl);
    change.events = read_events(body, fields, false);
    change.description = fields.optional_string("description", kMaxDescription);
    if (const auto it = body.find("enabled"); it != body.end() && !it->is_null()) {
        fields.check(it->is_boolean(), "enabled must be true or false");
        if (it->is_boolean()) change.enabled = it->get<bool>();
    }
    fields.check(!body.empty(), "give at least one of url, events, description, enabled");
    fields.done();
    if (change.url) change.url = checked_url(*change.url);
    auto updated = store_.webhooks().update_subscription(id, change);
    if (!updated) throw Error(ErrorKind::not_found, "no webhook subscription " + id);
    // Enabled again: its waiting deliveries are due.
    if (change.enabled == true) queued_();
    return std::move(*updated);
}

void Subscriptions::remove(const std::string& id) {
    if (!store_.webhooks().remove_subscription(id)) throw Error(ErrorKind::not_found, "no webhook subscription " + id);
}

WithSecret Subscriptions::rotate_secret(const std::string& id) {
    WithSecret rotated{.subscription = {}, .secret = new_secret()};
    auto updated = store_.webhooks().rotate_secret(id, box_.seal(rotated.secret, id), kRotationOverlap);
    if (!updated) throw Error(ErrorKind::not_found, "no webhook subscription " + id);
    rotated.subscription = std::move(*updated);
    return rotated;
}

store::WebhookDelivery Subscriptions::send_test(const std::string& id) {
    (void)get(id);
    auto delivery = store_.webhooks().enqueue(id, to_string(store::EventType::webhook_test),
                                               event_body(to_string(store::EventType::webhook_test), {{"subscriptionId", id}}));
    queued_();
    return delivery;
}

std::vector<DeliveryRecord> Subscriptions::deliveries(const std::string& id, const std::optional<std::string>& limit) {
    std::size_t count = 50;
    if (limit) {
        const bool digits = !limit->empty() && limit->size() <= 3 &&
                            limit->find_first_not_of("0123456789") == std::string::npos;
        count = digits ? std::stoul(*limit) : 0;
        if (count < 1 || count > 500)
            throw Error(ErrorKind::invalid_input, "invalid request", {"limit must be an integer from 1 to 500"});
    }
    (void)get(id);
    std::vector<DeliveryRecord> records;
    for (auto& delivery : store_.webhooks().deliveries(id, count)) {
        auto attempts = store_.webhooks().attempts(delivery.id);
        records.push_back({std::move(delivery), std::move(attempts)});
    }
    return records;
}

store::WebhookDelivery Subscriptions::replay(const std::string& id, const std::string& delivery_id) {
    (void)get(id);
    auto replayed = store_.webhooks().replay(id, delivery_id);
    if (!replayed) throw Error(ErrorKind::not_found, "no delivery " + delivery_id + " of webhook subscription " + id);
    queued_();
    return std::move(*replayed);
}

}  // namespace abci::webhooks
