#include "cli/data_dir_option.hpp"

#include <CLI/CLI.hpp>

#include "cli/validators.hpp"
#include "core/error.hpp"
#include "core/store/data_dir.hpp"

namespace abci::cli {

void DataDirOption::add_to(CLI::App& command) {
    add_dir_to(command);
    postgresql_url(command
                       .add_option("--database-url", database.url,
                                   "The server's PostgreSQL database, as serve's database.url (postgresql://USER@HOST/DB, "
                                   "no password in it); instead of --data-dir")
                       ->envname("ABCI_DATABASE_URL"),
                   "--database-password-file");
    command
        .add_option("--database-password-file", database.password_file,
                    "A file whose first line is the database's password (default: libpq's PGPASSFILE, else ~/.pgpass)")
        ->envname("ABCI_DATABASE_PASSWORD_FILE")
        ->type_name("FILE");
}

void DataDirOption::add_dir_to(CLI::App& command) {
    command
        .add_option("--data-dir", dir,
                    "The server's data directory, as given to `abcictl serve` (default: $XDG_DATA_HOME/abcictl, "
                    "as serve's)")
        ->envname("ABCI_DATA_DIR")
        ->type_name("DIR");
}

std::unique_ptr<store::Store> DataDirOption::open(bool create_missing) const {
    if (!database.url.empty()) return store::open_postgresql_store(database);
    if (!database.password_file.empty())
        throw Error(ErrorKind::invalid_input, "--database-password-file needs --database-url");
    return directory(create_missing).open_store(create_missing);
}

store::DataDir DataDirOption::directory(bool create_missing) const {
    if (!dir.empty()) return store::DataDir(dir);
    const store::DataDir fallback(store::default_data_dir());
    const store::DataDir devnet(store::devnet_data_dir());
    // After `make run`, the database a newcomer means is the devnet's.
    if (!create_missing && !std::filesystem::exists(fallback.database()) && std::filesystem::exists(devnet.database()))
        throw Error(ErrorKind::not_found, "no abcictl database in the default data directory " +
                                              fallback.root().string() + "; the devnet's (`abcictl serve --devnet`) is "
                                              "in " + devnet.root().string() + ": add --data-dir " +
                                              devnet.root().string());
    return fallback;
}

CLI::App* add_store_command(CLI::App& parent, const std::string& name, const std::string& description,
                            std::function<void(store::Store&)> action) {
    return add_store_command(parent, name, description,
                             [action = std::move(action)](store::Store& store, const DataDirOption&) { action(store); });
}

CLI::App* add_store_command(CLI::App& parent, const std::string& name, const std::string& description,
                            std::function<void(store::Store&, const DataDirOption&)> action) {
    auto data_dir = std::make_shared<DataDirOption>();
    auto* command = parent.add_subcommand(name, description);
    data_dir->add_to(*command);
    command->callback([data_dir, action = std::move(action)] { action(*data_dir->open(false), *data_dir); });
    return command;
}

}  // namespace abci::cli
