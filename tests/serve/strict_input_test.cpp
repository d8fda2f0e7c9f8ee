// Request bodies are read strictly (issue 13 item 5, issue 14 item 13): a
// member named twice anywhere is a 400, not "the last one wins", and a body
// that is not JSON is explained in plain words with the place it breaks,
// not with the parser library's internals. A body's framing is read as
// strictly (issue 30): a request whose end two parsers could see in two
// places is a 400 that ends the connection.

#include <fmt/format.h>

#include "serve/expect.hpp"
#include "serve/raw_http.hpp"

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

TEST_CASE("strict input: ambiguous body framing (request smuggling) is a 400 that closes the connection",
          "[serve][strict][body]") {
    Server server;
    // Each would hide this request in the body for one reading and expose it
    // for another: a second answer (401) means the server took it as one.
    const std::string smuggled = "GET /api/auth/me HTTP/1.1\r\nHost: a\r\n\r\n";
    const std::string post = std::string("POST ") + kLogin + " HTTP/1.1\r\nHost: a\r\n";
    const auto length = [&](const std::string& body) { return std::to_string(body.size()); };
    const std::string chunked_smuggle = "0\r\n\r\n" + smuggled;
    const std::vector<std::pair<std::string, std::string>> shapes = {
        {"CL then TE", post + "Content-Length: " + length(chunked_smuggle) + "\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked_smuggle},
        {"TE then CL", post + "Transfer-Encoding: chunked\r\nContent-Length: " + length(chunked_smuggle) + "\r\n\r\n" + chunked_smuggle},
        {"two lengths", post + "Content-Length: 0\r\nContent-Length: " + length(smuggled) + "\r\n\r\n" + smuggled},
        {"a length list", post + "Content-Length: 0, " + length(smuggled) + "\r\n\r\n" + smuggled},
        {"a signed length", post + "Content-Length: +" + length(smuggled) + "\r\n\r\n" + smuggled},
        {"a percent-encoded length", post + "Content-Length: %30\r\n\r\n" + smuggled},
        {"TE chunked, identity", post + "Transfer-Encoding: chunked, identity\r\n\r\n" + chunked_smuggle},
        {"TE identity", post + "Transfer-Encoding: identity\r\nContent-Length: 0\r\n\r\n" + smuggled},
        {"TE twice", post + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked_smuggle},
        {"TE xchunked", post + "Transfer-Encoding: xchunked\r\n\r\n" + chunked_smuggle},
        {"TE percent-encoded", post + "Transfer-Encoding: %63hunked\r\n\r\n" + chunked_smuggle},
        {"space before the colon", post + "Transfer-Encoding : chunked\r\n\r\n" + chunked_smuggle},
        {"a folded TE", post + "X-A: b\r\n Transfer-Encoding: chunked\r\n\r\n" + chunked_smuggle},
        {"a bare-LF TE line", post + "Transfer-Encoding: chunked\nX-A: b\r\n\r\n" + chunked_smuggle},
        {"a bare-CR header", post + "X-A: b\rTransfer-Encoding: chunked\r\n\r\n" + chunked_smuggle},
        {"a hex-prefixed chunk size", post + "Transfer-Encoding: chunked\r\n\r\n0x0\r\n\r\n" + smuggled},
        {"a chunk size with junk", post + "Transfer-Encoding: chunked\r\n\r\n0 x\r\n\r\n" + smuggled},
        {"a bare-LF chunk line", post + "Transfer-Encoding: chunked\r\n\r\n2\nab\r\n0\r\n\r\n" + smuggled},
        {"chunk data longer than its size", post + "Transfer-Encoding: chunked\r\n\r\n1\r\nab\r\n0\r\n\r\n" + smuggled},
    };
    for (const auto& [shape, request] : shapes) {
        INFO(shape);
        const auto answer = exchange_from("127.0.0.1", server.port(), request, std::chrono::seconds(5));
        INFO(answer);
        CHECK(status_of(answer) == 400);
        CHECK(body_of(answer)["error"] == "invalid_request");
        CHECK(body_of(answer)["details"].is_array());
        CHECK(answer.find("HTTP/1.1", 1) == std::string::npos);
    }
    // Chunked and length framing that is plain stays served, keep-alive included.
    const std::string body = R"({"email":"nobody@example.org","password":"not this"})";
    const auto both = exchange_from("127.0.0.1", server.port(),
                                    post + "Content-Length: " + length(body) + "\r\n\r\n" + body + post +
                                        "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n" +
                                        fmt::format("{:x}\r\n{}\r\n0\r\n\r\n", body.size(), body));
    INFO(both);
    CHECK(status_of(both) == 401);
    CHECK(both.find("HTTP/1.1 401", 10) != std::string::npos);
}

}  // namespace abci::test::strict_input_tests
