#pragma once
// Test accounts whose password hash costs little to verify.
//
// Verification follows the parameters written in the hash (core/auth/
// password.hpp), as it must for hashes made before a cost was raised; at the
// default cost (scrypt N = 2^17) each login of a test costs most of a second
// of a core, which was the suites' largest CPU cost. Fixtures that log the
// same account in again and again rewrite its hash at N = 2^10 once the real
// server made it, and the serve fixtures make their users at that cost (the
// CLI suite's `admin user add` runs at the default cost); the server's own
// hashing and logins of accounts the CLI made still run at the default cost.

#include <string>

#include "core/store/store.hpp"

namespace abci::test {

/// Rewrites the password hash of the user with `email` in `store` as a hash
/// of `password` at N = 2^10. False when no such user has a password.
bool lower_password_cost(store::Store& store, const std::string& email, const std::string& password);

/// The user `abcictl admin user add --email <email> --role <role>` with
/// `password` makes (core/auth/accounts.hpp), with the hash at N = 2^10.
store::User add_user_at_low_cost(store::Store& store, const std::string& email, const std::string& role,
                                 const std::string& password);

}  // namespace abci::test
