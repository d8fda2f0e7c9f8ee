#include "support/password_cost.hpp"

#include "core/auth/password.hpp"

namespace abci::test {

bool lower_password_cost(store::Store& store, const std::string& email, const std::string& password) {
    const auto user = store.users().find_by_email(email);
    if (!user || !store.credentials().password_hash(user->id)) return false;
    store.credentials().set_password_hash(user->id, auth::hash_password(password, {.log2_n = 10, .r = 8, .p = 1}));
    return true;
}

}  // namespace abci::test
