#pragma once
// The command line's own state (DESIGN.md §5): $XDG_STATE_HOME/abcictl/state.db,
// SQLite, mode 0600 in a 0700 directory. One session per (profile, server),
// the server each profile last logged in to, and a cached chain list per server.
// Its schema is versioned (PRAGMA user_version) by numbered migrations, as the
// server's store is (core/store/sqlite/numbered_migrations.hpp).

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

namespace SQLite {
class Database;
}

namespace abci::cli {

using TimePoint = std::chrono::system_clock::time_point;

struct Session {
    std::string profile;
    std::string server;  // base URL, as ApiClient::base_url() normalises it
    std::string access_token;
    std::string refresh_token;
    std::string user;  // JSON of the user record (id, email, role, verified)
    TimePoint expires_at;
};

/// A server's chain list as last fetched.
struct CachedChains {
    std::string answer;  // the API's answer, JSON text
    TimePoint fetched_at;
    std::string instance;  // the server's X-Abci-Instance then ("" when it sent none)
};

class StateDb {
public:
    /// default_path() when that file exists, else nothing (for readers that must not create it).
    [[nodiscard]] static std::optional<std::filesystem::path> existing_path();
    /// $XDG_STATE_HOME/abcictl/state.db (or ~/.local/state/…). Error(invalid_input) when no home is known.
    [[nodiscard]] static std::filesystem::path default_path();

    /// Opens the database at `path`, creating it (0600; parent directories
    /// 0700) when missing, and brings its schema to this binary's version. A
    /// file readable by others is made 0600. Error(unavailable) when it cannot
    /// be opened; Error(conflict) naming both versions when a newer abcictl
    /// wrote it.
    explicit StateDb(const std::filesystem::path& path);
    ~StateDb();
    StateDb(const StateDb&) = delete;
    StateDb& operator=(const StateDb&) = delete;

    [[nodiscard]] std::optional<Session> session(const std::string& profile, const std::string& server);
    /// Inserts or replaces the session of (profile, server).
    void save_session(const Session& session);
    /// False when there was none.
    bool remove_session(const std::string& profile, const std::string& server);

    /// The chain list cached for `server`.
    [[nodiscard]] std::optional<CachedChains> cached_chains(const std::string& server);
    void cache_chains(const std::string& server, const CachedChains& chains);

    /// The server `profile` last logged in to.
    [[nodiscard]] std::optional<std::string> login_server(const std::string& profile);
    void remember_login_server(const std::string& profile, const std::string& server);
    /// Forgets that `profile` logged in to `server` last, if it did.
    void forget_login_server(const std::string& profile, const std::string& server);

private:
    std::unique_ptr<SQLite::Database> db_;
};

}  // namespace abci::cli
