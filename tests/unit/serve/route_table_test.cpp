// The route table (src/serve/routes): who may call each route is declared
// with the route, and the /abci gate's scopes are spec 5.2's.

#include <catch2/catch.hpp>

#include <regex>
#include <set>

#include "serve/routes/routes.hpp"

namespace abci::serve::route_table_tests {
namespace {

// The row that answers `method` `path`: the first whose pattern matches, as cpp-httplib picks.
const Route* route_for(const std::vector<Route>& table, const std::string& method, const std::string& path) {
    for (const auto& route : table)
        if (to_string(route.method) == method && std::regex_match(path, std::regex(route.pattern))) return &route;
    return nullptr;
}

}  // namespace

TEST_CASE("route table: API-key scopes map onto the /abci routes, minting roles needs an admin", "[routes]") {
    const auto table = route_table();
    const auto scope = [&](const std::string& method, const std::string& path) {
        const auto* route = route_for(table, method, path);
        REQUIRE(route);
        CHECK(route->access == Access::abci);
        return route->scope;
    };
    CHECK(scope("GET", "/abci/health") == "abci:health");
    CHECK(scope("GET", "/abci/blockchains/list") == "abci:read");
    CHECK(scope("GET", "/abci/blockchains/sepolia/status") == "abci:read");
    CHECK(scope("GET", "/abci/tokens/user-balance") == "abci:read");
    CHECK(scope("GET", "/abci/tokens/metadata/1000") == "abci:read");
    CHECK(scope("GET", "/abci/contracts/token-balance") == "abci:read");
    CHECK(scope("POST", "/abci/contracts/mint-entity-token") == "abci:mint-entity");
    CHECK(scope("GET", "/abci/contracts/mints/abc") == "abci:mint-entity");
    CHECK(scope("GET", "/abci/contracts/mints") == "abci:mint-entity");
    CHECK_FALSE(scope("POST", "/abci/contracts/mint-role-token"));
    CHECK_FALSE(scope("POST", "/abci/health"));
    CHECK_FALSE(scope("GET", "/abci/anything-else"));
    CHECK_FALSE(scope("GET", "/abci/healthz"));
    CHECK_FALSE(scope("DELETE", "/abci"));
}

TEST_CASE("route table: each route is declared once, with a handler, and only /abci is behind the gate", "[routes]") {
    const auto table = route_table();
    std::set<std::pair<Method, std::string>> seen;
    for (const auto& route : table) {
        INFO(to_string(route.method) << " " << route.pattern);
        CHECK(seen.insert({route.method, route.pattern}).second);
        CHECK(route.handler);
        CHECK((route.access == Access::abci) == (route.pattern.rfind("/abci", 0) == 0));
        CHECK((route.scope.has_value() ? route.access == Access::abci : true));
    }
}

TEST_CASE("route table: who may call the routes outside /abci", "[routes]") {
    const auto table = route_table();
    const auto access = [&](const std::string& method, const std::string& path) {
        const auto* route = route_for(table, method, path);
        REQUIRE(route);
        return route->access;
    };
    CHECK(access("POST", "/api/auth/login-email-password") == Access::open);
    CHECK(access("POST", "/api/auth/acme-login") == Access::open);
    CHECK(access("GET", "/api/auth/me") == Access::authenticated);
    CHECK(access("GET", "/api/admin/users") == Access::admin);
    CHECK(access("GET", "/api/admin/unknown") == Access::admin);
    CHECK(access("PUT", "/v1/admin/role-requests/r1/approve") == Access::admin);
    CHECK(access("POST", "/v1/role-requests") == Access::authenticated);
    CHECK(access("GET", "/ipfs/bafy") == Access::open);
    CHECK(access("GET", "/readyz") == Access::open);
}

// A route names its method by the enum, so the router registers every one it
// can name (an unknown method does not compile); each is spelt as request
// lines spell it, and the /abci gate answers each.
TEST_CASE("route table: every method is spelt as a request line spells it, and the /abci gate answers each",
          "[routes]") {
    std::set<std::string> names;
    for (const auto method : kRouteMethods) names.insert(std::string(to_string(method)));
    CHECK(names == std::set<std::string>{"GET", "POST", "PUT", "PATCH", "DELETE"});
    const auto table = route_table();
    for (const auto method : kRouteMethods) {
        INFO(to_string(method));
        const auto* route = route_for(table, std::string(to_string(method)), "/abci/nothing-here");
        REQUIRE(route);
        CHECK(route->access == Access::abci);
    }
}

}  // namespace abci::serve::route_table_tests
