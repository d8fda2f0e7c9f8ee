// The role-gated routes of spec 5.5, on small real resources: a farmer's
// profile, the practices farmers record, the verifications of a practice.

#include "core/auth/roles.hpp"
#include "core/util/fields.hpp"
#include "serve/router.hpp"
#include "serve/routes/routes.hpp"
#include "serve/routes/views.hpp"

namespace abci::serve {

namespace {

using auth::Permission;
using auth::Role;

constexpr std::size_t kMaxTextLength = 10000;

void require_permission(const RequestContext& ctx, Permission permission) {
    require(auth::allows(ctx.caller().role, permission),
            std::string("the ") + auth::to_string(ctx.caller().role) + " role may not do this");
}

store::User existing_user(RequestContext& ctx, const std::string& id) {
    auto user = ctx.services.store.find_user_by_id(id);
    if (!user) throw Error(ErrorKind::not_found, "no user with id " + id);
    return *user;
}

Reply farmer_profile(RequestContext& ctx) {
    require_permission(ctx, Permission::view_farmer_profile);
    const auto& caller = ctx.caller();
    const auto wanted = ctx.query("userId").value_or(caller.id);
    // Spec 5.5: a farmer sees only their own profile.
    require(caller.role != Role::farmer || wanted == caller.id, "a farmer may see only their own profile");
    const auto user = existing_user(ctx, wanted);
    auto data = user_view(user);
    data["wallets"] = ctx.services.store.wallets_of(user.id);
    auto practices = nlohmann::json::array();
    for (const auto& practice : ctx.services.store.practices_of(user.id)) practices.push_back(practice_view(practice));
    data["practices"] = std::move(practices);
    return Reply::json(200, {{"success", true}, {"data", std::move(data)}});
}

Reply record_practice(RequestContext& ctx) {
    require_permission(ctx, Permission::record_practice);
    const auto body = ctx.json_body();
    util::Fields fields(body);
    const auto title = fields.required_string("title", 200);
    const auto description = fields.optional_string("description", kMaxTextLength).value_or("");
    const auto farmer_id = fields.optional_string("farmerId", 64).value_or(ctx.caller().id);
    fields.done();
    require(ctx.caller().role != Role::farmer || farmer_id == ctx.caller().id,
            "a farmer may record practices only for themselves");
    const auto farmer = existing_user(ctx, farmer_id);
    if (farmer.role != auth::to_string(Role::farmer) && farmer.id != ctx.caller().id)
        throw Error(ErrorKind::unprocessable, "user " + farmer.id + " is not a farmer");
    const auto practice = ctx.services.store.create_practice(store::NewPractice{farmer.id, title, description});
    return Reply::json(201, {{"success", true}, {"data", practice_view(practice)}});
}

Reply record_verification(RequestContext& ctx) {
    require_permission(ctx, Permission::record_verification);
    const auto body = ctx.json_body();
    util::Fields fields(body);
    const auto practice_id = fields.required_string("practiceId", 64);
    const auto outcome = fields.required_string("outcome", 16);
    const auto notes = fields.optional_string("notes", kMaxTextLength).value_or("");
    fields.check(outcome.empty() || outcome == "approved" || outcome == "rejected",
                 "outcome must be approved or rejected");
    fields.done();
    if (!ctx.services.store.find_practice(practice_id))
        throw Error(ErrorKind::not_found, "no practice with id " + practice_id);
    const auto verification =
        ctx.services.store.create_verification(store::NewVerification{practice_id, ctx.caller().id, outcome, notes});
    return Reply::json(201, {{"success", true}, {"data", verification_view(verification)}});
}

}  // namespace

std::vector<Route> api_routes() {
    return {
        {"GET", "/api/farmers/profile", Access::authenticated, {}, Unauthorized::invalid_token, farmer_profile},
        {"POST", "/api/practices", Access::authenticated, {}, Unauthorized::invalid_token, record_practice},
        {"POST", "/api/verifications", Access::authenticated, {}, Unauthorized::invalid_token, record_verification},
    };
}

}  // namespace abci::serve
