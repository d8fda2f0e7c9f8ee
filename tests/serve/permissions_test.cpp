// The permission table of spec 5.5 as a matrix over the four roles, on the
// role-gated routes and their real records, and SQL metacharacters in every
// stored field, against a real `abcictl serve` with users made by the admin CLI.

#include <future>
#include <map>

#include "serve/expect.hpp"
#include "support/chain_server.hpp"

namespace abci::test {
namespace {

// One signed-in user of each role, and a second farmer.
struct People {
    std::map<std::string, Session> by_role;  // farmer, verifier, admin, developer
    Session other_farmer;
};

People sign_in_everyone(const Server& server) {
    const std::string password = "per-role pass phrase 42";
    server.add_users({{"farmer@example.org", "farmer", password},
                      {"verifier@example.org", "verifier", password},
                      {"developer@example.org", "developer", password},
                      {"farmer2@example.org", "farmer", password}});
    // Logins cost a password hash each: all at once, checked here on the test's thread.
    const auto http = server.http();
    const auto login = [&](const std::string& email, const std::string& pass) {
        return std::async(std::launch::async, [=] {
            return http.post("/api/auth/login-email-password", {{"email", email}, {"password", pass}});
        });
    };
    std::map<std::string, std::future<HttpResponse>> pending;
    for (const char* role : {"farmer", "verifier", "developer"})
        pending[role] = login(std::string(role) + "@example.org", password);
    pending["admin"] = login(Server::admin_email, Server::admin_password);
    auto other = login("farmer2@example.org", password);
    People people;
    for (auto& [role, answer] : pending) {
        const auto email = role == "admin" ? std::string(Server::admin_email) : role + "@example.org";
        people.by_role[role] = require_login_response(answer.get(), email, role);
    }
    people.other_farmer = require_login_response(other.get(), "farmer2@example.org", "farmer");
    return people;
}

nlohmann::json practice(const std::string& title) {
    return {{"title", title}, {"description", "cover crops on the north field"}};
}

}  // namespace

TEST_CASE("spec 5.5: the permission table over the four roles", "[serve][permissions]") {
    Server server;
    const auto http = server.http();
    const auto people = sign_in_everyone(server);
    const auto& farmer = people.by_role.at("farmer");
    const auto& admin = people.by_role.at("admin");

    for (const auto& [role, session] : people.by_role) {
        INFO("role " << role);
        CHECK(session.user["role"] == role);

        // GET /api/farmers/profile: everyone sees their own.
        const auto own = http.get("/api/farmers/profile", session.token);
        INFO(own.body);
        REQUIRE(own.status == 200);
        CHECK(own.json["success"] == true);
        CHECK(own.json["data"]["id"] == session.id());
        CHECK(own.json["data"]["role"] == role);
        CHECK(own.json["data"]["practices"].is_array());

        // … and another farmer's only when not a farmer.
        const auto other = http.get("/api/farmers/profile?userId=" + people.other_farmer.id(), session.token);
        if (role == "farmer") {
            require_forbidden(other);
        } else {
            INFO(other.body);
            REQUIRE(other.status == 200);
            CHECK(other.json["data"]["id"] == people.other_farmer.id());
            CHECK(other.json["data"]["email"] == "farmer2@example.org");
        }

        // POST /api/practices: farmer, admin, developer; not verifier.
        const auto recorded = http.post("/api/practices", practice("practice by " + role), session.token);
        if (role == "verifier") {
            require_forbidden(recorded);
        } else {
            INFO(recorded.body);
            REQUIRE(recorded.status == 201);
            CHECK(recorded.json["success"] == true);
            CHECK(recorded.json["data"]["farmerId"] == session.id());
            CHECK(recorded.json["data"]["title"] == "practice by " + role);
            CHECK(recorded.json["data"]["id"].is_string());
            CHECK(recorded.json["data"]["createdAt"].is_string());
        }

        // GET /api/admin/*: admin only.
        for (const char* path :
             {"/api/admin/users", "/api/admin/audit", "/api/admin/role-requests", "/api/admin/api-keys"}) {
            INFO(path);
            const auto listing = http.get(path, session.token);
            if (role == "admin") {
                INFO(listing.body);
                REQUIRE(listing.status == 200);
                CHECK(listing.json["success"] == true);
                CHECK(listing.json["data"].is_array());
            } else {
                require_forbidden(listing);
            }
        }
        // Unrouted admin paths are gated all the same.
        if (role != "admin") require_forbidden(http.get("/api/admin/no-such-listing", session.token));
    }

    // A farmer records only their own practices; admin names the farmer.
    require_forbidden(http.post("/api/practices",
                                {{"title", "t"}, {"description", "d"}, {"farmerId", people.other_farmer.id()}},
                                farmer.token));
    const auto on_behalf = http.post(
        "/api/practices", {{"title", "by admin"}, {"description", "d"}, {"farmerId", farmer.id()}}, admin.token);
    INFO(on_behalf.body);
    REQUIRE(on_behalf.status == 201);
    CHECK(on_behalf.json["data"]["farmerId"] == farmer.id());
    const auto practice_id = on_behalf.json["data"]["id"].get<std::string>();

    // The farmer's profile lists the practices recorded for them.
    const auto profile = http.get("/api/farmers/profile", farmer.token);
    REQUIRE(profile.status == 200);
    std::vector<std::string> titles;
    for (const auto& p : profile.json["data"]["practices"]) titles.push_back(p.value("title", ""));
    CHECK_THAT(titles, Catch::Matchers::UnorderedEquals(std::vector<std::string>{"practice by farmer", "by admin"}));

    // POST /api/verifications: verifier, admin, developer; not farmer.
    for (const auto& [role, session] : people.by_role) {
        INFO("role " << role);
        const auto verified = http.post("/api/verifications",
                                        {{"practiceId", practice_id}, {"outcome", "approved"}}, session.token);
        if (role == "farmer") {
            require_forbidden(verified);
            continue;
        }
        INFO(verified.body);
        REQUIRE(verified.status == 201);
        CHECK(verified.json["success"] == true);
        CHECK(verified.json["data"]["practiceId"] == practice_id);
        CHECK(verified.json["data"]["verifierId"] == session.id());
        CHECK(verified.json["data"]["outcome"] == "approved");
    }
    const auto& verifier = people.by_role.at("verifier");
    require_error(http.post("/api/verifications", {{"practiceId", "no-such-practice"}, {"outcome", "approved"}},
                            verifier.token),
                  404, "not_found");
    require_invalid_request(
        http.post("/api/verifications", {{"practiceId", practice_id}, {"outcome", "maybe"}}, verifier.token));
    require_invalid_request(http.post("/api/practices", {{"description", "no title"}}, farmer.token));

    // Without a token every one of them is 401 MISSING_TOKEN.
    require_unauthorized(http.get("/api/farmers/profile"), "MISSING_TOKEN");
    require_unauthorized(http.post("/api/practices", practice("x")), "MISSING_TOKEN");
    require_unauthorized(http.post("/api/verifications", {{"practiceId", practice_id}, {"outcome", "approved"}}),
                         "MISSING_TOKEN");
    require_unauthorized(http.get("/api/admin/users"), "MISSING_TOKEN");

    // A role changed by the operator applies to the next login.
    const auto set_role = server.admin_cli({"admin", "user", "set-role", "--email", "farmer2@example.org",
                                            "--role", "verifier"});
    INFO(set_role.err);
    REQUIRE(set_role.exit_code == 0);
    const auto promoted = server.login("farmer2@example.org", "per-role pass phrase 42");
    CHECK(promoted.user["role"] == "verifier");
    CHECK(http.post("/api/verifications", {{"practiceId", practice_id}, {"outcome", "rejected"}}, promoted.token)
              .status == 201);
}

TEST_CASE("SQL metacharacters and unicode in every stored field are stored and returned literally",
          "[serve][permissions]") {
    ChainServer chain;  // role requests name a configured chain
    const auto& server = chain.server();
    const auto http = server.http();
    const std::vector<std::string> nasty{
        "'; DROP TABLE users; --",
        "\" OR 1=1 --",
        "%_",
        "Robert'); DELETE FROM practices WHERE ('1'='1",
        "\\' \\\" \\\\ ` $1 ?1 :name @x",
        "Ünïcødé ✓ 日本語 🌾 \u202e",
        "tab\there\nnew line",
    };

    // An e-mail whose local part carries what an address may: quote, percent, underscore, equals.
    const std::string odd_email = "o'brien+%_--1=1@example.org";
    const std::string password = "pass'; DROP TABLE credentials; --";
    server.add_user(odd_email, "farmer", password);
    server.link_wallet(odd_email, "0x70997970C51812dc3A010C7d01b50e0d17dc79C8");  // role requests name a wallet of theirs
    const auto farmer = server.login(odd_email, password);
    CHECK(farmer.user["email"] == odd_email);
    const auto admin = server.login_admin();
    const auto me = http.get("/api/auth/me", farmer.token);
    REQUIRE(me.status == 200);
    CHECK(me.json["user"]["email"] == odd_email);

    std::vector<std::string> practice_ids;
    for (std::size_t i = 0; i < nasty.size(); ++i) {
        const auto& title = nasty[i];
        const auto& description = nasty[(i + 1) % nasty.size()];
        INFO("title " << title);
        const auto recorded = http.post("/api/practices", {{"title", title}, {"description", description}},
                                        farmer.token);
        INFO(recorded.body);
        REQUIRE(recorded.status == 201);
        CHECK(recorded.json["data"]["title"] == title);
        CHECK(recorded.json["data"]["description"] == description);
        practice_ids.push_back(recorded.json["data"]["id"].get<std::string>());

        const auto verified = http.post("/api/verifications",
                                        {{"practiceId", practice_ids.back()}, {"outcome", "rejected"}, {"notes", title}},
                                        admin.token);
        INFO(verified.body);
        REQUIRE(verified.status == 201);
        CHECK(verified.json["data"]["notes"] == title);

        const auto requested = http.post("/v1/role-requests",
                                         {{"roleType", "producer"},
                                          {"walletAddress", "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"},
                                          {"blockchainId", ChainServer::blockchain_id},
                                          {"note", title}},
                                         farmer.token);
        INFO(requested.body);
        REQUIRE(requested.status == 201);
        CHECK(requested.json["data"]["note"] == title);
        CHECK(requested.json["data"]["status"] == "pending");
        CHECK(requested.json["data"]["userId"] == farmer.id());
        // Decided, so that the next (the same wallet, role and chain) is not a pending twin.
        const auto id = requested.json["data"]["id"].get<std::string>();
        REQUIRE(http.send("PUT", "/v1/admin/role-requests/" + id + "/reject", "", "application/json", admin.token)
                    .status == 200);
    }

    // Read back from the store: the profile's practices, the admin listings.
    const auto profile = http.get("/api/farmers/profile", farmer.token);
    REQUIRE(profile.status == 200);
    CHECK(profile.json["data"]["email"] == odd_email);
    std::map<std::string, nlohmann::json> by_id;
    for (const auto& p : profile.json["data"]["practices"]) by_id[p["id"].get<std::string>()] = p;
    REQUIRE(by_id.size() == nasty.size());
    for (std::size_t i = 0; i < nasty.size(); ++i) {
        CHECK(by_id[practice_ids[i]]["title"] == nasty[i]);
        CHECK(by_id[practice_ids[i]]["description"] == nasty[(i + 1) % nasty.size()]);
    }
    const auto requests = http.get("/api/admin/role-requests", admin.token);
    REQUIRE(requests.status == 200);
    std::vector<std::string> notes;
    for (const auto& r : requests.json["data"]) notes.push_back(r.value("note", ""));
    CHECK_THAT(notes, Catch::Matchers::UnorderedEquals(nasty));
    const auto users = http.get("/api/admin/users", admin.token);
    REQUIRE(users.status == 200);
    std::vector<std::string> emails;
    for (const auto& u : users.json["data"]) emails.push_back(u.value("email", ""));
    CHECK_THAT(emails, Catch::Matchers::UnorderedEquals(std::vector<std::string>{Server::admin_email, odd_email}));

    // Metacharacters where the server looks things up: refused as what they are, never a 500.
    for (const auto& value : {nasty[0], nasty[1]}) {  // a login costs a password hash: two will do
        INFO(value);
        const auto login = http.post("/api/auth/login-email-password", {{"email", value}, {"password", value}});
        require_unauthorized(login, "INVALID_CREDENTIALS");
    }
    for (const auto& value : nasty) {
        INFO(value);
        const auto lookup = http.get("/api/farmers/profile?userId=" + url_encode(value), admin.token);
        require_error(lookup, 404, "not_found");
        // Not a status: refused as such (docs/api.md), not taken for a filter that matches nothing.
        require_invalid_request(http.get("/api/admin/role-requests?status=" + url_encode(value), admin.token));
    }
    require_log_free_of(server, {password, farmer.token, farmer.refresh_token, admin.token});
}

}  // namespace abci::test
