// The hostile text sweep (tests/serve/hostile_text_test.cpp) covers the route
// table: every route the server declares, each once, with a path its pattern
// matches.

#include <catch2/catch.hpp>

#include <regex>
#include <set>

#include "serve/routes/routes.hpp"
#include "serve/swept_routes.hpp"

namespace abci::serve::swept_routes_tests {

TEST_CASE("swept routes: the hostile text sweep sends to every route of the table, and only to those", "[routes]") {
    std::set<std::pair<std::string, std::string>> declared, swept;
    for (const auto& route : route_table()) declared.insert({std::string(to_string(route.method)), route.pattern});
    for (const auto& route : test::swept_routes()) {
        INFO(route.method << " " << route.pattern << " " << route.path);
        CHECK(swept.insert({route.method, route.pattern}).second);
        CHECK(std::regex_match(route.path, std::regex(route.pattern)));
    }
    CHECK(swept == declared);
}

}  // namespace abci::serve::swept_routes_tests
