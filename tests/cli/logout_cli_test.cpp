// Issue 31 item 12: `abcictl --server X login` makes X the profile's server
// until `logout`, after which the next command is back at the default rather
// than at a server the user has left.

#include "cli/client_test.hpp"
#include "support/serve.hpp"

namespace abci::test::client {

TEST_CASE("logout forgets the server a login remembered: the next command is back at the default",
          "[client][logout]") {
    Server server(Server::Options{});
    const CleanHome home;
    const auto env = home.env();
    const auto login = run_abcictl({"--server", server.url(), "login", "--email", Server::admin_email, "--password-stdin"},
                                   std::string(Server::admin_password) + "\n", env);
    INFO(login.err);
    REQUIRE(login.exit_code == 0);
    CHECK(run_abcictl({"whoami"}, {}, env).exit_code == 0);  // remembered

    const auto out = run_abcictl({"logout"}, {}, env);
    INFO(out.err);
    CHECK(out.exit_code == 0);
    CHECK(out.err.find("logged out of " + server.url()) != std::string::npos);

    const auto after = one_line_failure(run_abcictl({"whoami"}, {}, env), 4);
    CHECK(after.find(server.url()) == std::string::npos);
    CHECK(after.find("http://127.0.0.1:8080") != std::string::npos);
}

}  // namespace abci::test::client
