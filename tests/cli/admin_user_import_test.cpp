// `abcictl admin user import` through the real binary on a real data
// directory: JSON Lines in, users without passwords and their wallets out, all
// or nothing, every problem named by its line.

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "admin_data_dir.hpp"

namespace abci::test {
namespace {

// anvil's first two dev accounts: the first EIP-55 checksummed, both also lower-case.
constexpr const char* kImportWallet = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";
constexpr const char* kImportWalletLower = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
constexpr const char* kImportSecondWallet = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";

/// A data directory holding one admin (import needs an existing database, as every command but `user add` does).
struct ImportTarget {
    AdminDataDir data;
    nlohmann::json admin = data.add_user("root@example.com", "admin");
    TempDir files;

    /// The users `admin user list --json` shows.
    [[nodiscard]] nlohmann::json users() const { return data.json({"admin", "user", "list"}); }
};

/// `count` import lines "user<i>@example.com", farmers, each with its own made-up wallet.
std::string cohort(std::size_t count) {
    std::string lines;
    for (std::size_t i = 1; i <= count; ++i)
        lines += fmt::format(R"({{"email": "user{}@example.com", "role": "farmer", "wallet": "0x{:040x}"}})", i, i) +
                 "\n";
    return lines;
}

TEST_CASE("admin user import creates users without passwords, with their wallets", "[cli][admin][user][import]") {
    ImportTarget target;
    // Blank lines and CRLF endings are fine; e-mails are normalised and addresses stored lower-case, as add and
    // link-wallet do.
    const std::string file = target.files.write(
        "cohort.jsonl",
        fmt::format("{{\"email\": \"Ann@Example.com\", \"role\": \"farmer\", \"wallet\": \"{}\"}}\r\n"
                    "\n"
                    "   \n"
                    "{{\"role\": \"verifier\", \"email\": \"bob@example.com\", \"wallet\": \"{}\"}}\n"
                    "{{\"email\": \"carol@example.com\", \"role\": \"developer\"}}",
                    kImportWallet, kImportSecondWallet));
    CHECK(target.data.ok({"admin", "user", "import", file}) == "imported 3 users\n");

    const nlohmann::json users = target.users();
    REQUIRE(users.size() == 4);
    CHECK(users[0] == target.admin);
    CHECK(users[1].at("email") == "ann@example.com");
    CHECK(users[1].at("role") == "farmer");
    CHECK(users[1].at("verified") == true);
    CHECK(users[1].at("wallets") == nlohmann::json::array({kImportWalletLower}));
    CHECK(users[2].at("email") == "bob@example.com");
    CHECK(users[2].at("role") == "verifier");
    CHECK(users[2].at("wallets") == nlohmann::json::array({kImportSecondWallet}));
    CHECK(users[3].at("email") == "carol@example.com");
    CHECK(users[3].at("role") == "developer");
    CHECK(users[3].at("wallets") == nlohmann::json::array());

    const auto store = target.data.open_store();
    CHECK(store->credentials().find_user_by_wallet(kImportWalletLower)->email == "ann@example.com");
    for (std::size_t i = 1; i < users.size(); ++i) CHECK_FALSE(store->credentials().password_hash(users[i].at("id")));

    // --json prints the new users as `list --json` shows them; -q their ids, one a line.
    const std::string more = target.files.write(
        "more.jsonl", "{\"email\": \"dan@example.com\", \"role\": \"farmer\"}\n"
                      "{\"email\": \"eve@example.com\", \"role\": \"admin\", \"wallet\": \"0x" +
                          std::string(40, 'a') + "\"}\n");
    const nlohmann::json printed = target.data.json({"admin", "user", "import", more});
    REQUIRE(printed.size() == 2);
    const nlohmann::json listed = target.users();
    CHECK(printed[0] == listed[4]);
    CHECK(printed[1] == listed[5]);
    const auto ids = lines_of(target.data.ok(
        {"-q", "admin", "user", "import", "-"}, "{\"email\": \"fay@example.com\", \"role\": \"farmer\"}\n"));
    REQUIRE(ids.size() == 1);
    CHECK(target.users()[6].at("id") == ids[0]);
    CHECK(target.data.ok({"admin", "user", "import", "-"}, "{\"email\": \"gil@example.com\", \"role\": \"farmer\"}") ==
          "imported 1 user\n");
}

TEST_CASE("admin user import refuses a file with a bad line, naming the line, and writes nothing",
          "[cli][admin][user][import]") {
    ImportTarget target;
    target.data.ok({"admin", "user", "link-wallet", "--email", "root@example.com", "--address", kImportSecondWallet});
    const std::string good = fmt::format(R"({{"email": "ann@example.com", "role": "farmer", "wallet": "{}"}})",
                                         kImportWallet) + "\n\n";

    struct Case {
        std::string line3;  // after a good line and a blank one
        int exit_code;
        std::string says;
    };
    const std::vector<Case> cases{
        {R"({"email": "bob@example.com", "role": "farmer", "wallet": "0x1234"})", 2, "0x1234"},
        {R"({"email": "bob@example.com", "role": "farmer", "wallet": "0xF39fd6e51aad88F6F4ce6aB8827279cffFb92266"})",
         2, "checksum"},
        {R"({"email": "bob@example.com", "role": "root"})", 2, "unknown role 'root'"},
        {R"({"email": "bob", "role": "farmer"})", 2, "not an e-mail address"},
        {R"({"email": "bob@example.com", "role": "farmer")", 2, "malformed JSON"},
        {R"(["bob@example.com", "farmer"])", 2, "not a JSON object"},
        {R"({"email": "bob@example.com", "role": "farmer", "address": "0x00"})", 2, "unknown field \"address\""},
        {R"({"role": "farmer"})", 2, "\"email\" is missing"},
        {R"({"email": "bob@example.com", "role": 1})", 2, "\"role\" must be a string"},
        {R"({"email": "ANN@example.com", "role": "verifier"})", 1, "e-mail ann@example.com is on line 1 already"},
        {fmt::format(R"({{"email": "bob@example.com", "role": "farmer", "wallet": "{}"}})", kImportWalletLower), 1,
         fmt::format("wallet {} is on line 1 already", kImportWalletLower)},
        {R"({"email": "Root@example.com", "role": "farmer"})", 1, "a user with e-mail root@example.com exists already"},
        {fmt::format(R"({{"email": "bob@example.com", "role": "farmer", "wallet": "{}"}})", kImportSecondWallet), 1,
         fmt::format("wallet {} is already linked to root@example.com", kImportSecondWallet)},
    };
    for (const auto& c : cases) {
        const auto r = target.data.run({"admin", "user", "import", "-"}, good + c.line3 + "\n");
        INFO("line 3: " << c.line3 << "\nstderr: " << r.err);
        CHECK(r.exit_code == c.exit_code);
        CHECK(r.err.rfind("abcictl: line 3: ", 0) == 0);
        CHECK(r.err.find(c.says) != std::string::npos);
        CHECK(r.out.empty());
    }
    CHECK(target.users().size() == 1);

    // Every problem is named at once, so a file is fixed in one pass; a malformed line makes it a usage error.
    const auto several =
        target.data.run({"admin", "user", "import", "-"}, good + R"({"email": "ann@example.com", "role": "farmer"})" +
                                                               "\n" + R"({"email": "x@example.com", "role": "boss"})");
    CHECK(several.exit_code == 2);
    const auto lines = lines_of(several.err);
    REQUIRE(lines.size() == 2);
    CHECK(lines[0] == "abcictl: line 3: e-mail ann@example.com is on line 1 already");
    CHECK(lines[1].rfind("  - line 4: unknown role 'boss'", 0) == 0);

    // An unreadable file, or a data directory without a database, is an error before anything else.
    const auto missing = target.data.run({"admin", "user", "import", target.files / "nothing.jsonl"});
    CHECK(missing.exit_code == 1);
    CHECK(missing.err.find("nothing.jsonl") != std::string::npos);
    const AdminDataDir empty;
    const auto no_database = empty.run({"admin", "user", "import", "-"}, good);
    CHECK(no_database.exit_code == 1);
    CHECK(no_database.err.find("--data-dir") != std::string::npos);
    CHECK(target.users().size() == 1);
}

TEST_CASE("admin user import onboards 1000 users with wallets in one run from standard input",
          "[cli][admin][user][import]") {
    ImportTarget target;
    // Standard input is the default source, as `-` names it.
    const auto ids = lines_of(target.data.ok({"-q", "admin", "user", "import"}, cohort(1000)));
    REQUIRE(ids.size() == 1000);

    const nlohmann::json users = target.users();
    REQUIRE(users.size() == 1001);
    CHECK(users[1].at("id") == ids.front());
    CHECK(users[1000].at("id") == ids.back());
    CHECK(users[1000].at("email") == "user1000@example.com");
    CHECK(users[1000].at("wallets") == nlohmann::json::array({fmt::format("0x{:040x}", 1000)}));
    const auto store = target.data.open_store();
    CHECK(store->credentials().find_user_by_wallet(fmt::format("0x{:040x}", 500))->email == "user500@example.com");

    // The same cohort again: every line is a duplicate of a stored user, and nothing changes.
    const auto again = target.data.run({"admin", "user", "import", "-"}, cohort(1000));
    CHECK(again.exit_code == 1);
    CHECK(again.err.rfind("abcictl: line 1: a user with e-mail user1@example.com exists already", 0) == 0);
    CHECK(store->users().count() == 1001);
}

}  // namespace
}  // namespace abci::test
