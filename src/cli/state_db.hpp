#pragma once
// The command line's own state (DESIGN.md §5): $XDG_STATE_HOME/abcictl/state.db,
// SQLite, mode 0600 in a 0700 directory. One session per (profile, server)
// and a cached chain list per server.

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

class StateDb {
public:
    /// $XDG_STATE_HOME/abcictl/state.db (or ~/.local/state/…). Error(invalid_input) when no home is known.
    [[nodiscard]] static std::filesystem::path default_path();

    /// Opens the database at `path`, creating it (0600; parent directories
    /// 0700) when missing, and its tables. A file readable by others is made
    /// 0600. Error(unavailable) when it cannot be opened.
    explicit StateDb(const std::filesystem::path& path);
    ~StateDb();
    StateDb(const StateDb&) = delete;
    StateDb& operator=(const StateDb&) = delete;

    [[nodiscard]] std::optional<Session> session(const std::string& profile, const std::string& server);
    /// Inserts or replaces the session of (profile, server).
    void save_session(const Session& session);
    /// False when there was none.
    bool remove_session(const std::string& profile, const std::string& server);

    /// The chain list (the API's answer, JSON text) cached for `server`, with when it was fetched.
    [[nodiscard]] std::optional<std::pair<std::string, TimePoint>> cached_chains(const std::string& server);
    void cache_chains(const std::string& server, const std::string& answer, TimePoint fetched_at);

private:
    std::unique_ptr<SQLite::Database> db_;
};

}  // namespace abci::cli
