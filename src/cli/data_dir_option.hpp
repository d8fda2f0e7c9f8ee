#pragma once
// The --data-dir option of the commands that work on a server's data
// directory directly (the `admin user|apikey|audit` commands, like `gitea
// admin`), never over HTTP: they need the same directory `serve` uses.

#include <functional>
#include <memory>
#include <string>

namespace CLI {
class App;
}

namespace abci::store {
class Store;
}

namespace abci::cli {

/// Where a command finds the server's data directory.
struct DataDirOption {
    std::string dir;

    /// Adds "--data-dir DIR" (also $ABCI_DATA_DIR; default: serve's,
    /// store::default_data_dir()) to `command`, bound to this object, which
    /// must outlive the parsing.
    void add_to(CLI::App& command);

    /// Opens the directory's store. With `create_missing` (only for the first
    /// setup, before the first `serve`) the directory and database are created
    /// when absent; without it a directory holding no database is
    /// Error(not_found) naming it, so a mistyped --data-dir is reported instead
    /// of silently starting an empty server. Throws what store::DataDir throws.
    [[nodiscard]] std::unique_ptr<store::Store> open(bool create_missing) const;
};

/// Adds the subcommand `name` to `parent`, with a --data-dir option; after
/// parsing, `action` runs on the directory's existing store (opened without
/// `create_missing`). Returns the subcommand, for its own options.
CLI::App* add_store_command(CLI::App& parent, const std::string& name, const std::string& description,
                            std::function<void(store::Store&)> action);

}  // namespace abci::cli
