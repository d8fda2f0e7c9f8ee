#pragma once
// The layout of a server's data directory, shared by `serve` and the `admin`
// commands that work on it directly.

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "core/os/fd.hpp"
#include "core/store/store.hpp"

namespace abci::store {

/// One server's hold on a data directory: an flock on <dir>/serve.lock,
/// which also names the holder (pid, listen address) for whoever is refused.
/// The kernel releases it when the holder ends, however it ends (kill -9
/// too), and children never inherit it (close-on-exec).
class DataDirLock {
public:
    explicit DataDirLock(os::UniqueFd fd) : fd_(std::move(fd)) {}

    /// Names this process and the address it listens on as the holder: again
    /// once bound, since a configured port 0 becomes a real one only then.
    void record_holder(const std::string& listen) const;

private:
    os::UniqueFd fd_;
};

/// The data directory `abcictl serve` uses when none is given:
/// $XDG_DATA_HOME/abcictl, else ~/.local/share/abcictl.
[[nodiscard]] std::filesystem::path default_data_dir();
/// The one of `abcictl serve --devnet`: $XDG_STATE_HOME/abcictl/devnet, else
/// ~/.local/state/abcictl/devnet (the devnet's chain state is state, not data
/// the operator curates).
[[nodiscard]] std::filesystem::path devnet_data_dir();

/// Where `abcictl admin store copy` moved a data directory's store: the
/// SQLite database left behind is stale from then on.
struct StoreMove {
    std::string url;            // the PostgreSQL database's, never with a password
    std::string password_file;  // as given to the copy; empty: libpq's own
    std::string at;             // when, ISO 8601 UTC
};

class DataDir {
public:
    explicit DataDir(std::filesystem::path root) : root_(std::move(root)) {}

    [[nodiscard]] const std::filesystem::path& root() const noexcept { return root_; }
    [[nodiscard]] std::filesystem::path database() const { return root_ / "abci.db"; }
    [[nodiscard]] std::filesystem::path jwt_secret() const { return root_ / "jwt.secret"; }

    /// Creates the directory (mode 0700) when missing. Error(unavailable) when
    /// it cannot be created or is not a directory.
    void create() const;

    /// Takes the directory for the one server that may run on it (creating
    /// the directory when missing), recording this process and `listen`.
    /// Error(invalid_input) naming the holder's pid and listen address when
    /// another server holds it; nothing in the directory is changed then.
    /// The `admin` commands take no lock: they work beside a running server;
    /// except `admin store copy`, which holds it while it copies.
    [[nodiscard]] DataDirLock lock_for_server(const std::string& listen) const;
    [[nodiscard]] std::filesystem::path lock_file() const { return root_ / "serve.lock"; }

    /// Records that the store was copied to `move.url`, so that nothing opens
    /// the stale SQLite database again (open_store()). Error(unavailable) when
    /// the record cannot be written.
    void mark_moved(const StoreMove& move) const;
    /// The move mark_moved() recorded, if any.
    [[nodiscard]] std::optional<StoreMove> moved() const;
    [[nodiscard]] std::filesystem::path moved_file() const { return root_ / "moved"; }

    /// Opens the store; when `create_missing` is false a data directory
    /// without a database is Error(not_found) (a mistyped --data-dir should not
    /// silently start an empty one). A moved store is Error(invalid_input)
    /// naming where it went: writes to it would be lost, reads stale.
    [[nodiscard]] std::unique_ptr<Store> open_store(bool create_missing) const;

private:
    std::filesystem::path root_;
};

}  // namespace abci::store
