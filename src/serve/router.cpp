#include "serve/router.hpp"

#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <exception>

#include <fmt/format.h>

#include "core/crypto/encoding.hpp"
#include "core/util/strict_json.hpp"
#include "core/util/text.hpp"
#include "serve/log.hpp"

namespace abci::serve {

namespace {

std::string trim(std::string_view text) {
    const auto begin = text.find_first_not_of(" \t");
    if (begin == std::string_view::npos) return {};
    const auto end = text.find_last_not_of(" \t");
    return std::string(text.substr(begin, end - begin + 1));
}

bool contains(const std::vector<std::string>& list, const std::string& value) {
    return std::find(list.begin(), list.end(), value) != list.end();
}

/// The peer, or — when the peer is a trusted proxy — the right-most
/// X-Forwarded-For entry that is not itself a trusted proxy (entries to its
/// left are client-supplied and cannot be believed).
std::string client_address_of(const httplib::Request& request, const std::vector<std::string>& trusted) {
    std::string address = request.remote_addr;
    if (!contains(trusted, address) || !request.has_header("X-Forwarded-For")) return address;
    std::vector<std::string> hops;
    for (std::size_t i = 0, n = request.get_header_value_count("X-Forwarded-For"); i < n; ++i) {
        const auto value = request.get_header_value("X-Forwarded-For", i);
        std::size_t start = 0;
        while (start <= value.size()) {
            const auto comma = value.find(',', start);
            hops.push_back(trim(std::string_view(value).substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
            if (comma == std::string::npos) break;
            start = comma + 1;
        }
    }
    for (auto hop = hops.rbegin(); hop != hops.rend(); ++hop) {
        if (hop->empty()) break;
        address = *hop;
        if (!contains(trusted, *hop)) break;
    }
    return address;
}

std::string bearer_of(const httplib::Request& request) {
    const auto header = request.get_header_value("Authorization");
    constexpr std::string_view scheme = "Bearer ";
    if (header.size() <= scheme.size() ||
        !std::equal(scheme.begin(), scheme.end(), header.begin(), [](char a, char b) { return std::tolower(a) == std::tolower(b); }))
        return {};
    return trim(std::string_view(header).substr(scheme.size()));
}

void set_rate_headers(httplib::Response& response, const limits::RateDecision& decision) {
    response.set_header("RateLimit-Limit", std::to_string(decision.limit));
    response.set_header("RateLimit-Remaining", std::to_string(decision.remaining));
    response.set_header("RateLimit-Reset", std::to_string(decision.reset.count()));
}

/// Counts `key` against `limiter`, the limit set by config key `setting` or environment variable `env`.
void check_rate(httplib::Response& response, limits::Limiter& limiter, const std::string& key, const char* setting,
                const char* env) {
    if (!limiter.limit().enabled()) return;
    const auto decision = limiter.hit(key);
    set_rate_headers(response, decision);
    if (decision.allowed) return;
    // The admin's own CLI meets this limit first: say how it is changed.
    throw limits::RateLimitExceeded(
        fmt::format("rate limit of {} requests per {} s exceeded; retry in {} s (the server's operator sets the "
                    "limit with {} in its config file or {}; \"0\" turns it off)",
                    decision.limit, limiter.limit().window.count(), decision.reset.count(), setting, env),
        decision.reset, {limiter.limit(), setting, env});
}

/// A route's pattern as the audit log names it: each regex group becomes "*"
/// ("/abci/blockchains/*/status", and "/abci*" for the fallback).
std::string route_template(const std::string& pattern) {
    // By hand rather than with std::regex, whose instantiation GCC 12 (ASan build) warns of as maybe uninitialized.
    std::string out;
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        const auto close = pattern[i] == '(' ? pattern.find_first_of("()", i + 1) : std::string::npos;
        if (close == std::string::npos || pattern[close] != ')') {
            out += pattern[i];
            continue;
        }
        out += '*';
        i = close + 1 < pattern.size() && pattern[close + 1] == '?' ? close + 1 : close;
    }
    return out;
}

/// A request path as an audit row keeps it: at most 256 bytes of it (a
/// request line may be 8 KiB), not cutting a UTF-8 character in two.
std::string bounded_path(const std::string& path) {
    std::size_t kept = 256;
    if (path.size() <= kept) return path;
    while (kept > 0 && (static_cast<unsigned char>(path[kept]) & 0xC0) == 0x80) --kept;
    return path.substr(0, kept) + "…";
}

/// What every handler may read of the request line and headers is text
/// (core/util/text.hpp) or the request is a 400 naming the field, before any
/// handler, store or log sees it. Body strings are checked as the body is
/// parsed (RequestContext::json_body).
void require_request_text(const httplib::Request& request) {
    util::require_text(request.path, "the path");
    for (const auto& [name, value] : request.params) {
        util::require_text(name, "a query parameter's name");
        util::require_text(value, "query parameter " + name);
    }
    // cpp-httplib's get_header_value() returns a value only up to a NUL (RFC
    // 9110 5.5: reject it): "k\0zz" would be key "k" and a token with junk
    // after a NUL would pass. Read whole here, and refused.
    for (const auto& [name, value] : request.headers)
        if (name.find('\0') != std::string::npos || value.find('\0') != std::string::npos)
            throw Error(ErrorKind::invalid_input, "invalid request",
                        {"header " + util::escape_text(name) + " has a NUL character; send it without"});
    if (const auto key = request.headers.find("Idempotency-Key"); key != request.headers.end())
        util::require_text(key->second, "the Idempotency-Key header");
}

/// Every string of `value` (member names too) is text; `field` names where
/// `value` sits ("entityId", "attributes.color", "items[2]").
void require_json_text(const nlohmann::json& value, const std::string& field) {
    if (value.is_string()) {
        util::require_text(value.get_ref<const std::string&>(), field);
    } else if (value.is_object()) {
        for (const auto& [name, member] : value.items()) {
            util::require_text(name, field.empty() ? "a member name of the body" : "a member name in " + field);
            require_json_text(member, field.empty() ? name : field + "." + name);
        }
    } else if (value.is_array()) {
        std::size_t index = 0;
        for (const auto& item : value) require_json_text(item, field + "[" + std::to_string(index++) + "]");
    }
}

Error internal_error(const RequestContext& ctx) {
    return Error(ErrorKind::internal, "internal error (request " + ctx.request_id + ")");
}

Error missing_token() {
    return Error(ErrorKind::unauthenticated, "authentication required: send Authorization: Bearer <token>");
}

/// The /abci gate (spec 5.2 and 8): the caller is counted against the limit
/// before anything else is decided, so refused probes count too; then the
/// admin role, or an API key with the route's scope.
void pass_abci_gate(RequestContext& ctx, const std::optional<std::string>& scope, Unauthorized& why) {
    const auto bearer = bearer_of(ctx.request);
    std::exception_ptr refused;  // the error as thrown: a copy would lose what it is (http_error.cpp)
    try {
        if (bearer.empty()) {
            why = Unauthorized::missing_token;
            throw missing_token();
        }
        ctx.principal = ctx.services.auth.authenticate(bearer);
    } catch (const Error& e) {
        refused = std::current_exception();
    }
    check_rate(ctx.response, *ctx.services.abci_limiter,
               ctx.principal ? ctx.principal->actor() : "addr:" + ctx.client_address, "rate_limit.abci",
               "ABCI_RATE_LIMIT");
    if (refused) std::rethrow_exception(refused);
    auth::require(ctx.principal->is_admin() || (scope && ctx.principal->has_scope(*scope)),
                  scope ? "this route needs the admin role or an API key with scope " + *scope
                        : "this route needs the admin role");
}

/// A signed-in user's route: a user's bearer token (API keys are for /abci),
/// counted per user, and the admin role where the route asks for it.
void admit_user(RequestContext& ctx, Access access, Unauthorized& why) {
    const auto bearer = bearer_of(ctx.request);
    if (bearer.empty()) {
        why = Unauthorized::missing_token;
        throw missing_token();
    }
    ctx.principal = ctx.services.auth.authenticate(bearer);
    auth::require(ctx.principal->kind == auth::Principal::Kind::user, "API keys are accepted on /abci routes only");
    check_rate(ctx.response, *ctx.services.api_limiter, ctx.principal->actor(), "rate_limit.api",
               "ABCI_API_RATE_LIMIT");
    if (access == Access::admin)
        auth::require(auth::allows(ctx.principal->role, auth::Permission::admin_read), "the admin role is required");
}

void send_reply(httplib::Response& response, const Reply& reply) {
    if (!reply.location.empty()) {
        response.set_redirect(reply.location);
    } else if (!reply.content_type.empty()) {
        response.status = reply.status;
        response.set_content(reply.raw, reply.content_type.c_str());
    } else {
        response.status = reply.status;
        response.set_content(reply.body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                             "application/json");
    }
}

/// The one error mapping of a request: called while the exception is being
/// handled, it answers with what was thrown (http_error.cpp), `why` naming
/// the 401's code.
void answer_failure(RequestContext& ctx, HttpMetrics& metrics, Unauthorized why) {
    try {
        throw;
    } catch (const Error& e) {
        // Every limit's refusal, the gate's and the login's alike, names the setting that holds it.
        if (const auto* limited = dynamic_cast<const limits::RateLimitExceeded*>(&e))
            metrics.rate_limited(limited->source().setting);
        if (status_for(e.kind()) >= 500)
            log_line("error", "request failed",
                     {{"request_id", ctx.request_id}, {"kind", to_string(e.kind())}, {"error", e.what()}});
        // An internal failure's message names server internals (paths,
        // invariants): the log has it, the client gets the request id.
        if (e.kind() == ErrorKind::internal)
            render_error(ctx.response, internal_error(ctx), why);
        else
            render_error(ctx.response, e, why);
    } catch (const nlohmann::json::exception& e) {
        // A field of the wrong JSON type met a handler's get<>().
        render_error(ctx.response, Error(ErrorKind::invalid_input, "a field has the wrong type", {e.what()}), why);
    } catch (const std::exception& e) {
        log_line("error", "unexpected failure", {{"request_id", ctx.request_id}, {"error", e.what()}});
        render_error(ctx.response, internal_error(ctx), why);
    }
}

/// The audit row of an /abci request. Refused (no valid caller, over the rate
/// limit, or not allowed): counted per route into one row a minute
/// (store.hpp), so the path the client chose is not what the row is keyed
/// on, and a flood costs rows by the minute even with the rate limit off.
void write_audit_row(const RequestContext& ctx, const std::string& route) {
    const auto status = ctx.response.status;
    const bool refused = status == 401 || status == 403 || status == 429;
    ctx.services.store.audit().append(store::AuditEntry{
        .time = std::chrono::system_clock::now(),
        .actor = ctx.principal ? ctx.principal->actor() : "",
        .method = ctx.request.method,
        .path = refused ? route : bounded_path(util::escape_text(ctx.request.path)),
        .status = status,
        .client_address = ctx.client_address,
        .request_id = ctx.request_id,
        .refused = refused});
}

/// One route's handler with the middleware around it (router.hpp gives the order).
struct RoutedRequest {
    Services& services;
    HttpMetrics& metrics;
    HttpMetrics::RouteSeries& series;
    Access access;
    std::optional<std::string> scope;
    Unauthorized unauthorized;  // the 401's code of what the handler throws
    std::string route;          // the pattern as the audit log names it
    Route::Handler handler;

    void operator()(const httplib::Request& request, httplib::Response& response) const {
        const auto started = std::chrono::steady_clock::now();
        metrics.enter();
        RequestContext ctx(request, response, services);
        auto why = Unauthorized::invalid_token;
        try {
            if (access == Access::abci)
                pass_abci_gate(ctx, scope, why);
            else if (access != Access::open)
                admit_user(ctx, access, why);
            require_request_text(request);
            why = unauthorized;
            send_reply(response, handler(ctx));
        } catch (const std::exception&) {
            answer_failure(ctx, metrics, why);
        }
        if (access == Access::abci) write_audit_row(ctx, route);
        const auto took = std::chrono::steady_clock::now() - started;
        const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(took).count();
        response.set_header("Server-Timing", fmt::format("app;dur={:.3f}", static_cast<double>(micros) / 1000.0));
        series.observe(response.status, took);
        HttpMetrics::mark_routed();
        metrics.leave();
    }
};

}  // namespace

RequestContext::RequestContext(const httplib::Request& request_, httplib::Response& response_, Services& services_)
    : request(request_), response(response_), services(services_) {
    request_id = response.get_header_value("X-Request-Id");
    client_address = client_address_of(request, services.settings.trusted_proxies);
}

nlohmann::json RequestContext::json_body() const {
    auto body = util::parse_strict_json(request.body, static_cast<std::size_t>(services.settings.max_json_depth),
                                        "the body", services.settings.max_json_values);
    if (!body.is_object()) throw Error(ErrorKind::invalid_input, "the body must be a JSON object");
    require_json_text(body, "");
    return body;
}

std::optional<std::string> RequestContext::query(const std::string& name) const {
    if (!request.has_param(name.c_str())) return std::nullopt;
    return request.get_param_value(name.c_str());
}

std::string RequestContext::path_match(std::size_t n) const { return request.matches[static_cast<int>(n)].str(); }

std::string_view to_string(Method method) noexcept {
    switch (method) {
    case Method::get: return "GET";
    case Method::post: return "POST";
    case Method::put: return "PUT";
    case Method::patch: return "PATCH";
    case Method::delete_: return "DELETE";
    }
    return "GET";  // unreachable: every enumerator is a case above (-Wswitch)
}

void Router::add(Route r) {
    // The router is gone once routes are registered: the handler keeps what it points at.
    RoutedRequest routed{services_,
                         metrics_,
                         metrics_.route(r.pattern, std::string(to_string(r.method))),
                         r.access,
                         std::move(r.scope),
                         r.handler_unauthorized,
                         route_template(r.pattern),
                         std::move(r.handler)};
    switch (r.method) {
    case Method::get: server_.Get(r.pattern, std::move(routed)); break;
    case Method::post: server_.Post(r.pattern, std::move(routed)); break;
    case Method::put: server_.Put(r.pattern, std::move(routed)); break;
    case Method::patch: server_.Patch(r.pattern, std::move(routed)); break;
    case Method::delete_: server_.Delete(r.pattern, std::move(routed)); break;
    }
}

}  // namespace abci::serve
