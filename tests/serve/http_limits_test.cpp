// What a real `abcictl serve` does with hostile or broken HTTP: malformed
// and oversized bodies, deep JSON, huge headers, unknown routes; request ids;
// and a graceful stop that lets an in-flight request finish.

#include <future>
#include <thread>

#include "serve/expect.hpp"

namespace abci::test {
namespace {

std::string nested_arrays(std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

std::string nested_objects(std::size_t depth) {
    std::string out;
    for (std::size_t i = 0; i < depth; ++i) out += "{\"a\":";
    out += "1";
    out += std::string(depth, '}');
    return out;
}

}  // namespace

TEST_CASE("malformed, oversized and deeply nested bodies are 4xx, never a 500 or a crash", "[serve][http]") {
    Server server;
    const auto http = server.http();
    const std::string login = "/api/auth/login-email-password";

    for (const std::string body :
         {"{", "{\"email\": }", "not json at all", "{\"email\":\"a\",}", "[]", "\"just a string\"", "null"}) {
        INFO("body " << body);
        require_invalid_request(http.send("POST", login, body));
    }
    require_invalid_request(http.send("POST", login, ""));

    // Over the body limit (1 MiB by default): 413 before anything else.
    const std::string huge = "{\"email\":\"" + std::string(1024 * 1024 + 1, 'a') + "\",\"password\":\"p\"}";
    require_error(http.send("POST", login, huge), 413, "payload_too_large");
    require_error(http.send("POST", "/api/practices", huge), 413, "payload_too_large");

    // Deeper than 32 levels: 400; far deeper must not exhaust the server's stack either.
    const auto admin = server.login_admin();
    for (const auto& body : {nested_arrays(33), nested_objects(33), nested_arrays(200000), nested_objects(100000)}) {
        INFO("depth body of " << body.size() << " bytes");
        require_invalid_request(http.send("POST", login, "{\"email\":" + body + ",\"password\":\"p\"}"));
        require_invalid_request(http.send("POST", "/api/practices", "{\"title\":" + body + "}", "application/json",
                                          admin.token));
    }
    // 32 levels is within the limit: refused for its content (a title must be a string), not its depth.
    const auto shallow = http.send("POST", "/api/practices", "{\"title\":" + nested_arrays(31) + ",\"description\":\"d\"}",
                                   "application/json", admin.token);
    require_invalid_request(shallow);
    CHECK(shallow.body.find("deeper") == std::string::npos);

    // Fields of the wrong type or size.
    require_invalid_request(http.post(login, {{"email", nlohmann::json::array({"a"})}, {"password", "p"}}));
    require_invalid_request(http.post(login, {{"email", "a@b.c"}, {"password", std::string(5000, 'p')}}));

    // Still alive and well.
    CHECK(http.get("/api/auth/me", admin.token).status == 200);
}

// The parser's message quotes the invalid bytes; the error body must still serialise.
TEST_CASE("a body that is not UTF-8 is a 400", "[serve][http]") {
    Server server;
    const auto http = server.http();
    for (const std::string body : {"\xff\xfe{}", "{\"email\":\"\xc3\x28\",\"password\":\"x\"}"}) {
        INFO("body " << body);
        require_invalid_request(http.send("POST", "/api/auth/login-email-password", body));
    }
}

TEST_CASE("huge headers and request lines are refused, unknown routes are JSON 404s", "[serve][http]") {
    Server server;
    const auto http = server.http();

    const auto big_header = http.get("/api/auth/me", "", {{"X-Padding", std::string(20 * 1024, 'h')}});
    INFO(big_header.status << " " << big_header.body);
    // One header line past the reader's limit is a malformed head (400); too many lines, 431.
    CHECK(big_header.status == 400);
    const auto big_token = http.get("/api/auth/me", std::string(20 * 1024, 'e'));
    CHECK(big_token.status == 400);
    const auto many_headers = [&] {
        Headers headers;
        for (int i = 0; i < 200; ++i) headers.emplace_back("X-H" + std::to_string(i), std::string(100, 'v'));
        return http.get("/api/auth/me", "", headers);
    }();
    CHECK(many_headers.status == 431);
    const auto long_path = http.get("/abci/" + std::string(20 * 1024, 'p'));
    CHECK(long_path.status == 414);

    require_error(http.get("/no/such/route"), 404, "not_found");
    require_error(http.post("/api/no-such-route", nlohmann::json::object()), 404, "not_found");
    const auto any = http.get("/no/such/route");
    CHECK(!any.header("X-Request-Id").empty());

    // Every response has its own request id.
    CHECK(http.get("/no/such/route").header("X-Request-Id") != any.header("X-Request-Id"));
    // The server survived all of it.
    CHECK(http.post("/api/auth/login-email-password", {{"email", "x@example.org"}, {"password", "y"}}).status == 401);
}

TEST_CASE("SIGTERM: an in-flight request completes and the server exits 0", "[serve][http]") {
    Server server;
    const auto http = server.http();
    // A login naming no account spends a default-cost password hash's time
    // (as a wrong password would): long enough to be in flight.
    auto in_flight = std::async(std::launch::async, [&] {
        return http.post("/api/auth/login-email-password", {{"email", "nobody@example.org"}, {"password", "guess"}});
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    REQUIRE(in_flight.wait_for(std::chrono::seconds(0)) == std::future_status::timeout);
    const int exit_status = server.stop();
    const auto answer = in_flight.get();
    INFO(answer.body);
    CHECK(answer.status == 401);
    CHECK(exit_status == 0);
    // Stopped means stopped.
    CHECK(http.get("/api/auth/me").status == 0);
    // And it comes back on the same data: the admin exists already.
    server.restart();
    CHECK(server.login_admin().user["role"] == "admin");
    require_log_free_of(server, {Server::admin_password, "guess"});
}

}  // namespace abci::test
