#pragma once
// Test accounts whose password hash costs little to verify.
//
// Verification follows the parameters written in the hash (core/auth/
// password.hpp), as it must for hashes made before a cost was raised; at the
// default cost (scrypt N = 2^17) each login of a test costs most of a second
// of a core, which was the suites' largest CPU cost. Fixtures that log the
// same account in again and again rewrite its hash at N = 2^10 once the real
// server made it; the server's own hashing and its logins of accounts made
// by a test still run at the default cost.

#include <string>

#include "core/store/store.hpp"

namespace abci::test {

/// Rewrites the password hash of the user with `email` in `store` as a hash
/// of `password` at N = 2^10. False when no such user has a password.
bool lower_password_cost(store::Store& store, const std::string& email, const std::string& password);

}  // namespace abci::test
