// What any user can make an admin's terminal print: text a request carried
// (here a path, recorded by the audit log) is shown with its control
// characters as visible escapes, so it can neither clear or recolour the
// screen, plant a link, reorder text (bidi overrides) nor forge a line.

#include <catch2/catch.hpp>

#include "support/serve.hpp"

namespace abci::test {

TEST_CASE("terminal text: a path full of escape sequences is listed by admin audit as visible text",
          "[cli][admin][audit]") {
    Server server;
    const auto admin = server.login_admin();
    // ESC [2J (clear), an OSC 8 hyperlink, a C1 CSI and a right-to-left override.
    const auto probe = server.http().get("/abci/%1B%5B2J%1B%5D8%3B%3Bhttp%3A%2F%2Fx%07link%C2%9B31m%E2%80%AEtxt",
                                         admin.token);
    REQUIRE(probe.status == 404);

    const auto listed = server.admin_cli({"admin", "audit", "--path", "/abci/"});
    INFO(listed.out << listed.err);
    REQUIRE(listed.exit_code == 0);
    CHECK(listed.out.find("/abci/\\x1b[2J\\x1b]8;;http://x\\x07link\\x9b31m\\u202etxt") != std::string::npos);
    for (const unsigned char c : listed.out) CHECK((c >= 0x20 || c == '\n'));
    CHECK(listed.out.find("\xc2\x9b") == std::string::npos);
    CHECK(listed.out.find("\xe2\x80\xae") == std::string::npos);

    // --json is for programs: the path as recorded, escaped only as JSON escapes it.
    const auto json = nlohmann::json::parse(server.admin_cli({"--json", "admin", "audit", "--path", "/abci/"}).out);
    REQUIRE(json.size() == 1);
    CHECK(json[0]["path"] == "/abci/\x1b[2J\x1b]8;;http://x\alink\xc2\x9b" "31m\xe2\x80\xaetxt");
}

}  // namespace abci::test
