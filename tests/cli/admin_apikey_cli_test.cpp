// `abcictl admin apikey …` through the real binary, checked through the store
// the server authenticates against.

#include <catch2/catch.hpp>
#include <chrono>
#include <nlohmann/json.hpp>
#include <regex>

#include "admin_data_dir.hpp"
#include "core/auth/api_key.hpp"
#include "core/util/time.hpp"

namespace abci::test {
namespace {

const std::regex kApiKeyShape("abci_[A-Za-z0-9_-]{43}");

TEST_CASE("admin apikey create shows the key once, list never shows it, revoke works once", "[cli][admin][apikey]") {
    const AdminDataDir data;
    data.add_user("root@example.com", "admin");  // creates the database

    const auto created = data.run({"--json", "admin", "apikey", "create", "--name", "monitoring", "--scope",
                                   "abci:health", "--scope", "abci:read"});
    REQUIRE(created.exit_code == 0);
    CHECK(created.err.find("store this key now: it is not shown again") != std::string::npos);
    const auto key = nlohmann::json::parse(created.out);
    const std::string secret = key.at("key");
    CHECK(std::regex_match(secret, kApiKeyShape));
    CHECK(key.at("name") == "monitoring");
    CHECK(key.at("scopes") == nlohmann::json::array({"abci:health", "abci:read"}));
    {
        // What the server finds when the key is presented: this key, by its hash only.
        const auto found = data.open_store()->api_keys().find_by_hash(auth::hash_api_key(secret));
        REQUIRE(found);
        CHECK(found->id == key.at("id"));
        CHECK_FALSE(found->revoked_at);
    }

    // -q: the key alone; the table: id, name, scopes and key.
    const auto quiet = lines_of(data.ok({"-q", "admin", "apikey", "create", "--name", "ci", "--scope", "abci:read"}));
    REQUIRE(quiet.size() == 1);
    CHECK(std::regex_match(quiet[0], kApiKeyShape));
    const std::string table = data.ok({"admin", "apikey", "create", "--name", "batch", "--scope", "abci:read"});
    CHECK(std::regex_search(table, std::regex("key: +abci_[A-Za-z0-9_-]{43}\n")));
    CHECK(std::regex_search(table, std::regex("scopes: +abci:read\n")));

    const nlohmann::json listed = data.json({"admin", "apikey", "list"});
    REQUIRE(listed.size() == 3);
    CHECK(listed[0].at("id") == key.at("id"));
    CHECK(listed[0].at("name") == "monitoring");
    CHECK(listed[0].at("revokedAt").is_null());
    CHECK_FALSE(listed[0].contains("key"));
    const std::string list_table = data.ok({"admin", "apikey", "list"});
    for (const auto& output : {listed.dump(), list_table}) {
        CHECK(output.find(secret) == std::string::npos);
        CHECK(output.find(quiet[0]) == std::string::npos);
    }
    CHECK(lines_of(list_table).at(0).find("REVOKED") != std::string::npos);
    // Last used: the key's newest request in the audit log.
    CHECK(listed[0].at("lastUsedAt").is_null());
    CHECK(lines_of(list_table).at(1).find("never") != std::string::npos);
    const auto used = std::chrono::time_point_cast<std::chrono::seconds>(std::chrono::system_clock::now());
    {
        const auto store = data.open_store();
        const std::string actor = "apikey:" + key.at("id").get<std::string>();
        store->audit().append({0, used - std::chrono::hours(1), actor, "GET", "/abci/health", 200, "10.0.0.3", "r1"});
        store->audit().append({0, used, actor, "GET", "/abci/health", 200, "10.0.0.3", "r2"});
    }
    const nlohmann::json after_use = data.json({"admin", "apikey", "list"});
    CHECK(after_use[0].at("lastUsedAt") == util::format_iso8601_utc(used));
    CHECK(after_use[1].at("lastUsedAt").is_null());
    CHECK(lines_of(data.ok({"admin", "apikey", "list"})).at(1).find(util::format_iso8601_utc(used)) != std::string::npos);

    const std::string id = key.at("id");
    CHECK(data.ok({"-q", "-y", "admin", "apikey", "revoke", id}) == id + "\n");
    CHECK(data.open_store()->api_keys().find_by_hash(auth::hash_api_key(secret))->revoked_at);
    CHECK_FALSE(data.json({"admin", "apikey", "list"})[0].at("revokedAt").is_null());
    const auto again = data.run({"-y", "admin", "apikey", "revoke", id});
    CHECK(again.exit_code == 1);
    CHECK(again.err.find(id) != std::string::npos);
}

TEST_CASE("admin apikey errors: one line on stderr and the documented exit code", "[cli][admin][apikey]") {
    const AdminDataDir data;
    const auto fails = [&](const std::vector<std::string>& args, int exit_code, const std::string& says) {
        const auto r = data.run(args);
        INFO("stderr: " << r.err);
        CHECK(r.exit_code == exit_code);
        CHECK(r.err.find(says) != std::string::npos);
        CHECK(r.out.empty());
    };
    fails({"admin", "apikey", "list"}, 1, "--data-dir");
    data.add_user("root@example.com", "admin");
    fails({"admin", "apikey", "create", "--name", "x", "--scope", "everything"}, 2, "abci:read");
    fails({"admin", "apikey", "create", "--name", "x"}, 2, "--scope");
    fails({"admin", "apikey", "create", "--name", "", "--scope", "abci:read"}, 2, "--name");
    fails({"admin", "apikey", "revoke", "no-such-id"}, 1, "no-such-id");
    CHECK(data.json({"admin", "apikey", "list"}) == nlohmann::json::array());
}

}  // namespace
}  // namespace abci::test
