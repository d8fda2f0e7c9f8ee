// Issue 31 items 4 and 10 through the real binary against a real `abcictl
// serve`: a request the server's rules refuse exits 2 (the README's usage
// code), -v names the HTTP status and the request id, and a login held back
// by the brute-force limit says when to come back and which setting holds it.

#include <regex>

#include "cli/client_test.hpp"
#include "support/serve.hpp"

namespace abci::test::client {

TEST_CASE("client refusals: a request the server refuses exits 2, -v names its HTTP status and request id",
          "[client][exit]") {
    Server server(Server::Options{});
    Terminal t(server.url());
    t.login(Server::admin_email, Server::admin_password);

    const auto nowhere = one_line_failure(t.run({"chains", "status", "nowhere"}), 2);
    // Said once, with where the chains are.
    CHECK(nowhere == "abcictl: unknown blockchain 'nowhere'; the configured ones are in `abcictl chains list` "
                     "(GET /abci/blockchains/list)");

    const auto verbose = t.run({"-v", "chains", "status", "nowhere"});
    INFO(verbose.err);
    CHECK(verbose.exit_code == 2);
    CHECK(std::regex_search(verbose.err, std::regex(R"(\(HTTP 404, request id [0-9a-f-]{36}\))")));
}

TEST_CASE("client refusals: a login held back says when to come back and which setting holds it",
          "[client][exit][lockout]") {
    Server server({.config = "[rate_limit]\nlogin = \"1/300\"\n"});
    Terminal t(server.url());
    const auto wrong = [&] { return t.run({"login", "--email", Server::admin_email, "--password-stdin"}, "wrong\n"); };

    (void)one_line_failure(wrong(), 4);
    const auto held = one_line_failure(wrong(), 1);
    CHECK(held.find("too many login attempts") != std::string::npos);
    CHECK(std::regex_search(held, std::regex(R"(\(wait [0-9]+ s; )")));
    CHECK(held.find("1 per 300 s") != std::string::npos);
    CHECK(held.find("rate_limit.login") != std::string::npos);
}

}  // namespace abci::test::client
