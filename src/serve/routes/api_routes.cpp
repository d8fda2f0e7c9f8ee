// The role-gated routes of spec 5.5 (their rules: service::Practices): a
// farmer's profile, the practices farmers record, the verifications of a practice.

#include "core/service/practices.hpp"
#include "core/wire/practices.hpp"
#include "serve/router.hpp"
#include "serve/routes/routes.hpp"
#include "serve/routes/views.hpp"

namespace abci::serve {

namespace {

Reply farmer_profile(RequestContext& ctx) {
    const auto profile = service::Practices(ctx.services.store).farmer_profile(ctx.caller(), ctx.query("userId"));
    auto data = user_view(profile.user);
    data["wallets"] = profile.wallets;
    auto practices = nlohmann::json::array();
    for (const auto& practice : profile.practices) practices.push_back(practice_view(practice));
    data["practices"] = std::move(practices);
    return Reply::data(200, std::move(data));
}

Reply record_practice(RequestContext& ctx) {
    const auto practice = service::Practices(ctx.services.store).record_practice(ctx.caller(), wire::parse_practice(ctx.json_body()));
    return Reply::data(201, practice_view(practice));
}

Reply record_verification(RequestContext& ctx) {
    const auto verification =
        service::Practices(ctx.services.store).record_verification(ctx.caller(), wire::parse_verification(ctx.json_body()));
    return Reply::data(201, verification_view(verification));
}

}  // namespace

std::vector<Route> api_routes() {
    return {
        {Method::get, "/api/farmers/profile", Access::authenticated, {}, farmer_profile},
        {Method::post, "/api/practices", Access::authenticated, {}, record_practice},
        {Method::post, "/api/verifications", Access::authenticated, {}, record_verification},
    };
}

}  // namespace abci::serve
