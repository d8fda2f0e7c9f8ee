// What a real `abcictl serve` does with hostile or broken HTTP: malformed
// and oversized bodies, deep JSON, huge headers, unknown routes; request ids;
// and a graceful stop that lets an in-flight request finish. Bodies are
// bounded before they are read, whatever their framing (issue 30).

#include <atomic>
#include <fstream>
#include <future>
#include <thread>

#include <fmt/format.h>

#include "serve/expect.hpp"
#include "serve/raw_http.hpp"
#include "support/cli_runner.hpp"
#include "support/tools.hpp"

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

namespace abci::test::http_body_tests {
namespace {

constexpr const char* kLogin = "/api/auth/login-email-password";

/// The server's peak resident memory so far (VmHWM), in MiB.
double peak_rss_mib(int pid) {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
    return 0;
}

struct Streamed {
    std::string answer;
    std::size_t sent = 0;
    std::chrono::milliseconds took{0};  // to the end of the answer
};

/// Sends `head`, then `next(i)` for i = 0, 1, … until it is empty or the
/// server stops reading, while reading the answer (until the server closes).
template <class Next>
Streamed stream_to(std::uint16_t port, const std::string& head, Next next) {
    const int fd = connect_from("127.0.0.1", port);
    REQUIRE(fd >= 0);
    Streamed out;
    const auto started = RawClock::now();
    std::atomic<std::size_t> sent{0};
    std::thread sender([&] {
        const auto send_whole = [&](const std::string& text) {
            for (std::size_t done = 0; done < text.size();) {
                const auto n = ::send(fd, text.data() + done, text.size() - done, MSG_NOSIGNAL);
                if (n <= 0) return false;
                done += static_cast<std::size_t>(n);
                sent += static_cast<std::size_t>(n);
            }
            return true;
        };
        if (!send_whole(head)) return;
        for (std::size_t i = 0;; ++i) {
            const auto piece = next(i);
            if (piece.empty() || !send_whole(piece)) return;
        }
    });
    out.answer = read_until_closed(fd, std::chrono::seconds(60));
    out.took = std::chrono::duration_cast<std::chrono::milliseconds>(RawClock::now() - started);
    ::shutdown(fd, SHUT_RDWR);
    sender.join();
    ::close(fd);
    out.sent = sent;
    return out;
}

std::string head_of(const std::string& headers) {
    return std::string("POST ") + kLogin + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" + headers +
           "\r\n";
}

/// A gzip member inflating to `size` spaces in about size / 160 bytes: one
/// fixed-Huffman deflate block of a literal and (length 258, distance 1)
/// repeats (RFC 1951 §3.2.6). Its CRC is wrong: an inflater finds out only
/// at the very end.
std::string gzip_bomb(std::size_t size) {
    std::string out("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff", 10);
    std::uint32_t pending = 0;
    int count = 0;
    const auto bit = [&](std::uint32_t b) {
        pending |= b << count;
        if (++count == 8) {
            out += static_cast<char>(pending);
            pending = 0;
            count = 0;
        }
    };
    const auto huffman = [&](std::uint32_t code, int bits) {  // most significant bit first
        for (int i = bits - 1; i >= 0; --i) bit((code >> i) & 1);
    };
    bit(1);  // the final block
    bit(1);  // fixed Huffman codes (BTYPE 01, least significant bit first)
    bit(0);
    huffman(0x30 + ' ', 8);
    for (std::size_t made = 1; made + 258 <= size; made += 258) {
        huffman(0xc5, 8);  // length 258
        huffman(0, 5);     // distance 1
    }
    huffman(0, 7);  // end of block
    if (count > 0) out += static_cast<char>(pending);
    out.append(8, '\0');  // CRC and size
    return out;
}

}  // namespace

TEST_CASE("body bounds: a chunked body is refused with 413 at the limit, and the server's memory does not grow with it",
          "[serve][http][body]") {
    Server server;
    const double before = peak_rss_mib(server.pid());
    // 40 MiB of chunks (the issue's 1 GB held 1.1 GB): the limit is 1 MiB.
    const std::string chunk = "10000\r\n" + std::string(0x10000, 'a') + "\r\n";
    const auto streamed = stream_to(server.port(), head_of("Transfer-Encoding: chunked\r\n"),
                                    [&](std::size_t i) { return i < 640 ? chunk : i == 640 ? "0\r\n\r\n" : ""; });
    const double grew = peak_rss_mib(server.pid()) - before;
    WARN("40 MiB chunked body: " << status_of(streamed.answer) << " after " << streamed.took.count() << " ms, "
                                 << streamed.sent / 1024 << " KiB sent, server peak RSS +" << grew << " MiB");
    CHECK(status_of(streamed.answer) == 413);
    CHECK(body_of(streamed.answer)["error"] == "payload_too_large");
    CHECK(body_of(streamed.answer)["message"].is_string());
    CHECK(grew < 16);
    CHECK(streamed.sent < 20u * 1024 * 1024);
    // Within the limit, chunked is read and decoded as any body.
    std::string chunks;
    for (const std::string part : {R"({"email")", R"(:"nobody@example.org","passwo)", R"(rd":"not this"})"})
        chunks += fmt::format("{:x}\r\n{}\r\n", part.size(), part);
    const auto small = exchange_from("127.0.0.1", server.port(),
                                     head_of("Transfer-Encoding: chunked\r\nConnection: close\r\n") + chunks +
                                         "0\r\nX-Trailer: dropped\r\n\r\n");
    INFO(small);
    CHECK(status_of(small) == 401);
}

TEST_CASE("body bounds: a compressed body is refused with 415 before it is read, a gzip bomb costs no memory",
          "[serve][http][body]") {
    Server server;
    const double before = peak_rss_mib(server.pid());
    const auto bomb = gzip_bomb(100u * 1024 * 1024);
    REQUIRE(bomb.size() < 1024 * 1024);
    for (const char* coding : {"gzip", "deflate", "br", "x-unknown"}) {
        INFO(coding);
        const auto streamed =
            stream_to(server.port(),
                      head_of(std::string("Content-Encoding: ") + coding + "\r\nContent-Length: " +
                              std::to_string(bomb.size()) + "\r\n"),
                      [&](std::size_t i) { return i == 0 ? bomb : std::string(); });
        CHECK(status_of(streamed.answer) == 415);
        CHECK(body_of(streamed.answer)["error"] == "unsupported_media_type");
        CHECK(body_of(streamed.answer)["message"].is_string());
        CHECK(streamed.took < std::chrono::seconds(3));
    }
    const double grew = peak_rss_mib(server.pid()) - before;
    WARN("a " << bomb.size() / 1024 << " KiB gzip bomb of 100 MiB: server peak RSS +" << grew << " MiB");
    CHECK(grew < 16);
    // identity is no compression.
    const auto plain = exchange_from("127.0.0.1", server.port(),
                                     head_of("Content-Encoding: identity\r\nContent-Length: 2\r\nConnection: close\r\n") + "{}");
    CHECK(status_of(plain) == 400);
}

TEST_CASE("body bounds: a Content-Length over the limit is a 413 from the headers alone, at once",
          "[serve][http][body]") {
    Server server;
    // The body is never sent: the answer cannot wait for it.
    const auto started = RawClock::now();
    const auto answer = exchange_from("127.0.0.1", server.port(), head_of("Content-Length: 100000000\r\n"),
                                      std::chrono::seconds(5));
    const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(RawClock::now() - started);
    WARN("100 MB Content-Length, no body: " << status_of(answer) << " after " << took.count() << " ms");
    CHECK(status_of(answer) == 413);
    CHECK(body_of(answer)["error"] == "payload_too_large");
    CHECK(took < std::chrono::seconds(2));
    // Sent as well: refused as promptly, not read to the end.
    const double before = peak_rss_mib(server.pid());
    const std::string block(1 << 20, 'a');
    const auto streamed = stream_to(server.port(), head_of("Content-Length: 104857600\r\n"),
                                    [&](std::size_t i) { return i < 100 ? block : std::string(); });
    WARN("100 MiB Content-Length, sent: " << status_of(streamed.answer) << " after " << streamed.took.count()
                                          << " ms, server peak RSS +" << peak_rss_mib(server.pid()) - before << " MiB");
    CHECK(status_of(streamed.answer) == 413);
    CHECK(streamed.sent < 50u * 1024 * 1024);
}

TEST_CASE("body bounds: a POST without a length has an empty body, a GET's body is not a second request",
          "[serve][http][body]") {
    Server server;
    // cpp-httplib read a POST without Content-Length until the client closed.
    const auto started = RawClock::now();
    const int fd = connect_from("127.0.0.1", server.port());
    REQUIRE(fd >= 0);
    send_text(fd, head_of("Connection: close\r\n"));
    const auto answer = read_until_closed(fd, std::chrono::seconds(2));
    ::close(fd);
    INFO(answer);
    CHECK(status_of(answer) == 400);
    CHECK(RawClock::now() - started < std::chrono::seconds(2));

    // A body on a GET is read and dropped with it, never parsed as the next request.
    const std::string inner = "GET /api/auth/me HTTP/1.1\r\nHost: a\r\n\r\n";
    const auto both = exchange_from("127.0.0.1", server.port(),
                                    "GET /no/such HTTP/1.1\r\nHost: a\r\nContent-Length: " +
                                        std::to_string(inner.size()) + "\r\n\r\n" + inner +
                                        "GET /no/such HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
    INFO(both);
    CHECK(status_of(both) == 404);
    CHECK(both.find("HTTP/1.1 404", 10) != std::string::npos);
    CHECK(both.find("HTTP/1.1 401") == std::string::npos);
}

TEST_CASE("body bounds: Expect 100-continue is answered once, before the body", "[serve][http][body]") {
    Server server;
    const int fd = connect_from("127.0.0.1", server.port());
    REQUIRE(fd >= 0);
    const std::string body = R"({"email":"nobody@example.org","password":"not this"})";
    send_text(fd, head_of("Expect: 100-continue\r\nConnection: close\r\nContent-Length: " + std::to_string(body.size()) +
                          "\r\n"));
    const auto interim = read_until_closed(fd, std::chrono::milliseconds(500));
    CHECK(interim == "HTTP/1.1 100 Continue\r\n\r\n");
    send_text(fd, body);
    const auto answer = read_until_closed(fd, std::chrono::seconds(10));
    ::close(fd);
    INFO(answer);
    CHECK(status_of(answer) == 401);
    CHECK(answer.find("100 Continue") == std::string::npos);
}

}  // namespace abci::test::http_body_tests

namespace abci::test::http_body_tests {

// A megabyte of tiny JSON members took 15 MB to parse: 60 such bodies at once,
// without a login, took the server past 1 GB (and 1984 connections would
// take it past any machine's memory). The values a body may hold are counted.
TEST_CASE("body bounds: a body of a hundred thousand tiny members is refused at the value limit, costing no memory",
          "[serve][http][body]") {
    Server server;
    std::string many = "{";
    for (int i = 0; many.size() < 1000 * 1000; ++i) many += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":0";
    many += "}";
    const auto before = peak_rss_mib(server.pid());
    constexpr int kAtOnce = 60;
    std::vector<std::future<HttpResponse>> answers;
    for (int i = 0; i < kAtOnce; ++i)
        answers.push_back(std::async(std::launch::async, [&] { return server.http().send("POST", kLogin, many); }));
    for (auto& answer : answers) {
        const auto r = answer.get();
        INFO(r.body);
        CHECK(r.status == 400);
        CHECK(r.body.find("more than 10000 JSON values") != std::string::npos);
    }
    const auto grown = peak_rss_mib(server.pid()) - before;
    WARN(kAtOnce << " bodies of 1 MB of tiny members at once: the server grew " << grown << " MiB");
    // The bodies themselves (60 MiB) and a bounded parse each, not 15 MB each
    // (956 MiB before; ASan's redzones and quarantine triple what remains).
    CHECK(grown < kAtOnce * (sanitized_build() ? 12.0 : 4.0));
}

}  // namespace abci::test::http_body_tests

// The benchmark's constant route (docs/decisions.md): it measures what
// cpp-httplib costs alone, so only a loopback server told by the benchmark's
// own variable has it, and it answers with nothing of ours around it.
namespace abci::test::bench_reference_tests {

TEST_CASE("the benchmark's constant route: only with ABCI_BENCH_REFERENCE_ROUTE=1 on loopback, answered before routing", "[serve][http]") {
    {
        Server normal;
        CHECK(normal.http().get("/_bench/reference").status == 404);
    }
    Server bench(Server::Options{.env = {{"ABCI_BENCH_REFERENCE_ROUTE", "1"}}});
    const auto r = bench.http().get("/_bench/reference");
    CHECK(r.status == 200);
    CHECK(r.body == R"({"data":{"ok":true}})");
    CHECK_FALSE(r.has_header("X-Request-Id"));
    CHECK(bench.http().get("/livez").status == 200);  // every other route as in a normal serve
    CHECK(bench.log().find("/_bench/reference") == std::string::npos);

    TempDir dir;
    const auto refused = run_abcictl({"serve", "--listen", "0.0.0.0:0", "--data-dir", dir / "data"}, {},
                                     {{"ABCI_BENCH_REFERENCE_ROUTE", "1"}});
    INFO("stderr: " << refused.err);
    CHECK(refused.exit_code == 2);
    CHECK(refused.err.find("ABCI_BENCH_REFERENCE_ROUTE") != std::string::npos);
}

}  // namespace abci::test::bench_reference_tests
