#pragma once
// The JSON shapes of stored records, shared by the route groups (camelCase
// keys and ISO 8601 UTC timestamps, as the spec writes its fields).

#include <nlohmann/json.hpp>

#include "core/auth/auth_service.hpp"
#include "core/service/admin.hpp"
#include "core/store/store.hpp"

namespace abci::serve {

/// A stored time as the spec writes it: ISO 8601 UTC with milliseconds.
[[nodiscard]] std::string iso_time(store::TimePoint t);

/// Spec 2.6: {id, email, role, verified}.
[[nodiscard]] nlohmann::json user_view(const store::User& user);
/// user_view() with the user's wallets.
[[nodiscard]] nlohmann::json account_view(const service::Account& account);
/// Spec 5.3 plus refresh_token.
[[nodiscard]] nlohmann::json login_view(const auth::LoginResult& login);
[[nodiscard]] nlohmann::json practice_view(const store::Practice& practice);
[[nodiscard]] nlohmann::json verification_view(const store::Verification& verification);
[[nodiscard]] nlohmann::json api_key_view(const store::ApiKey& key);
[[nodiscard]] nlohmann::json audit_view(const store::AuditEntry& entry);

/// A role request, with its approval and mint once known.
[[nodiscard]] nlohmann::json role_request_view(const store::RoleRequest& request);
/// A certificate record, with its token details once minted.
[[nodiscard]] nlohmann::json certificate_view(const store::Certificate& certificate);

}  // namespace abci::serve
