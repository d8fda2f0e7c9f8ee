#include <catch2/catch.hpp>

#include "core/auth/roles.hpp"
#include "core/error.hpp"

using abci::auth::allows;
using abci::auth::Permission;
using abci::auth::Role;

TEST_CASE("the permission table is spec 5.5's", "[roles]") {
    struct Row {
        Permission permission;
        bool farmer, verifier, admin, developer;
    };
    const Row table[] = {
        {Permission::view_farmer_profile, true, true, true, true},
        {Permission::record_practice, true, false, true, true},
        {Permission::record_verification, false, true, true, true},
        {Permission::admin_read, false, false, true, false},
    };
    for (const auto& row : table) {
        CHECK(allows(Role::farmer, row.permission) == row.farmer);
        CHECK(allows(Role::verifier, row.permission) == row.verifier);
        CHECK(allows(Role::admin, row.permission) == row.admin);
        CHECK(allows(Role::developer, row.permission) == row.developer);
    }
}

TEST_CASE("role names round-trip and unknown ones are refused", "[roles]") {
    for (const auto role : {Role::farmer, Role::verifier, Role::admin, Role::developer})
        CHECK(abci::auth::parse_role(abci::auth::to_string(role)) == role);
    CHECK_THROWS_AS(abci::auth::parse_role("Admin"), abci::Error);
    CHECK_THROWS_AS(abci::auth::parse_role(""), abci::Error);
}
