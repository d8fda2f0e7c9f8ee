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

bool starts_with(std::string_view text, std::string_view prefix) {
    return text.substr(0, prefix.size()) == prefix;
}

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

std::optional<std::string> abci_scope_for(std::string_view method, std::string_view path) {
    if (method == "GET" || method == "HEAD") {
        if (path == "/abci/health") return "abci:health";
        if (starts_with(path, "/abci/blockchains/") || starts_with(path, "/abci/tokens/") ||
            path == "/abci/contracts/token-balance")
            return "abci:read";
        // A key that mints may learn what became of its own mints.
        if (path == "/abci/contracts/mints" || starts_with(path, "/abci/contracts/mints/")) return "abci:mint-entity";
    }
    if (method == "POST" && path == "/abci/contracts/mint-entity-token") return "abci:mint-entity";
    return std::nullopt;
}

}  // namespace abci::auth
