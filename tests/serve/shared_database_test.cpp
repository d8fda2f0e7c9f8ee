// Replicas on one PostgreSQL database (DESIGN.md §9), from the outside: two
// `abcictl serve` processes, each with its own data directory and port,
// given the same ABCI_DATABASE_URL, serve the same users; and the admin
// commands reach that database through the same variable.

#include <array>
#include <filesystem>
#include <thread>

#include "serve/expect.hpp"
#include "support/postgres.hpp"

namespace abci::test::shared_database_tests {

TEST_CASE("replicas: two servers given one ABCI_DATABASE_URL share their store", "[serve][postgres]") {
    const Postgres pg;
    const auto url = pg.create_database("replicas");

    // The first bootstraps the admin (ABCI_ADMIN_EMAIL/PASSWORD, as test::Server gives them) into the database.
    const Server first({.env = {{"ABCI_DATABASE_URL", url}}});
    (void)first.login_admin();
    const auto ready = first.http().get("/readyz");
    INFO(ready.body);
    CHECK(ready.status == 200);
    CHECK(ready.json["checks"]["database"]["healthy"] == true);
    CHECK_FALSE(std::filesystem::exists(std::filesystem::path(first.data_dir()) / "abci.db"));

    // A user added beside the servers by the admin command, through the same variable.
    const std::string password = "another long password 8";
    const auto added = run_abcictl({"admin", "user", "add", "--email", "ann@example.org", "--role", "farmer", "--password-stdin"},
                                   password + "\n", {{"ABCI_DATABASE_URL", url}});
    INFO(added.err);
    REQUIRE(added.exit_code == 0);

    // The second is given no admin to create: it can only know the first's from the database.
    const Server second({.env = {{"ABCI_DATABASE_URL", url}, {"ABCI_ADMIN_EMAIL", ""}, {"ABCI_ADMIN_PASSWORD", ""}}});
    CHECK(second.port() != first.port());
    CHECK(second.data_dir() != first.data_dir());
    CHECK(second.login_admin().user["email"] == Server::admin_email);
    CHECK(second.login("ann@example.org", password).user["role"] == "farmer");
    CHECK(second.http().get("/readyz").status == 200);
    CHECK(second.log().find("no users yet") == std::string::npos);
}

// What a client meets when a load balancer sends each request elsewhere: the
// session, its rotation and revocation, and the /abci rate limit are the
// database's, not a replica's.
TEST_CASE("replicas: a session and the rate limit hold across three servers, a refresh raced on all three wins once",
          "[serve][postgres]") {
    const Postgres pg;
    const auto url = pg.create_database("three");
    const Env env{{"ABCI_DATABASE_URL", url}, {"ABCI_RATE_LIMIT", "10/60"}};
    const Server a({.env = env});
    const Server b({.env = env});
    const Server c({.env = env});
    const std::array replicas{a.http(), b.http(), c.http()};

    // Signed by a's first start, checked by b and c: the JWT secret is the database's.
    const auto session = a.login_admin();
    for (const auto& http : replicas) CHECK(http.get("/api/auth/me", session.token).status == 200);

    // The same refresh token at all three at once: one rotation, two reuses,
    // and reuse revokes the family, the winner's new refresh token included.
    std::array<HttpResponse, 3> answers;
    {
        std::vector<std::thread> racers;
        for (std::size_t i = 0; i < replicas.size(); ++i)
            racers.emplace_back([&, i] {
                answers[i] = replicas[i].post("/api/auth/refresh", {{"refresh_token", session.refresh_token}});
            });
        for (auto& t : racers) t.join();
    }
    int rotated = 0;
    std::string fresh_refresh;
    for (const auto& answer : answers) {
        INFO(answer.body);
        CHECK((answer.status == 200 || answer.status == 401));
        if (answer.status != 200) continue;
        ++rotated;
        fresh_refresh = answer.json["refresh_token"].get<std::string>();
    }
    CHECK(rotated == 1);
    for (const auto& http : replicas)
        CHECK(http.post("/api/auth/refresh", {{"refresh_token", fresh_refresh}}).status == 401);

    // Logged out at b: refused at c at once.
    const auto other = c.login_admin();
    REQUIRE(b.http().post("/api/auth/logout", nlohmann::json::object(), other.token).status == 200);
    CHECK(c.http().get("/api/auth/me", other.token).status == 401);

    // 10 /abci requests per 60 s for a caller, wherever they land.
    const auto caller = a.login_admin();
    for (int i = 0; i < 10; ++i) {
        const auto answer = replicas[static_cast<std::size_t>(i) % 3].get("/abci/blockchains/list", caller.token);
        INFO("request " << i + 1 << ": " << answer.body);
        REQUIRE(answer.status == 200);
    }
    for (const auto& http : replicas) {
        const auto refused = http.get("/abci/blockchains/list", caller.token);
        INFO(refused.body);
        CHECK(refused.status == 429);
    }
}

// During an outage whoever asks learns that the service is unavailable, not
// where its database lives; the operator's log and commands still say.
TEST_CASE("replicas: while the database is down, public answers name no host, port or database, while the log does",
          "[serve][postgres]") {
    Postgres pg;
    const auto url = pg.create_database("outage_store");
    const Server server({.env = {{"ABCI_DATABASE_URL", url}}});
    (void)server.login_admin();
    const auto http = server.http();
    pg.stop();

    const std::string where = "127.0.0.1:" + std::to_string(pg.port()) + "/outage_store";
    const auto login = http.post("/api/auth/login-email-password",
                                 {{"email", Server::admin_email}, {"password", Server::admin_password}});
    const auto abci = http.get("/abci/blockchains/list", "not-a-token");
    const auto ready = http.get("/readyz");
    for (const auto* answer : {&login, &abci, &ready}) {
        INFO(answer->status << " " << answer->body);
        // The bad token may be refused before the database is asked anything.
        CHECK((answer->status == 503 || (answer == &abci && answer->status == 401)));
        for (const auto& secret : {std::string("127.0.0.1"), std::to_string(pg.port()), std::string("outage_store"),
                                   std::string("PostgreSQL")})
            CHECK(answer->body.find(secret) == std::string::npos);
    }
    CHECK(login.json == nlohmann::json{{"error", "unavailable"}, {"message", "the service is unavailable: try again later"}});
    CHECK(ready.json["checks"]["database"]["healthy"] == false);
    CHECK(server.log().find(where) != std::string::npos);

    // The operator's own commands still name it.
    const auto listed = run_abcictl({"admin", "user", "list"}, "", {{"ABCI_DATABASE_URL", url}});
    INFO(listed.err);
    CHECK(listed.exit_code != 0);
    CHECK(listed.err.find(where) != std::string::npos);
}

}  // namespace abci::test::shared_database_tests
