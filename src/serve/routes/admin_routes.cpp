// GET /api/admin/*: listings for platform administrators (spec 5.5: admin only).

#include "core/service/workflows.hpp"
#include "core/util/time.hpp"
#include "serve/router.hpp"
#include "serve/routes/routes.hpp"
#include "serve/routes/views.hpp"

namespace abci::serve {

namespace {

constexpr std::size_t kDefaultAuditLimit = 100;
constexpr std::size_t kMaxAuditLimit = 10000;

template <typename Record, typename View>
Reply list_reply(const std::vector<Record>& records, View view) {
    auto data = nlohmann::json::array();
    for (const auto& record : records) data.push_back(view(record));
    return Reply::json(200, {{"success", true}, {"data", std::move(data)}});
}

Reply users(RequestContext& ctx) {
    auto& store = ctx.services.store;
    return list_reply(store.users().list(), [&](const store::User& user) {
        auto view = user_view(user);
        view["wallets"] = store.credentials().wallets_of(user.id);
        view["createdAt"] = util::format_iso8601_utc(user.created_at);
        return view;
    });
}

Reply audit(RequestContext& ctx) {
    std::optional<store::TimePoint> since;
    if (const auto text = ctx.query("since")) since = util::parse_rfc3339(*text);
    std::size_t limit = kDefaultAuditLimit;
    if (const auto text = ctx.query("limit")) {
        try {
            const auto value = std::stoll(*text);
            if (value < 1 || static_cast<std::size_t>(value) > kMaxAuditLimit) throw std::out_of_range("limit");
            limit = static_cast<std::size_t>(value);
        } catch (const std::logic_error&) {
            throw Error(ErrorKind::invalid_input, "invalid request",
                        {"limit must be an integer from 1 to " + std::to_string(kMaxAuditLimit)});
        }
    }
    return list_reply(ctx.services.store.audit().list(since, limit), audit_view);
}

Reply role_requests(RequestContext& ctx) {
    std::optional<store::RoleRequestStatus> status;
    if (const auto name = ctx.query("status")) {
        status = store::parse_role_request_status(*name);
        if (!status) return list_reply(std::vector<store::RoleRequest>{}, role_request_view);
    }
    return list_reply(ctx.services.store.role_requests().list(status), role_request_view);
}

Reply api_keys(RequestContext& ctx) { return list_reply(ctx.services.store.api_keys().list(), api_key_view); }

}  // namespace

std::vector<Route> admin_routes() {
    const auto admin = Access::admin;
    return {
        {"GET", "/api/admin/users", admin, {}, users},
        {"GET", "/api/admin/audit", admin, {}, audit},
        {"GET", "/api/admin/role-requests", admin, {}, role_requests},
        {"GET", "/v1/admin/role-requests", admin, {}, role_requests},  // spec §9: the /v1/admin group
        {"GET", "/api/admin/api-keys", admin, {}, api_keys},
        // Spec 5.5 gates all of GET /api/admin/*: a non-admin learns nothing
        // about which admin routes exist (403), an admin gets 404 for unknown ones.
        {"GET", "/api/admin/.*", admin, {},
         [](RequestContext& ctx) -> Reply { throw Error(ErrorKind::not_found, "no admin route " + ctx.request.path); }},
    };
}

}  // namespace abci::serve
