#include "core/auth/auth_metrics.hpp"

#include <string>

namespace abci::auth {

namespace {

// In AuthMethod's and LockoutScope's orders.
constexpr std::array<const char*, 6> kMethods{"password", "siwe", "oidc", "refresh", "access_token", "api_key"};
constexpr std::array<const char*, 2> kScopes{"account", "address"};

}  // namespace

AuthMetrics::AuthMetrics(metrics::Registry& registry) {
    auto& failures = registry.counter("abcictl_auth_failures_total",
                                      "Credentials refused (401), by the authentication method that refused them.");
    auto& lockouts = registry.counter("abcictl_auth_lockouts_total",
                                      "Password logins locked: a failure used the last attempt of a budget, by budget.");
    for (std::size_t i = 0; i < kMethods.size(); ++i) failures_[i] = &failures.add({{"method", kMethods[i]}});
    for (std::size_t i = 0; i < kScopes.size(); ++i) lockouts_[i] = &lockouts.add({{"scope", kScopes[i]}});
}

void AuthMetrics::failed(AuthMethod method) noexcept { failures_[static_cast<std::size_t>(method)]->increment(); }

void AuthMetrics::locked(LockoutScope scope) noexcept { lockouts_[static_cast<std::size_t>(scope)]->increment(); }

}  // namespace abci::auth
