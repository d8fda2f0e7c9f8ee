#pragma once
// Routes and the middleware every request goes through, in this order:
// request id → client address → (for /abci/*: the gate of spec 5.2 — caller,
// permission, rate limit) → (authenticated routes: caller, per-user rate
// limit) → handler → error mapping → audit row (/abci/*) → request log line.
// Handlers receive a RequestContext and return a Reply, or throw abci::Error.

#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/auth/auth_service.hpp"
#include "core/content/content_store.hpp"
#include "core/limits/counters.hpp"
#include "core/store/store.hpp"
#include "serve/http_error.hpp"
#include "serve/http_metrics.hpp"
#include "serve/settings.hpp"

namespace httplib {
class Server;
struct Request;
struct Response;
}  // namespace httplib

namespace abci::service {
class Registry;
class AbciService;
}  // namespace abci::service

namespace abci::webhooks {
class Subscriptions;
}  // namespace abci::webhooks

namespace abci::serve {

/// What the routes share: settings, the store, authentication, limiters.
struct Services {
    Services(const Settings& settings_, const limits::Counters& counters, store::Store& store_, auth::AuthService& auth_,
             content::ContentStore& content_, service::Registry& registry_, service::AbciService& abci_,
             webhooks::Subscriptions& webhooks_)
        : settings(settings_),
          store(store_),
          auth(auth_),
          content(content_),
          registry(registry_),
          abci(abci_),
          webhooks(webhooks_),
          abci_limiter(counters.limiter(settings_.abci_rate, "abci")),
          api_limiter(counters.limiter(settings_.api_rate, "api")) {}

    const Settings& settings;
    store::Store& store;
    auth::AuthService& auth;
    content::ContentStore& content;
    service::Registry& registry;
    service::AbciService& abci;
    webhooks::Subscriptions& webhooks;
    std::unique_ptr<limits::Limiter> abci_limiter;
    std::unique_ptr<limits::Limiter> api_limiter;
};

class RequestContext {
public:
    RequestContext(const httplib::Request& request, httplib::Response& response, Services& services);

    const httplib::Request& request;
    httplib::Response& response;
    Services& services;
    std::string request_id;
    std::string client_address;
    std::optional<auth::Principal> principal;  // set on authenticated routes and /abci

    /// The body as a JSON object; Error(invalid_input) when it is not JSON, not
    /// an object, or nested deeper than the configured limit.
    [[nodiscard]] nlohmann::json json_body() const;
    /// A query parameter, or nothing.
    [[nodiscard]] std::optional<std::string> query(const std::string& name) const;
    /// The path parameter matched by the route's n-th regex group.
    [[nodiscard]] std::string path_match(std::size_t n) const;
    /// The caller; only valid on authenticated routes.
    [[nodiscard]] const auth::Principal& caller() const { return *principal; }
};

struct Reply {
    [[nodiscard]] static Reply json(int status, nlohmann::json body) {
        Reply reply;
        reply.status = status;
        reply.body = std::move(body);
        return reply;
    }
    /// The spec's success body without metadata: {success: true, data}.
    [[nodiscard]] static Reply data(int status, nlohmann::json data) {
        return json(status, {{"success", true}, {"data", std::move(data)}});
    }
    [[nodiscard]] static Reply redirect(std::string location) {
        Reply reply;
        reply.status = 302;
        reply.location = std::move(location);
        return reply;
    }

    int status = 200;
    nlohmann::json body;
    std::string location;  // set: a 302 redirect to it, body ignored
    std::string raw;           // sent as is instead of `body` when content_type is set
    std::string content_type;
};

/// The methods a route can answer: each is registered through cpp-httplib's
/// function for it, so a method the router could not register cannot be named.
enum class Method { get, post, put, patch, delete_ };
inline constexpr std::array<Method, 5> kRouteMethods{Method::get, Method::post, Method::put, Method::patch,
                                                     Method::delete_};
/// "GET", "POST", …: the method as the request line and the audit log spell it.
[[nodiscard]] std::string_view to_string(Method method) noexcept;

/// Who may call a route; the router checks it before the handler runs.
enum class Access {
    open,           // anyone (logins, probes, content)
    authenticated,  // a signed-in user (not an API key), rate-limited per user
    admin,          // a signed-in user with the admin role (spec 5.5)
    abci,           // the gate of spec 5.2: every caller rate-limited and audited; an admin, or a caller holding the route's scope
};

/// A route, declared once (src/serve/routes/table.cpp gathers them all):
/// what it answers, who may call it, and its handler.
struct Route {
    using Handler = std::function<Reply(RequestContext&)>;

    Method method = Method::get;
    std::string pattern;  // a cpp-httplib regex over the path ("/api/practices", "/v1/x/([^/]+)")
    Access access = Access::authenticated;
    /// Access::abci: the API-key scope that also grants it (spec 5.2); none: the admin role only.
    std::optional<std::string> scope;
    Handler handler;
    /// The 401 code of an unauthenticated error the handler throws (login routes: invalid_credentials).
    Unauthorized handler_unauthorized = Unauthorized::invalid_token;
};

class Router {
public:
    /// `metrics` receives each route's requests and must outlive the server.
    Router(httplib::Server& server, Services& services, HttpMetrics& metrics)
        : server_(server), services_(services), metrics_(metrics) {}

    /// Registers `route` after those added before it (the first match answers).
    void add(Route route);

private:
    httplib::Server& server_;
    Services& services_;
    HttpMetrics& metrics_;
};


}  // namespace abci::serve
