#pragma once
// The authentication families (docs/metrics.md): credentials refused, by the
// method that refused them, and lockouts of the password login. Labels come
// from these fixed sets only, never from the e-mail, wallet or key a client
// sent, so that a credential-stuffing run adds no series and a scrape names
// no one.

#include <array>
#include <cstddef>

#include "core/metrics/registry.hpp"

namespace abci::auth {

enum class AuthMethod {
    password,      // e-mail and password
    siwe,          // a wallet's signed message
    oidc,          // the identity provider: its callback, the one-time code of a redirect, an ID token
    refresh,       // a refresh token
    access_token,  // a bearer access token (JWT)
    api_key,       // a bearer API key
};

/// Which budget of failed password logins a lockout used up.
enum class LockoutScope {
    account,  // one account from one client address (login_per_account_address)
    address,  // one client address over all accounts (login_per_address)
};

class AuthMetrics {
public:
    explicit AuthMetrics(metrics::Registry& registry);
    /// A credential of `method` refused (Error(unauthenticated)).
    void failed(AuthMethod method) noexcept;
    /// A failed password login used the last attempt of a budget: the next ones are refused until its window ends.
    void locked(LockoutScope scope) noexcept;

private:
    std::array<metrics::Counter*, 6> failures_{};
    std::array<metrics::Counter*, 2> lockouts_{};
};

}  // namespace abci::auth
