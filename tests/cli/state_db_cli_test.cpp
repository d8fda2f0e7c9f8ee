// The command line's state.db is versioned (PRAGMA user_version, numbered
// migrations, src/cli/state_db.cpp): a file the release before wrote
// (tests/fixtures/cli_state/state_v0.db, made by make-fixture.sh there) opens
// and keeps its sessions, login servers and chain lists; a file a newer
// abcictl wrote is refused in one line naming both versions.

#include <SQLiteCpp/SQLiteCpp.h>

#include <filesystem>
#include <tuple>

#include "cli/client_test.hpp"
#include "support/tools.hpp"

namespace abci::test::state_db_tests {
namespace {

namespace fs = std::filesystem;

// Where abcictl keeps its state under `home` (no XDG_STATE_HOME is set).
fs::path state_db_in(const CleanHome& home) { return home.path() / ".local/state/abcictl/state.db"; }

void place_state(const CleanHome& home, const fs::path& from) {
    const auto path = state_db_in(home);
    fs::create_directories(path.parent_path());
    fs::permissions(path.parent_path(), fs::perms::owner_all);
    fs::copy_file(from, path);
    fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write);
}

// Every row of the state's three tables, as text.
using Rows = std::vector<std::vector<std::string>>;
std::tuple<Rows, Rows, Rows> contents(const fs::path& path) {
    SQLite::Database db(path.string(), SQLite::OPEN_READONLY);
    const auto rows = [&](const char* sql) {
        Rows out;
        SQLite::Statement q(db, sql);
        while (q.executeStep()) {
            out.emplace_back();
            for (int i = 0; i < q.getColumnCount(); ++i) out.back().push_back(q.getColumn(i).getString());
        }
        return out;
    };
    return {rows("SELECT profile, server, access_token, refresh_token, user, expires_at FROM sessions"),
            rows("SELECT profile, server FROM login_servers"),
            rows("SELECT server, answer, fetched_at, instance FROM chain_lists")};
}

std::int64_t user_version(const fs::path& path) {
    SQLite::Database db(path.string(), SQLite::OPEN_READONLY);
    return db.execAndGet("PRAGMA user_version").getInt64();
}

}  // namespace

TEST_CASE("state.db: a file the release before wrote opens at version 1 and keeps every session, login server and "
          "chain list",
          "[cli][state]") {
    const CleanHome home;
    const fs::path fixture = source_path("tests/fixtures/cli_state/state_v0.db");
    REQUIRE(user_version(fixture) == 0);
    const auto before = contents(fixture);
    REQUIRE(std::get<0>(before).size() == 1);
    REQUIRE(std::get<1>(before).size() == 1);
    REQUIRE(std::get<2>(before).size() == 1);
    place_state(home, fixture);

    // Completion reads the cached chain list without asking the server (gone since).
    const auto server = std::get<2>(before)[0][0];
    const auto completed = run_abcictl({"--server", server, "__complete-chains"}, {}, home.env());
    INFO(completed.err);
    CHECK(completed.exit_code == 0);
    CHECK(completed.out == "devnet\n");

    CHECK(user_version(state_db_in(home)) == 1);
    CHECK(contents(state_db_in(home)) == before);
}

TEST_CASE("state.db: a file a newer abcictl wrote is refused in one line naming both versions, and left as it was",
          "[cli][state]") {
    const CleanHome home;
    place_state(home, source_path("tests/fixtures/cli_state/state_v0.db"));
    {
        SQLite::Database db(state_db_in(home).string(), SQLite::OPEN_READWRITE);
        db.exec("PRAGMA user_version = 7");
    }
    const auto before = contents(state_db_in(home));

    const auto line = client::one_line_failure(run_abcictl({"whoami"}, {}, home.env()), 1);
    CHECK(line == "abcictl: the CLI state " + state_db_in(home).string() +
                      " is version 7, newer than this abcictl knows (1): a newer abcictl wrote it; run that one, or "
                      "move the file away to start without sessions");
    CHECK(user_version(state_db_in(home)) == 7);
    CHECK(contents(state_db_in(home)) == before);
}

}  // namespace abci::test::state_db_tests
