#pragma once
// Platform roles (spec 5.4) and what each may do on the role-gated routes
// (spec 5.5). Which API-key scope an /abci route needs (spec 5.2) is
// declared with the route, in serve's route table.

#include <string>
#include <string_view>
#include <vector>

namespace abci::auth {

enum class Role { farmer, verifier, admin, developer };

[[nodiscard]] const char* to_string(Role role) noexcept;
/// The four role names, in the spec's order.
[[nodiscard]] std::vector<std::string> role_names();
/// Error(invalid_input) naming the four roles when `name` is none of them.
[[nodiscard]] Role parse_role(std::string_view name);

/// The role-gated operations of spec 5.5.
enum class Permission {
    view_farmer_profile,  // GET /api/farmers/profile (a farmer: only their own)
    record_practice,      // POST /api/practices
    record_verification,  // POST /api/verifications
    admin_read,           // GET /api/admin/*
};

/// The table of spec 5.5, and nothing else.
[[nodiscard]] bool allows(Role role, Permission permission) noexcept;

/// Throws Error(forbidden) with `message` unless `allowed`.
void require(bool allowed, const std::string& message);

}  // namespace abci::auth
