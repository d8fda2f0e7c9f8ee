// `abcictl api spec`: the OpenAPI document a server serves, and with
// --built-in the one built into the binary, asking no server.

#include <nlohmann/json.hpp>

#include "support/cli_runner.hpp"
#include "support/serve.hpp"

namespace abci::test::api_spec_cli {

TEST_CASE("api spec prints the server's OpenAPI document, and with --built-in the binary's own", "[cli][api]") {
    Server server;
    const auto served = run_abcictl({"--server", server.url(), "api", "spec"});
    INFO(served.out << served.err);
    REQUIRE(served.exit_code == 0);
    const auto document = nlohmann::json::parse(served.out);
    CHECK(document.at("openapi") == "3.1.0");
    CHECK(document.at("servers").at(0).at("url") == server.url());

    // No server is asked: the one named does not listen.
    const auto built_in = run_abcictl({"--server", "http://127.0.0.1:1", "api", "spec", "--built-in"});
    INFO(built_in.err);
    REQUIRE(built_in.exit_code == 0);
    auto own = nlohmann::json::parse(built_in.out);
    CHECK(own.at("servers").at(0).at("url") == "/");
    // The same contract: only the server's origin differs.
    own["servers"] = document["servers"];
    CHECK(own == document);

    const auto unreachable = run_abcictl({"--server", "http://127.0.0.1:1", "api", "spec"});
    CHECK(unreachable.exit_code != 0);
    CHECK(unreachable.out.empty());
    CHECK(unreachable.err.find("cannot reach the server at http://127.0.0.1:1") != std::string::npos);
}

}  // namespace abci::test::api_spec_cli
