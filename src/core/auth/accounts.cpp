#include "core/auth/accounts.hpp"

#include <algorithm>
#include <cctype>

#include "core/auth/password.hpp"
#include "core/error.hpp"

namespace abci::auth {

std::string normalize_email(std::string_view email) {
    const auto bad = [&](const char* why) {
        return Error(ErrorKind::invalid_input, "'" + std::string(email.substr(0, 64)) + "' is not an e-mail address: " + why);
    };
    if (email.empty() || email.size() > 254) throw bad("its length must be 1 to 254 characters");
    if (std::any_of(email.begin(), email.end(), [](unsigned char c) { return c <= ' ' || c == 0x7f; }))
        throw bad("it contains spaces or control characters");
    const auto at = email.find('@');
    if (at == 0 || at == std::string_view::npos || email.find('@', at + 1) != std::string_view::npos)
        throw bad("it needs exactly one '@' after a non-empty name");
    const auto domain = email.substr(at + 1);
    const auto dot = domain.find('.');
    if (dot == 0 || dot == std::string_view::npos || domain.back() == '.') throw bad("its domain needs a dot");
    std::string normalized(email);
    std::transform(normalized.begin(), normalized.end(), normalized.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return normalized;
}

void check_password_policy(std::string_view password) {
    if (password.size() < kMinPasswordLength)
        throw Error(ErrorKind::invalid_input,
                    "the password is too short: use at least " + std::to_string(kMinPasswordLength) + " characters");
    if (password.size() > 1024) throw Error(ErrorKind::invalid_input, "the password is longer than 1024 bytes");
}

store::NewUser new_user(std::string_view email, Role role, bool verified) {
    return store::NewUser{normalize_email(email), to_string(role), verified};
}

store::User add_user(store::Store& store, std::string_view email, Role role,
                     std::optional<std::string_view> password, bool verified) {
    auto record = new_user(email, role, verified);
    if (password) check_password_policy(*password);
    // Hash before creating the user, so a failure cannot leave a user behind
    // that was meant to have a password.
    std::optional<std::string> hash;
    if (password) hash = hash_password(*password);
    auto user = store.users().create(record);
    if (hash) store.credentials().set_password_hash(user.id, *hash);
    return user;
}

std::optional<store::User> bootstrap_admin(store::Store& store, std::string_view email, std::string_view password) {
    if (store.users().count() > 0) return std::nullopt;
    return add_user(store, email, Role::admin, password);
}

store::User user_by_email(store::Store& store, std::string_view email) {
    auto user = store.users().find_by_email(normalize_email(email));
    if (!user) throw Error(ErrorKind::not_found, "no user with e-mail " + std::string(email));
    return *user;
}

}  // namespace abci::auth
