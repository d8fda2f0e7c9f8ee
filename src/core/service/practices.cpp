#include "core/service/practices.hpp"

#include "core/auth/roles.hpp"
#include "core/error.hpp"

namespace abci::service {

namespace {

using auth::Permission;
using auth::require;
using auth::Role;

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

store::Practice Practices::record_practice(const auth::Principal& caller, const PracticeRequest& request) {
    require_permission(caller, Permission::record_practice);
    const auto farmer_id = request.farmer_id.value_or(caller.id);
    require(caller.role != Role::farmer || farmer_id == caller.id, "a farmer may record practices only for themselves");
    const auto farmer = existing_user(store_, farmer_id);
    if (farmer.role != auth::to_string(Role::farmer) && farmer.id != caller.id)
        throw Error(ErrorKind::unprocessable, "user " + farmer.id + " is not a farmer");
    return store_.practices().create(store::NewPractice{farmer.id, request.title, request.description});
}

store::Verification Practices::record_verification(const auth::Principal& caller, const VerificationRequest& request) {
    require_permission(caller, Permission::record_verification);
    if (!store_.practices().find(request.practice_id))
        throw Error(ErrorKind::not_found, "no practice with id " + request.practice_id);
    return store_.practices().add_verification(
        store::NewVerification{request.practice_id, caller.id, request.outcome, request.notes});
}

}  // namespace abci::service
