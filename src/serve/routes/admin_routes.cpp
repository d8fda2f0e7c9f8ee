// GET /api/admin/*: listings for platform administrators (spec 5.5: admin only).

#include "core/service/admin.hpp"
#include "serve/router.hpp"
#include "serve/routes/routes.hpp"
#include "serve/routes/views.hpp"

namespace abci::serve {

namespace {

template <typename Record, typename View>
Reply list_reply(const std::vector<Record>& records, View view) {
    auto data = nlohmann::json::array();
    for (const auto& record : records) data.push_back(view(record));
    return Reply::data(200, std::move(data));
}

Reply users(RequestContext& ctx) {
    return list_reply(service::Listings(ctx.services.store).accounts(), [](const service::Account& account) {
        auto view = account_view(account);
        view["createdAt"] = iso_time(account.user.created_at);
        return view;
    });
}

Reply audit(RequestContext& ctx) {
    return list_reply(service::Listings(ctx.services.store).audit(ctx.query("since"), ctx.query("limit")), audit_view);
}

Reply role_requests(RequestContext& ctx) {
    return list_reply(service::Listings(ctx.services.store).role_requests(ctx.query("status")), role_request_view);
}

Reply api_keys(RequestContext& ctx) {
    return list_reply(service::Listings(ctx.services.store).api_keys(), api_key_view);
}

}  // namespace

std::vector<Route> admin_routes() {
    const auto admin = Access::admin;
    return {
        {Method::get, "/api/admin/users", admin, {}, users},
        {Method::get, "/api/admin/audit", admin, {}, audit},
        {Method::get, "/api/admin/role-requests", admin, {}, role_requests},
        {Method::get, "/v1/admin/role-requests", admin, {}, role_requests},  // spec §9: the /v1/admin group
        {Method::get, "/api/admin/api-keys", admin, {}, api_keys},
        // Spec 5.5 gates all of GET /api/admin/*: a non-admin learns nothing
        // about which admin routes exist (403), an admin gets 404 for unknown ones.
        {Method::get, "/api/admin/.*", admin, {},
         [](RequestContext& ctx) -> Reply { throw Error(ErrorKind::not_found, "no admin route " + ctx.request.path); }},
    };
}

}  // namespace abci::serve
