#include "support/password_cost.hpp"

#include "core/auth/accounts.hpp"
#include "core/auth/password.hpp"

namespace abci::test {
namespace {
constexpr auth::ScryptParams kLowCost{.log2_n = 10, .r = 8, .p = 1};
}  // namespace

bool lower_password_cost(store::Store& store, const std::string& email, const std::string& password) {
    const auto user = store.users().find_by_email(email);
    if (!user || !store.credentials().password_hash(user->id)) return false;
    store.credentials().set_password_hash(user->id, auth::hash_password(password, kLowCost));
    return true;
}

store::User add_user_at_low_cost(store::Store& store, const std::string& email, const std::string& role,
                                 const std::string& password) {
    auth::check_password_policy(password);
    auto user = auth::add_user(store, email, auth::parse_role(role), std::nullopt);
    store.credentials().set_password_hash(user.id, auth::hash_password(password, kLowCost));
    return user;
}

}  // namespace abci::test
