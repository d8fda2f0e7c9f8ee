// Text that is not text (issue 30 items 3–6 and 8): a NUL, 0xFF, overlong
// UTF-8 or a lone surrogate in any string that enters from outside is a 400
// on both backends (never a 500, never a value cut at its NUL by
// PostgreSQL); a request with such a path cannot make the audit log
// unwritable; and a flood of forbidden requests costs a bounded number of
// audit rows. Run on SQLite and on three PostgreSQL replicas
// (ABCI_REPLICAS_TESTS: "hostile text:*").

#include <httplib.h>

#include <atomic>
#include <thread>

#include "serve/expect.hpp"
#include "serve/raw_http.hpp"
#include "serve/swept_routes.hpp"
#include "support/chain_server.hpp"
#include "support/eventually.hpp"
#include "support/random.hpp"

namespace abci::test::hostile_text_tests {
namespace {

using namespace std::chrono_literals;
using namespace std::string_literals;

const std::string kFarmer = "farmer@example.org";
const std::string kPassword = "a farmer's long password 1";

// 4xx, and never a success or a server error: what every hostile request must get.
void require_refused(const HttpResponse& r, const std::string& what) {
    INFO(what << " → " << r.status << " " << r.body.substr(0, 300));
    CHECK(r.status >= 400);
    CHECK(r.status < 500);
}

// The same bytes as a path segment or query value (percent-encoded) and
// inside a JSON string (raw, or as the escape JSON has for them).
struct Hostile {
    const char* name;
    const char* encoded;  // in a URL
    const char* json;     // inside a JSON string's quotes
};
const Hostile kHostile[] = {
    {"NUL", "%00", "\\u0000"},
    {"0xFF", "%FF", "\xff"},
    {"overlong '/'", "%C0%AF", "\xc0\xaf"},
    {"lone surrogate", "%ED%A0%80", "\\ud800"},
};

// `body` dumped with the string `marker` (a value or a member's name) replaced by `inside` in quotes.
std::string with_hostile(const nlohmann::json& body, const std::string& marker, const std::string& inside) {
    std::string text = body.dump();
    const std::string quoted = "\"" + marker + "\"";
    const auto at = text.find(quoted);
    REQUIRE(at != std::string::npos);
    return text.replace(at, quoted.size(), "\"x" + inside + "y\"");
}

std::uint64_t audit_count_of(Server& server, const std::string& actor, const std::string& path_prefix,
                             std::size_t* rows = nullptr) {
    store::AuditQuery query;
    query.actor = actor;
    query.path_prefix = path_prefix;
    query.limit = 1'000'000;
    std::uint64_t total = 0;
    const auto entries = server.open_store()->audit().query(query);
    for (const auto& entry : entries) total += static_cast<std::uint64_t>(entry.count);
    if (rows) *rows = entries.size();
    return total;
}

}  // namespace

TEST_CASE("hostile text: a NUL is a 400 wherever PostgreSQL would cut the text, never a shorter value",
          "[serve][hostile-text]") {
    ChainServer chain;
    auto& server = chain.server();
    const auto http = chain.http();
    const auto admin = server.login_admin();
    Random random(30);
    const auto to = random.address().checksummed();

    // An entity id cut at its NUL would be minted as, and read back as, "X".
    require_invalid_request(
        http.post("/abci/contracts/mint-entity-token", entity_mint_body(to, "report", "X\0tail"s, 1), admin.token));

    // A role-request note, a practice's title and description.
    const auto wallet = random.address().checksummed();
    server.link_wallet(Server::admin_email, wallet);
    require_invalid_request(http.post("/v1/role-requests",
                                      {{"roleType", "verifier"},
                                       {"walletAddress", wallet},
                                       {"blockchainId", ChainServer::blockchain_id},
                                       {"note", "before\0after"s}},
                                      admin.token));
    require_invalid_request(http.post("/api/practices", {{"title", "T\0itle"s}, {"description", "d"}}, admin.token));
    require_invalid_request(http.post("/api/practices", {{"title", "t"}, {"description", "d\0escription"s}}, admin.token));
    const auto requests = http.get("/v1/admin/role-requests", admin.token);
    REQUIRE(requests.status == 200);
    CHECK(requests.json["data"].empty());
    const auto practices = http.get("/api/farmers/profile", admin.token);
    REQUIRE(practices.status == 200);
    CHECK(practices.json["data"]["practices"].empty());

    // A sign-in as "user@x\0junk" with user@x's password.
    server.add_user(kFarmer, "farmer", kPassword);
    const auto login = http.post("/api/auth/login-email-password", {{"email", kFarmer + "\0junk"s}, {"password", kPassword}});
    INFO(login.body);
    CHECK((login.status == 400 || login.status == 401));
}

TEST_CASE("hostile text: a raw NUL in an Idempotency-Key header is a 400, not the key cut at the NUL",
          "[serve][hostile-text]") {
    ChainServer chain;
    auto& server = chain.server();
    const auto http = chain.http();
    const auto admin = server.login_admin();
    Random random(31);
    const auto to = random.address().checksummed();
    // Sent by hand: the client library would not send a NUL in a header.
    const auto body = entity_mint_body(to, "report", "R-key", 1).dump();
    const auto port = static_cast<std::uint16_t>(std::stoi(server.url().substr(server.url().rfind(':') + 1)));
    const auto raw = exchange_from("127.0.0.1", port,
                                   "POST /abci/contracts/mint-entity-token HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                                   "Authorization: Bearer " + admin.token + "\r\nContent-Type: application/json\r\n"
                                   "Idempotency-Key: k\0zz\r\nContent-Length: "s + std::to_string(body.size()) +
                                       "\r\n\r\n" + body);
    INFO(raw.substr(0, 400));
    CHECK(status_of(raw) >= 400);
    CHECK(status_of(raw) < 500);
    // Nothing was minted under the key "k" either.
    CHECK(http.get("/abci/contracts/mints?idempotencyKey=k", admin.token).status == 404);
}

TEST_CASE("hostile text: 0xFF or overlong UTF-8 in an id is a 400 on every backend, never a 500",
          "[serve][hostile-text]") {
    ChainServer chain;
    auto& server = chain.server();
    const auto http = chain.http();
    const auto admin = server.login_admin();
    server.add_user(kFarmer, "farmer", kPassword);
    const auto farmer = server.login(kFarmer, kPassword);
    for (const char* bad : {"%FF", "%C0%AF", "%ED%A0%80", "x%00y"}) {
        INFO(bad);
        const std::string id = std::string("id") + bad;
        require_invalid_request(http.get("/abci/contracts/mints/" + id, admin.token));
        require_invalid_request(http.get("/abci/tokens/metadata/1000?blockchainId=devnet&entityId=" + id, admin.token));
        require_invalid_request(http.get("/api/farmers/profile?userId=" + id, admin.token));
        require_invalid_request(http.get("/v1/certifiers/certificates/" + id, farmer.token));
        require_invalid_request(http.send("PUT", "/v1/admin/role-requests/" + id + "/approve", "", "", admin.token));
        require_invalid_request(http.send("PUT", "/v1/admin/role-requests/" + id + "/reject", "", "", admin.token));
    }
}

TEST_CASE("hostile text: a sweep of every route's path segments, query parameters and body members gets only 4xx",
          "[serve][hostile-text]") {
    ChainServer chain({.env = {{"ABCI_API_RATE_LIMIT", "0"}}});
    auto& server = chain.server();
    const auto http = chain.http();
    const auto admin = server.login_admin();
    std::size_t sent = 0;
    for (const auto& route : swept_routes()) {
        INFO(route.method << " " << route.pattern);
        const std::string token = route.open ? std::string() : admin.token;
        const auto send = [&](const std::string& path, const std::string& body) {
            ++sent;
            return http.send(route.method, path, body, "application/json", token);
        };
        const std::string base_body = route.body.is_null() ? std::string() : route.body.dump();
        const std::string query = route.query.empty() ? "" : "?" + route.query;
        for (const auto& bad : kHostile) {
            INFO(bad.name);
            // Each segment of the path.
            std::size_t from = 1;
            while (from < route.path.size()) {
                const auto end = std::min(route.path.find('/', from), route.path.size());
                const auto path = route.path.substr(0, end) + bad.encoded + route.path.substr(end);
                require_refused(send(path + query, base_body), path);
                from = end + 1;
            }
            // Each query parameter the route reads.
            for (const auto& name : route.reads) {
                const auto path = route.path + "?" + name + "=x" + bad.encoded + (route.query.empty() ? "" : "&" + route.query);
                require_refused(send(path, base_body), path);
            }
            // Each member's value, and a member's name, of a body.
            if (route.body.is_object()) {
                for (const auto& [member, value] : route.body.items()) {
                    auto body = route.body;
                    body[member] = "HOSTILE-MARKER";
                    require_refused(send(route.path + query, with_hostile(body, "HOSTILE-MARKER", bad.json)), member);
                    if (value.is_object()) {
                        for (const auto& [inner, inner_value] : value.items()) {
                            auto nested = route.body;
                            nested[member][inner] = "HOSTILE-MARKER";
                            require_refused(send(route.path + query, with_hostile(nested, "HOSTILE-MARKER", bad.json)),
                                            member + "." + inner);
                        }
                    }
                }
                auto named = route.body;
                named["HOSTILE-MARKER"] = "v";
                require_refused(send(route.path + query, with_hostile(named, "HOSTILE-MARKER", bad.json)), "a name");
            }
        }
    }
    INFO("requests sent: " << sent);
    CHECK(sent > 500);
    // The server is still up and answers well-formed requests.
    CHECK(http.get("/livez").status == 200);
    CHECK(server.log().find("\"status\":500") == std::string::npos);
}

TEST_CASE("hostile text: a farmer's GET /abci/%FF leaves the audit log writable, every later request has its row",
          "[serve][hostile-text][audit]") {
    Server server;
    server.add_user(kFarmer, "farmer", kPassword);
    const auto http = server.http();
    const auto farmer = server.login(kFarmer, kPassword);
    for (const char* poison : {"/abci/%FF", "/abci/x%00y", "/abci/%C0%AF"}) {
        const auto r = http.get(poison, farmer.token);
        INFO(poison << " → " << r.status << " " << r.body);
        CHECK((r.status == 403 || r.status == 400));
    }
    for (int i = 0; i < 6; ++i) require_forbidden(http.get("/abci/health", farmer.token));
    CHECK(eventually([&] { return audit_count_of(server, farmer.id(), "/abci/health") == 6; }, 10s));
    CHECK(audit_count_of(server, farmer.id(), "/abci/health") == 6);
    CHECK(server.log().find("audit write failed") == std::string::npos);
}

TEST_CASE("hostile text: a 20,000-request 403 flood with the /abci rate limit off writes a bounded number of audit "
          "rows",
          "[serve][hostile-text][audit]") {
    Server server({.env = {{"ABCI_RATE_LIMIT", "0"}}});
    server.add_user(kFarmer, "farmer", kPassword);
    const auto farmer = server.login(kFarmer, kPassword);
    constexpr int kRequests = 20'000, kThreads = 8;
    std::atomic<int> forbidden{0}, other{0};
    const auto started = std::chrono::steady_clock::now();
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&] {
            httplib::Client client(server.url());
            client.set_keep_alive(true);
            const httplib::Headers headers{{"Authorization", "Bearer " + farmer.token}};
            for (int i = 0; i < kRequests / kThreads; ++i) {
                const auto r = client.Get("/abci/health", headers);
                ++((r && r->status == 403) ? forbidden : other);
            }
        });
    }
    for (auto& th : threads) th.join();
    const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    CHECK(forbidden == kRequests);
    CHECK(other == 0);
    std::size_t rows = 0;
    CHECK(eventually([&] { return audit_count_of(server, farmer.id(), "/abci/health", &rows) == kRequests; }, 30s));
    INFO("figures: " << kRequests << " requests in " << seconds << " s wrote " << rows << " audit rows");
    WARN("403 flood: " << kRequests << " requests in " << seconds << " s, " << rows << " audit rows");
    // One row per (principal, route, client address, minute): a handful, whatever the volume.
    // How long the flood took is printed, not bounded: it measures the machine as much as the server.
    CHECK(rows <= 12);
}

}  // namespace abci::test::hostile_text_tests
