#pragma once
// What administrators and signed-in users read of the platform's records
// (GET /api/admin/*, /v1/admin/role-requests, /api/auth/me): the rules of
// each listing (its filters, limits, what a missing record means), over the
// store's repositories. Who may call them is the route table's (serve).

#include <optional>
#include <string>
#include <vector>

#include "core/store/store.hpp"

namespace abci::service {

/// A user with the wallets that sign them in.
struct Account {
    store::User user;
    std::vector<std::string> wallets;  // in the order they were linked
};

class Listings {
public:
    /// `store` must outlive this object.
    explicit Listings(store::Store& store) : store_(store) {}

    /// Every user with their wallets, oldest first.
    [[nodiscard]] std::vector<Account> accounts();
    /// The signed-in user `user_id`. Error(unauthenticated) when the user is
    /// gone (the token outlived its account).
    [[nodiscard]] Account own_account(const std::string& user_id);
    /// Audit entries at or after `since` (RFC 3339; all when absent), oldest
    /// first, at most `limit` (1 to 10,000; 100 when absent).
    /// Error(invalid_input) for a malformed since or limit.
    [[nodiscard]] std::vector<store::AuditEntry> audit(const std::optional<std::string>& since,
                                                       const std::optional<std::string>& limit);
    /// Role requests, oldest first; only those in `status` when given.
    /// Error(invalid_input) naming the statuses for any other status (its
    /// case counts, and an empty one is none of them).
    [[nodiscard]] std::vector<store::RoleRequest> role_requests(const std::optional<std::string>& status);
    /// Every API key, oldest first (hashes are never stored, so never listed).
    [[nodiscard]] std::vector<store::ApiKey> api_keys();

private:
    store::Store& store_;
};

}  // namespace abci::service
