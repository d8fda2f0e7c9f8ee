// docs/openapi.yaml and the route table cannot drift: every route the server
// declares is an operation of the document with the security its access and
// scope say, and every operation of the document is a declared route.

#include <catch2/catch.hpp>

#include <map>
#include <optional>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "serve/openapi_assets.hpp"
#include "serve/routes/routes.hpp"

namespace abci::serve::openapi_document_tests {
namespace {

using nlohmann::json;

/// A route's pattern as the document's path, each parameter written "{}"
/// ("/abci/blockchains/([^/]+)/status" → "/abci/blockchains/{}/status");
/// nothing for the catch-alls (".*"), which answer 404 for paths no
/// operation has.
std::optional<std::string> document_path(const std::string& pattern) {
    if (pattern.find(".*") != std::string::npos) return std::nullopt;
    std::string path;
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        if (pattern[i] == '\\' && i + 1 < pattern.size()) {
            path += pattern[++i];
        } else if (pattern[i] == '(') {
            i = pattern.find(')', i);
            path += "{}";
        } else {
            path += pattern[i];
        }
    }
    return path;
}

/// The document's path with its parameters' names left out ("/x/{id}" → "/x/{}").
std::string unnamed(const std::string& path) {
    std::string out;
    for (std::size_t i = 0; i < path.size(); ++i) {
        if (path[i] == '{') {
            i = path.find('}', i);
            out += "{}";
        } else {
            out += path[i];
        }
    }
    return out;
}

/// The security requirement an operation must state for `route`.
json expected_security(const Route& route) {
    switch (route.access) {
    case Access::open: return json::array();
    case Access::authenticated: return json::array({{{"bearerAuth", json::array()}}});
    case Access::admin: return json::array({{{"bearerAuth", {"admin"}}}});
    case Access::abci:
        if (!route.scope) return json::array({{{"bearerAuth", {"admin"}}}});
        return json::array({{{"bearerAuth", {"admin"}}}, {{"apiKey", {*route.scope}}}});
    }
    return nullptr;
}

const json& document() {
    static const json parsed = json::parse(openapi::json().bytes);
    return parsed;
}

const std::set<std::string> kMethods{"get", "put", "post", "delete", "patch", "head", "options", "trace"};

}  // namespace

TEST_CASE("openapi document: every route of the table is an operation with its security, and no other", "[openapi]") {
    // "METHOD {}-path" → the document's operation.
    std::map<std::string, json> operations;
    for (const auto& [path, item] : document().at("paths").items())
        for (const auto& [method, operation] : item.items())
            if (kMethods.count(method)) operations[method + " " + unnamed(path)] = operation;

    std::set<std::string> declared;
    for (const auto& route : route_table()) {
        const auto path = document_path(route.pattern);
        if (!path) continue;
        std::string method(to_string(route.method));
        for (auto& c : method) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        const auto key = method + " " + *path;
        declared.insert(key);
        INFO("route " << to_string(route.method) << " " << route.pattern);
        const auto found = operations.find(key);
        REQUIRE(found != operations.end());
        REQUIRE(found->second.contains("security"));
        CHECK(found->second.at("security") == expected_security(route));
    }
    for (const auto& [key, operation] : operations) {
        INFO("operation " << key << " (" << operation.value("operationId", "") << ")");
        CHECK(declared.count(key) == 1);
    }
}

TEST_CASE("openapi document: the security schemes the operations name, and the scopes API keys can hold", "[openapi]") {
    const auto& schemes = document().at("components").at("securitySchemes");
    CHECK(schemes.at("bearerAuth").at("scheme") == "bearer");
    CHECK(schemes.at("apiKey").at("scheme") == "bearer");
    std::set<std::string> scopes;
    for (const auto& route : route_table())
        if (route.scope) scopes.insert(*route.scope);
    const auto description = schemes.at("apiKey").at("description").get<std::string>();
    for (const auto& scope : scopes) {
        INFO(scope);
        CHECK(description.find("`" + scope + "`") != std::string::npos);
    }
}

TEST_CASE("openapi document: as built into the binary, YAML and JSON, with the servers entry the server replaces",
          "[openapi]") {
    CHECK(document().at("openapi") == "3.1.0");
    // serve/routes/openapi_routes.cpp names its public origin in place of this entry, in both forms.
    REQUIRE(document().at("servers").size() == 1);
    CHECK(document()["servers"][0]["url"] == "/");
    CHECK(openapi::yaml().bytes.find("\nservers:\n  - url: /\n") != std::string_view::npos);
    CHECK(openapi::yaml().sha256.size() == 64);
    CHECK(openapi::redoc().bytes.size() > 100'000);
}

}  // namespace abci::serve::openapi_document_tests
