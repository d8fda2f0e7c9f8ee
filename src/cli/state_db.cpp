#include "cli/state_db.hpp"

#include <SQLiteCpp/SQLiteCpp.h>

#include <array>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/os/private_file.hpp"
#include "core/os/xdg.hpp"
#include "core/store/sqlite/numbered_migrations.hpp"

namespace abci::cli {

namespace {

std::int64_t to_millis(TimePoint t) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

TimePoint from_millis(std::int64_t ms) { return TimePoint(std::chrono::milliseconds(ms)); }

// The state's schema, version by version (numbered_migrations.hpp): a
// released script is never edited, a change is a script appended.

// Version 1: the tables releases before numbered migrations created on every
// open, at user_version 0. Their files already hold them, so every statement
// is conditional: such a file becomes version 1 with its data as it was.
// chain_cache (the chain list without the server's instance) was a cache:
// dropped rather than migrated.
constexpr const char* kInitialSchema = R"sql(
CREATE TABLE IF NOT EXISTS sessions (profile TEXT NOT NULL, server TEXT NOT NULL, access_token TEXT NOT NULL,
    refresh_token TEXT NOT NULL, user TEXT NOT NULL, expires_at INTEGER NOT NULL, PRIMARY KEY (profile, server));
DROP TABLE IF EXISTS chain_cache;
CREATE TABLE IF NOT EXISTS chain_lists (server TEXT PRIMARY KEY, answer TEXT NOT NULL, fetched_at INTEGER NOT NULL,
    instance TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS login_servers (profile TEXT PRIMARY KEY, server TEXT NOT NULL);
)sql";

constexpr std::array<const char*, 1> kMigrations{kInitialSchema};

}  // namespace

std::optional<std::filesystem::path> StateDb::existing_path() {
    auto path = os::xdg_path(os::XdgBase::state, "abcictl/state.db");
    if (std::error_code ec; !path || !std::filesystem::exists(*path, ec)) return std::nullopt;
    return path;
}

std::filesystem::path StateDb::default_path() {
    if (auto path = os::xdg_path(os::XdgBase::state, "abcictl/state.db")) return *path;
    throw Error(ErrorKind::invalid_input, "no place for the CLI state: set HOME or XDG_STATE_HOME");
}

StateDb::StateDb(const std::filesystem::path& path) {
    try {
        // Created by us with 0600 before SQLite opens it, so the file is never readable by others.
        os::create_private_directory(path.parent_path());
        os::create_private_file(path);
        db_ = std::make_unique<SQLite::Database>(path.string(), SQLite::OPEN_READWRITE);
        db_->setBusyTimeout(5000);
        store::sqlite::apply_migrations(*db_, kMigrations, [&path](std::int64_t found, std::int64_t known) {
            return Error(ErrorKind::conflict,
                         fmt::format("the CLI state {} is version {}, newer than this abcictl knows ({}): a newer "
                                     "abcictl wrote it; run that one, or move the file away to start without "
                                     "sessions",
                                     path.string(), found, known));
        });
    } catch (const SQLite::Exception& e) {
        throw Error(ErrorKind::unavailable, "cannot open the CLI state " + path.string() + ": " + e.what());
    }
}

StateDb::~StateDb() = default;

std::optional<Session> StateDb::session(const std::string& profile, const std::string& server) {
    SQLite::Statement q(*db_,
                        "SELECT access_token, refresh_token, user, expires_at FROM sessions WHERE profile = ? AND server = ?");
    q.bind(1, profile);
    q.bind(2, server);
    if (!q.executeStep()) return std::nullopt;
    return Session{profile, server, q.getColumn(0).getString(), q.getColumn(1).getString(), q.getColumn(2).getString(),
                   from_millis(q.getColumn(3).getInt64())};
}

void StateDb::save_session(const Session& s) {
    SQLite::Statement q(*db_,
                        "INSERT OR REPLACE INTO sessions (profile, server, access_token, refresh_token, user, expires_at) "
                        "VALUES (?, ?, ?, ?, ?, ?)");
    q.bind(1, s.profile);
    q.bind(2, s.server);
    q.bind(3, s.access_token);
    q.bind(4, s.refresh_token);
    q.bind(5, s.user);
    q.bind(6, to_millis(s.expires_at));
    q.exec();
}

bool StateDb::remove_session(const std::string& profile, const std::string& server) {
    SQLite::Statement q(*db_, "DELETE FROM sessions WHERE profile = ? AND server = ?");
    q.bind(1, profile);
    q.bind(2, server);
    return q.exec() > 0;
}

std::optional<CachedChains> StateDb::cached_chains(const std::string& server) {
    SQLite::Statement q(*db_, "SELECT answer, fetched_at, instance FROM chain_lists WHERE server = ?");
    q.bind(1, server);
    if (!q.executeStep()) return std::nullopt;
    return CachedChains{q.getColumn(0).getString(), from_millis(q.getColumn(1).getInt64()), q.getColumn(2).getString()};
}

void StateDb::cache_chains(const std::string& server, const CachedChains& chains) {
    SQLite::Statement q(*db_, "INSERT OR REPLACE INTO chain_lists (server, answer, fetched_at, instance) VALUES (?, ?, ?, ?)");
    q.bind(1, server);
    q.bind(2, chains.answer);
    q.bind(3, to_millis(chains.fetched_at));
    q.bind(4, chains.instance);
    q.exec();
}

std::optional<std::string> StateDb::login_server(const std::string& profile) {
    SQLite::Statement q(*db_, "SELECT server FROM login_servers WHERE profile = ?");
    q.bind(1, profile);
    if (!q.executeStep()) return std::nullopt;
    return q.getColumn(0).getString();
}

void StateDb::remember_login_server(const std::string& profile, const std::string& server) {
    SQLite::Statement q(*db_, "INSERT OR REPLACE INTO login_servers (profile, server) VALUES (?, ?)");
    q.bind(1, profile);
    q.bind(2, server);
    q.exec();
}

void StateDb::forget_login_server(const std::string& profile, const std::string& server) {
    SQLite::Statement q(*db_, "DELETE FROM login_servers WHERE profile = ? AND server = ?");
    q.bind(1, profile);
    q.bind(2, server);
    q.exec();
}

}  // namespace abci::cli
