#include "cli/data_dir_option.hpp"

#include <CLI/CLI.hpp>

#include <fstream>
#include <iterator>
#include <vector>

#include "cli/advice.hpp"
#include "cli/validators.hpp"
#include "core/error.hpp"
#include "core/store/data_dir.hpp"
#ifdef ABCI_WITH_SERVE
#include "serve/settings.hpp"
#endif

namespace abci::cli {
namespace {

// This process's command line as typed. Read from the kernel rather than
// handed down: the store commands are built without the Context that holds it.
std::vector<std::string> typed_command_line() {
    std::ifstream in("/proc/self/cmdline", std::ios::binary);
    std::vector<std::string> words;
    for (std::string word; std::getline(in, word, '\0');) words.push_back(word);
    return words;
}

// The command line typed, reaching `move`'s database instead of the data directory.
std::string command_line_reaching(const store::StoreMove& move) {
    const auto typed = typed_command_line();
    std::vector<std::string> words;
    for (std::size_t i = 0; i < typed.size(); ++i) {
        if (typed[i] == "--data-dir") {
            ++i;
            continue;
        }
        if (typed[i].rfind("--data-dir=", 0) != 0) words.push_back(typed[i]);
    }
    words.insert(words.end(), {"--database-url", move.url});
    if (!move.password_file.empty()) words.insert(words.end(), {"--database-password-file", move.password_file});
    return shell_command(words);
}

}  // namespace

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
    command
        .add_option("--config", config_file,
                    "The server's config file (TOML): its database, else its data directory, is the store used")
        ->envname("ABCI_CONFIG")
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

DataDirOption DataDirOption::resolved() const {
    if (config_file.empty() || !database.url.empty()) return *this;
#ifdef ABCI_WITH_SERVE
    // As `serve --config` reads it, environment included.
    const auto settings = serve::load_settings({.config_file = config_file, .data_dir = dir}, serve::abci_environment());
    DataDirOption where = *this;
    where.database = settings.database;
    where.dir = settings.data_dir;
    return where;
#else
    throw Error(ErrorKind::unavailable,
                "this abcictl was built without the server and cannot read its config: give --database-url or --data-dir");
#endif
}

std::unique_ptr<store::Store> DataDirOption::open(bool create_missing) const {
    const auto where = resolved();
    if (!where.database.url.empty()) return store::open_postgresql_store(where.database);
    if (!where.database.password_file.empty())
        throw Error(ErrorKind::invalid_input, "--database-password-file needs --database-url");
    const auto directory = where.directory(create_missing);
    if (const auto move = directory.moved())
        throw Error(ErrorKind::invalid_input, "the store in " + directory.root().string() + " was moved to " + move->url +
                                                  " at " + move->at + " (abcictl admin store copy); its SQLite "
                                                  "database is stale. Run: " + command_line_reaching(*move));
    return directory.open_store(create_missing);
}

store::DataDir DataDirOption::directory(bool create_missing) const {
    if (!config_file.empty() && database.url.empty() && dir.empty()) return resolved().directory(create_missing);
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
    command->callback([data_dir, action = std::move(action)] {
        const auto where = data_dir->resolved();
        action(*where.open(false), where);
    });
    return command;
}

}  // namespace abci::cli
