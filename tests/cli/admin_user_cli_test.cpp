// `abcictl admin user …` through the real binary on a real data directory,
// checked through the store the server reads. Passwords reach abcictl through
// stdin or a file, never argv; each one costs a scrypt hash (about half a
// second), so most users here have none.

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>

#include "admin_data_dir.hpp"
#include "core/auth/password.hpp"

namespace abci::test {
namespace {

const std::regex kIso8601Utc(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)");
const std::regex kUuid(R"([0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12})");

// anvil's first dev account, EIP-55 checksummed and lower-case.
constexpr const char* kWallet = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";
constexpr const char* kWalletLower = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";

TEST_CASE("admin user add creates the data directory and users of every role, list in three forms",
          "[cli][admin][user]") {
    const AdminDataDir data;
    const std::string password = "correct horse battery staple";
    const nlohmann::json admin =
        data.json({"admin", "user", "add", "--email", "Root@Example.COM", "--role", "admin", "--password-stdin"},
                  password + "\n");
    CHECK(std::regex_match(admin.at("id").get<std::string>(), kUuid));
    CHECK(admin.at("email") == "root@example.com");
    CHECK(admin.at("role") == "admin");
    CHECK(admin.at("verified") == true);
    CHECK(admin.at("wallets") == nlohmann::json::array());
    CHECK(std::regex_match(admin.at("createdAt").get<std::string>(), kIso8601Utc));
    // The database holds password hashes and sessions: for the owner only.
    CHECK(permissions_of(data.path()) == 0700);
    CHECK(permissions_of(data.database()) == 0600);

    // -q prints the new id alone; the other roles, with and without a password.
    TempDir files;
    const std::string password_file = files.write("farmer-password", "another long passphrase\n");
    const std::string farmer_id = lines_of(data.ok({"-q", "admin", "user", "add", "--email", "farmer@example.com",
                                                    "--role", "farmer", "--password-file", password_file}))
                                      .at(0);
    const std::string verifier_id = data.add_user("verifier@example.com", "verifier").at("id");
    const std::string developer_id = data.add_user("dev@example.com", "developer").at("id");

    {
        const auto store = data.open_store();
        const auto hash = store->credentials().password_hash(admin.at("id"));
        REQUIRE(hash);
        CHECK(auth::verify_password(password, *hash));  // stdin's trailing newline is not part of it
        CHECK(store->credentials().password_hash(farmer_id));
        CHECK_FALSE(store->credentials().password_hash(verifier_id));
    }

    const nlohmann::json listed = data.json({"admin", "user", "list"});
    REQUIRE(listed.size() == 4);
    CHECK(listed[0] == admin);
    CHECK(listed[1].at("role") == "farmer");
    CHECK(listed[2].at("email") == "verifier@example.com");
    CHECK(listed[3].at("role") == "developer");

    const auto ids = lines_of(data.ok({"-q", "admin", "user", "list"}));
    CHECK(ids == std::vector<std::string>{admin.at("id"), farmer_id, verifier_id, developer_id});

    const auto table = lines_of(data.ok({"admin", "user", "list"}));
    REQUIRE(table.size() == 5);
    CHECK(std::regex_match(table[0], std::regex("ID +EMAIL +ROLE +VERIFIED +WALLETS +CREATED")));
    CHECK(std::regex_match(table[1],
                           std::regex(admin.at("id").get<std::string>() + " +root@example\\.com +admin +yes +- +" +
                                      admin.at("createdAt").get<std::string>())));
    CHECK(table[4].find("dev@example.com") != std::string::npos);
}

TEST_CASE("admin user set-role and link-wallet change an existing user", "[cli][admin][user]") {
    const AdminDataDir data;
    const std::string id = data.add_user("ann@example.com", "farmer").at("id");
    const std::string other = data.add_user("bob@example.com", "farmer").at("id");

    const nlohmann::json promoted =
        data.json({"admin", "user", "set-role", "--email", "ANN@example.com", "--role", "verifier"});
    CHECK(promoted.at("id") == id);
    CHECK(promoted.at("role") == "verifier");
    CHECK(data.json({"admin", "user", "list"})[0].at("role") == "verifier");

    // Checksummed and lower-case input name one wallet, stored lower-case; linking it again changes nothing.
    CHECK(
        data.json({"admin", "user", "link-wallet", "--email", "ann@example.com", "--address", kWallet}).at("wallets") ==
        nlohmann::json::array({kWalletLower}));
    CHECK(data.json({"admin", "user", "link-wallet", "--email", "ann@example.com", "--address", kWalletLower})
              .at("wallets") == nlohmann::json::array({kWalletLower}));
    const std::string second = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
    CHECK(
        data.json({"admin", "user", "link-wallet", "--email", "ann@example.com", "--address", second}).at("wallets") ==
        nlohmann::json::array({kWalletLower, second}));
    // The table shows them EIP-55 checksummed, as wallets and explorers do (issue 14); JSON keeps them as stored.
    CHECK(data.ok({"admin", "user", "list"}).find(std::string(kWallet) + ",0x70997970C51812dc3A010C7d01b50e0d17dc79C8") !=
          std::string::npos);

    // One wallet signs in one user.
    const auto taken = data.run({"admin", "user", "link-wallet", "--email", "bob@example.com", "--address", kWallet});
    CHECK(taken.exit_code == 1);
    CHECK(taken.err.find("ann@example.com") != std::string::npos);
    const auto store = data.open_store();
    CHECK(store->credentials().find_user_by_wallet(kWalletLower)->id == id);
    CHECK(store->credentials().wallets_of(other).empty());
}

TEST_CASE("admin user errors: a line on stderr naming the problem, and the documented exit code", "[cli][admin][user]") {
    const AdminDataDir data;
    const auto fails = [&](const std::vector<std::string>& args, int exit_code, const std::string& says,
                           std::string_view input = {}) {
        const auto r = data.run(args, input);
        INFO("stderr: " << r.err);
        CHECK(r.exit_code == exit_code);
        // The first line names the problem; a usage error adds a line pointing at --help.
        const auto lines = lines_of(r.err);
        REQUIRE_FALSE(lines.empty());
        CHECK(lines[0].find(says) != std::string::npos);
        CHECK(lines.size() <= 2);
        CHECK(r.out.empty());
    };

    // Before any `user add`, a data directory without a database is a mistake, and stays untouched.
    fails({"admin", "user", "list"}, 1, "--data-dir");
    CHECK_FALSE(std::filesystem::exists(data.path()));

    data.add_user("ann@example.com", "farmer");
    fails({"admin", "user", "add", "--email", "Ann@Example.com", "--role", "admin", "--no-password"}, 1,
          "ann@example.com");
    fails({"admin", "user", "add", "--email", "x@example.com", "--role", "root", "--no-password"}, 2,
          "farmer, verifier, admin or developer");
    fails({"admin", "user", "add", "--email", "not-an-address", "--role", "farmer", "--no-password"}, 2,
          "not an e-mail address");
    fails({"admin", "user", "add", "--email", "y@example.com", "--role", "farmer", "--password-stdin"}, 2, "too short",
          "short\n");
    fails({"--no-input", "admin", "user", "add", "--email", "y@example.com", "--role", "farmer"}, 2,
          "--password-stdin");
    fails({"admin", "user", "add", "--email", "y@example.com", "--role", "farmer", "--no-password", "--password-stdin"},
          2, "--no-password");
    fails({"admin", "user", "set-role", "--email", "nobody@example.com", "--role", "admin"}, 1,
          "no user with e-mail nobody@example.com");
    fails({"admin", "user", "set-role", "--email", "ann@example.com", "--role", "owner"}, 2,
          "farmer, verifier, admin or developer");
    fails({"admin", "user", "link-wallet", "--email", "ann@example.com", "--address", "0x1234"}, 2, "0x1234");
    CHECK(data.json({"admin", "user", "list"}).size() == 1);

    // The directory comes from --data-dir or ABCI_DATA_DIR, else serve's default (issue 14, item 12).
    CleanHome home;
    const auto default_dir = home / ".local/share/abcictl";
    const auto missing = run_abcictl({"admin", "user", "list"}, {}, home.env());
    CHECK(missing.exit_code == 1);
    CHECK(missing.err.find("no abcictl database in " + default_dir) != std::string::npos);
    CHECK(missing.err.find("reached with --config or --database-url") != std::string::npos);  // replicas keep none here
    // After `make run`, the devnet's is the one meant: said so.
    const auto devnet_dir = home / ".local/state/abcictl/devnet";
    REQUIRE(run_abcictl({"admin", "user", "add", "--email", "dev@example.com", "--role", "admin", "--no-password",
                         "--data-dir", devnet_dir}, {}, home.env()).exit_code == 0);
    const auto hinted = run_abcictl({"admin", "user", "list"}, {}, home.env());
    CHECK(hinted.exit_code == 1);
    CHECK(hinted.err.find("add --data-dir " + devnet_dir) != std::string::npos);
    REQUIRE(run_abcictl({"admin", "user", "add", "--email", "ops@example.com", "--role", "admin", "--no-password"}, {},
                        home.env()).exit_code == 0);
    const auto by_default = run_abcictl({"-q", "admin", "user", "list"}, {}, home.env());
    CHECK(by_default.exit_code == 0);
    CHECK(by_default.out.find("ops@example.com") == std::string::npos);  // -q: ids only
    CHECK(lines_of(by_default.out).size() == 1);
    CHECK(std::filesystem::exists(default_dir + "/abci.db"));
    const auto from_env = run_abcictl({"-q", "admin", "user", "list"}, {}, {{"ABCI_DATA_DIR", data.path()}});
    CHECK(from_env.exit_code == 0);
    CHECK(lines_of(from_env.out).size() == 1);
}

}  // namespace
}  // namespace abci::test
