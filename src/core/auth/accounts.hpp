#pragma once
// Creating and changing platform users, shared by the server (bootstrap, and
// the admin command line on the server's data directory).

#include <optional>
#include <string>
#include <string_view>

#include "core/auth/roles.hpp"
#include "core/store/store.hpp"

namespace abci::auth {

/// The e-mail lower-cased, after checking its shape (one '@', a non-empty
/// local part and a dotted domain, at most 254 characters, no spaces or
/// control characters). Error(invalid_input) otherwise.
[[nodiscard]] std::string normalize_email(std::string_view email);

/// Passwords shorter than this are refused when set (NIST SP 800-63B's minimum).
inline constexpr std::size_t kMinPasswordLength = 8;
/// Error(invalid_input) when `password` is shorter than kMinPasswordLength
/// characters or longer than 1024 bytes.
void check_password_policy(std::string_view password);

/// The record of a new user with `role`, as add_user() creates it, without
/// creating it (for store::Store::create_accounts). Error(invalid_input) for a
/// bad e-mail.
[[nodiscard]] store::NewUser new_user(std::string_view email, Role role, bool verified = true);

/// Creates a user with `role` and, when given, a password (hashed here).
/// Error(invalid_input) for a bad e-mail or password, Error(conflict) when the
/// e-mail is taken.
store::User add_user(store::Store& store, std::string_view email, Role role,
                     std::optional<std::string_view> password, bool verified = true);

/// On a store without users, creates the first admin; returns it. Returns
/// nothing (and changes nothing) when users exist already.
std::optional<store::User> bootstrap_admin(store::Store& store, std::string_view email, std::string_view password);

/// The user with this e-mail; Error(not_found) naming it otherwise.
[[nodiscard]] store::User user_by_email(store::Store& store, std::string_view email);

}  // namespace abci::auth
