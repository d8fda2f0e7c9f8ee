// Request bodies are read strictly (issue 13 item 5, issue 14 item 13): a
// member named twice anywhere is a 400, not "the last one wins", and a body
// that is not JSON is explained in plain words with the place it breaks,
// not with the parser library's internals.

#include "serve/expect.hpp"

namespace abci::test::strict_input_tests {
namespace {

constexpr const char* kLogin = "/api/auth/login-email-password";

// 400 invalid_request whose one detail contains every piece of `expected`
// and none of the JSON library's vocabulary.
void require_explained(const HttpResponse& r, const std::vector<std::string>& expected) {
    require_invalid_request(r);
    if (r.status != 400 || !r.json.is_object() || !r.json["details"].is_array() || r.json["details"].empty()) return;
    const auto detail = r.json["details"][0].get<std::string>();
    INFO(detail);
    for (const auto& piece : expected) CHECK(detail.find(piece) != std::string::npos);
    for (const char* internal : {"json.exception", "parse_error", "syntax error while parsing"})
        CHECK(detail.find(internal) == std::string::npos);
}

}  // namespace

TEST_CASE("strict input: a member named twice in a body is a 400, whichever copy is right", "[serve][strict]") {
    Server server;
    const auto http = server.http();
    const std::string email = std::string("\"email\":\"") + Server::admin_email + "\"";
    const std::string right = std::string("\"password\":\"") + Server::admin_password + "\"";
    const std::string wrong = "\"password\":\"not the password 1\"";

    // The right password after a wrong one logged in: the last copy won.
    require_explained(http.send("POST", kLogin, "{" + email + "," + wrong + "," + right + "}"),
                      {"\"password\"", "twice"});
    require_explained(http.send("POST", kLogin, "{" + email + "," + right + "," + wrong + "}"), {"\"password\"", "twice"});
    require_explained(http.send("POST", kLogin, "{" + email + "," + right + "," + email + "}"), {"\"email\"", "twice"});

    // At any depth, and on every route that reads a body (an /abci mint is refused before anything is signed).
    const auto admin = server.login_admin();
    const std::string mint = R"({"userAddress":"0x70997970C51812dc3A010C7d01b50e0d17dc79C8","entityType":"practice",)"
                             R"("entityId":"p-1","blockchainId":"devnet","amount":1,"amount":7,"metadata":{"name":"n"}})";
    require_explained(http.send("POST", "/abci/contracts/mint-entity-token", mint, "application/json", admin.token),
                      {"\"amount\"", "twice"});
    const std::string nested = R"({"title":"t","description":"d","metadata":{"a":{"b":1,"b":2}}})";
    require_explained(http.send("POST", "/api/practices", nested, "application/json", admin.token), {"\"b\"", "twice"});

    // The same name in different objects is no duplicate.
    const auto distinct = http.send("POST", kLogin, "{" + email + "," + right + ",\"extra\":{\"email\":1}}");
    INFO(distinct.body);
    CHECK(distinct.status == 200);
}

TEST_CASE("strict input: a body that is not JSON is explained in plain words, with where it breaks",
          "[serve][strict]") {
    Server server;
    const auto http = server.http();

    require_explained(http.send("POST", kLogin, R"({"email": })"), {"not valid JSON", "'}'", "line 1, column 11"});
    require_explained(http.send("POST", kLogin, "{\n  \"email\": \"a@b.c\",\n  \"password\": tru\n}"),
                      {"not valid JSON", "line 3"});
    require_explained(http.send("POST", kLogin, R"({"email":"a@b.c",)"), {"not valid JSON", "ends before"});
    require_explained(http.send("POST", kLogin, "\xff{}"), {"not valid JSON", "0xFF", "line 1, column 1"});
    require_explained(http.send("POST", kLogin, R"({"email":"a@b.c"} {})"), {"not valid JSON", "line 1, column 19"});
    require_explained(http.send("POST", "/api/auth/refresh", ""), {"empty"});
}

}  // namespace abci::test::strict_input_tests
