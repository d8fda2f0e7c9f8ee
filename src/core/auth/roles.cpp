#include "core/auth/roles.hpp"

#include <array>

#include "core/error.hpp"

namespace abci::auth {

namespace {

constexpr std::array<std::pair<Role, const char*>, 4> kRoleNames{{
    {Role::farmer, "farmer"},
    {Role::verifier, "verifier"},
    {Role::admin, "admin"},
    {Role::developer, "developer"},
}};

}  // namespace

const char* to_string(Role role) noexcept {
    for (const auto& [value, name] : kRoleNames)
        if (value == role) return name;
    return "unknown";
}

std::vector<std::string> role_names() {
    std::vector<std::string> names;
    for (const auto& [value, name] : kRoleNames) names.emplace_back(name);
    return names;
}

Role parse_role(std::string_view name) {
    for (const auto& [value, known] : kRoleNames)
        if (name == known) return value;
    throw Error(ErrorKind::invalid_input,
                "unknown role '" + std::string(name) + "' (expected farmer, verifier, admin or developer)");
}

bool allows(Role role, Permission permission) noexcept {
    switch (permission) {
    case Permission::view_farmer_profile: return true;
    case Permission::record_practice: return role != Role::verifier;
    case Permission::record_verification: return role != Role::farmer;
    case Permission::admin_read: return role == Role::admin;
    }
    return false;
}

void require(bool allowed, const std::string& message) {
    if (!allowed) throw Error(ErrorKind::forbidden, message);
}

}  // namespace abci::auth
