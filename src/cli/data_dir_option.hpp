#pragma once
// The --data-dir and --database-url options of the commands that work on a
// server's store directly (the `admin user|apikey|audit|journal` commands,
// like `gitea admin`), never over HTTP: they need the same store `serve` uses.

#include <functional>
#include <memory>
#include <string>

#include "core/store/data_dir.hpp"
#include "core/store/store.hpp"

namespace CLI {
class App;
}

namespace abci::cli {

/// Where a command finds the server's store, as the server does: its
/// PostgreSQL database when a URL is given (as serve's database.url, or in
/// the server's config file), else its data directory's SQLite.
struct DataDirOption {
    std::string dir;
    store::PostgresqlSettings database;
    std::string config_file;

    /// Adds "--data-dir DIR" (also $ABCI_DATA_DIR; default: serve's,
    /// store::default_data_dir()), "--database-url URL" (also
    /// $ABCI_DATABASE_URL), "--database-password-file FILE" (also
    /// $ABCI_DATABASE_PASSWORD_FILE) and "--config FILE" (also $ABCI_CONFIG:
    /// the server's, whose database or data directory is used) to `command`,
    /// bound to this object, which must outlive the parsing. A URL carrying a
    /// password is refused there.
    void add_to(CLI::App& command);
    /// Adds "--data-dir DIR" alone, as add_to() does: for a command that works
    /// on the directory's own SQLite database (`admin store copy`).
    void add_dir_to(CLI::App& command);

    /// This object with what the server's config file says filled in: its
    /// database (unless one is given here) and its data directory (unless
    /// --data-dir is given). This object itself when no config is given.
    /// Throws what serve::load_settings throws.
    [[nodiscard]] DataDirOption resolved() const;

    /// Opens the store: the database's when a URL is given (the data directory
    /// is not read then), else the directory's; a directory whose store was
    /// moved (`admin store copy`) is Error(invalid_input) naming the command
    /// line that reaches the new one. With `create_missing` (only
    /// for the first setup, before the first `serve`) the directory and
    /// database are created when absent; without it a directory holding no
    /// database is Error(not_found) naming it, so a mistyped --data-dir is
    /// reported instead of silently starting an empty server. A password file
    /// without a URL is Error(invalid_input). Throws what store::DataDir and
    /// store::open_postgresql_store throw.
    [[nodiscard]] std::unique_ptr<store::Store> open(bool create_missing) const;
    /// The data directory open() opens when no URL is given: --data-dir's,
    /// else serve's default; without `create_missing`, Error(not_found)
    /// naming the devnet's when only that one holds a database.
    [[nodiscard]] store::DataDir directory(bool create_missing) const;
};

/// Adds the subcommand `name` to `parent`, with the options of DataDirOption;
/// after parsing, `action` runs on the server's existing store (opened
/// without `create_missing`). Returns the subcommand, for its own options.
CLI::App* add_store_command(CLI::App& parent, const std::string& name, const std::string& description,
                            std::function<void(store::Store&)> action);
/// The same for an action that also needs to know where the store is (the
/// data directory's lock, `admin journal abandon`).
CLI::App* add_store_command(CLI::App& parent, const std::string& name, const std::string& description,
                            std::function<void(store::Store&, const DataDirOption&)> action);

}  // namespace abci::cli
