#include "core/service/practices.hpp"

#include "core/auth/roles.hpp"
#include "core/error.hpp"
#include "core/util/fields.hpp"

namespace abci::service {

namespace {

using auth::Permission;
using auth::require;
using auth::Role;

constexpr std::size_t kMaxTextLength = 10000;

void require_permission(const auth::Principal& caller, Permission permission) {
    require(auth::allows(caller.role, permission),
            std::string("the ") + auth::to_string(caller.role) + " role may not do this");
}

store::User existing_user(store::Store& store, const std::string& id) {
    auto user = store.users().find_by_id(id);
    if (!user) throw Error(ErrorKind::not_found, "no user with id " + id);
    return *user;
}

}  // namespace

FarmerProfile Practices::farmer_profile(const auth::Principal& caller, const std::optional<std::string>& user_id) {
    require_permission(caller, Permission::view_farmer_profile);
    const auto wanted = user_id.value_or(caller.id);
    // Spec 5.5: a farmer sees only their own profile.
    require(caller.role != Role::farmer || wanted == caller.id, "a farmer may see only their own profile");
    auto user = existing_user(store_, wanted);
    auto wallets = store_.credentials().wallets_of(user.id);
    auto practices = store_.practices().of_farmer(user.id);
    return {std::move(user), std::move(wallets), std::move(practices)};
}

store::Practice Practices::record_practice(const auth::Principal& caller, const nlohmann::json& body) {
    require_permission(caller, Permission::record_practice);
    util::Fields fields(body);
    const auto title = fields.required_string("title", 200);
    const auto description = fields.optional_string("description", kMaxTextLength).value_or("");
    const auto farmer_id = fields.optional_string("farmerId", 64).value_or(caller.id);
    fields.done();
    require(caller.role != Role::farmer || farmer_id == caller.id, "a farmer may record practices only for themselves");
    const auto farmer = existing_user(store_, farmer_id);
    if (farmer.role != auth::to_string(Role::farmer) && farmer.id != caller.id)
        throw Error(ErrorKind::unprocessable, "user " + farmer.id + " is not a farmer");
    return store_.practices().create(store::NewPractice{farmer.id, title, description});
}

store::Verification Practices::record_verification(const auth::Principal& caller, const nlohmann::json& body) {
    require_permission(caller, Permission::record_verification);
    util::Fields fields(body);
    const auto practice_id = fields.required_string("practiceId", 64);
    const auto outcome = fields.required_string("outcome", 16);
    const auto notes = fields.optional_string("notes", kMaxTextLength).value_or("");
    const auto parsed_outcome = store::parse_verification_outcome(outcome);
    fields.check(outcome.empty() || parsed_outcome, "outcome must be approved or rejected");
    fields.done();
    if (!store_.practices().find(practice_id)) throw Error(ErrorKind::not_found, "no practice with id " + practice_id);
    return store_.practices().add_verification(store::NewVerification{practice_id, caller.id, *parsed_outcome, notes});
}

}  // namespace abci::service
