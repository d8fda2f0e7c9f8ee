// /api/admin/webhooks: webhook subscriptions and their deliveries (issue 34
// item 2), admin only. The work is webhooks::Subscriptions'; a signing secret
// is in an answer twice only: when it is made (create, rotate-secret).

#include "core/webhooks/subscriptions.hpp"
#include "serve/router.hpp"
#include "serve/routes/routes.hpp"
#include "serve/routes/views.hpp"

namespace abci::serve {

namespace {

using nlohmann::json;

json subscription_view(const store::WebhookSubscription& s) {
    const bool rotating = !s.sealed_previous_secret.empty() && s.previous_secret_until &&
                          *s.previous_secret_until > std::chrono::system_clock::now();
    return {{"id", s.id},
            {"url", s.url},
            {"events", s.events},
            {"description", s.description},
            {"enabled", s.enabled},
            {"disabledReason", s.disabled_reason.empty() ? json(nullptr) : json(s.disabled_reason)},
            {"disabledAt", s.disabled_at ? json(iso_time(*s.disabled_at)) : json(nullptr)},
            {"failingSince", s.failing_since ? json(iso_time(*s.failing_since)) : json(nullptr)},
            {"previousSecretUntil", rotating ? json(iso_time(*s.previous_secret_until)) : json(nullptr)},
            {"createdAt", iso_time(s.created_at)},
            {"updatedAt", iso_time(s.updated_at)}};
}

json with_secret_view(const webhooks::WithSecret& created) {
    auto view = subscription_view(created.subscription);
    view["secret"] = created.secret;
    return view;
}

json delivery_view(const store::WebhookDelivery& d) {
    return {{"id", d.id},
            {"webhookId", d.message_id},
            {"type", d.type},
            {"state", to_string(d.state)},
            {"attempts", d.attempts},
            {"nextAttemptAt", d.state == store::DeliveryState::pending ? json(iso_time(d.next_attempt_at)) : json(nullptr)},
            {"createdAt", iso_time(d.created_at)}};
}

json attempt_view(const store::WebhookAttempt& a) {
    return {{"time", iso_time(a.attempted_at)},
            {"status", a.status == 0 ? json(nullptr) : json(a.status)},
            {"latencyMs", a.latency_ms},
            {"error", a.error.empty() ? json(nullptr) : json(a.error)}};
}

webhooks::Subscriptions& subscriptions(RequestContext& ctx) { return ctx.services.webhooks; }

Reply create(RequestContext& ctx) { return Reply::data(201, with_secret_view(subscriptions(ctx).create(ctx.json_body()))); }

Reply list(RequestContext& ctx) {
    json data = json::array();
    for (const auto& s : subscriptions(ctx).list()) data.push_back(subscription_view(s));
    return Reply::data(200, std::move(data));
}

Reply show(RequestContext& ctx) { return Reply::data(200, subscription_view(subscriptions(ctx).get(ctx.path_match(1)))); }

Reply update(RequestContext& ctx) {
    return Reply::data(200, subscription_view(subscriptions(ctx).update(ctx.path_match(1), ctx.json_body())));
}

Reply remove(RequestContext& ctx) {
    subscriptions(ctx).remove(ctx.path_match(1));
    return Reply::data(200, {{"id", ctx.path_match(1)}, {"removed", true}});
}

Reply rotate_secret(RequestContext& ctx) {
    return Reply::data(200, with_secret_view(subscriptions(ctx).rotate_secret(ctx.path_match(1))));
}

Reply send_test(RequestContext& ctx) {
    return Reply::data(202, delivery_view(subscriptions(ctx).send_test(ctx.path_match(1))));
}

Reply deliveries(RequestContext& ctx) {
    json data = json::array();
    for (const auto& record : subscriptions(ctx).deliveries(ctx.path_match(1), ctx.query("limit"))) {
        auto view = delivery_view(record.delivery);
        view["attemptLog"] = json::array();
        for (const auto& attempt : record.attempts) view["attemptLog"].push_back(attempt_view(attempt));
        data.push_back(std::move(view));
    }
    return Reply::data(200, std::move(data));
}

Reply replay(RequestContext& ctx) {
    return Reply::data(202, delivery_view(subscriptions(ctx).replay(ctx.path_match(1), ctx.path_match(2))));
}

}  // namespace

std::vector<Route> webhook_routes() {
    const auto admin = Access::admin;
    const std::string one = "/api/admin/webhooks/([^/]+)";
    return {
        {Method::post, "/api/admin/webhooks", admin, {}, create},
        {Method::get, "/api/admin/webhooks", admin, {}, list},
        {Method::get, one, admin, {}, show},
        {Method::patch, one, admin, {}, update},
        {Method::delete_, one, admin, {}, remove},
        {Method::post, one + "/rotate-secret", admin, {}, rotate_secret},
        {Method::post, one + "/test", admin, {}, send_test},
        {Method::get, one + "/deliveries", admin, {}, deliveries},
        {Method::post, one + "/deliveries/([^/]+)/replay", admin, {}, replay},
    };
}

}  // namespace abci::serve
