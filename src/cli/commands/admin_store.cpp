// `abcictl admin store copy`: a server's SQLite store copied into an empty
// PostgreSQL database, the move from one server to replicas (DESIGN.md §9).
// The copy is core's (core/store/copy.hpp); this file holds the data
// directory against a server for the copy's duration, and prints.

#include <CLI/CLI.hpp>

#include <chrono>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands/commands.hpp"
#include "cli/context.hpp"
#include "cli/data_dir_option.hpp"
#include "cli/validators.hpp"
#include "core/auth/jwt.hpp"
#include "core/error.hpp"
#include "core/eth/bytes.hpp"
#include "core/store/copy.hpp"
#include "core/store/data_dir.hpp"
#include "core/util/time.hpp"

namespace abci::cli {
namespace {

struct StoreCopySettings {
    DataDirOption data_dir;
    store::PostgresqlSettings target;
};

void copy_store(const Context& ctx, const StoreCopySettings& s) {
    const auto dir = s.data_dir.directory(false);
    // Before the lock, which would create a mistyped directory.
    if (!std::filesystem::exists(dir.database()))
        throw Error(ErrorKind::not_found, "no abcictl database in " + dir.root().string() +
                                              " (check --data-dir or ABCI_DATA_DIR): nothing to copy");
    // What a server wrote during the copy would be missing from it: the
    // directory is held as a server holds it, and a running one refuses it.
    const auto lock = dir.lock_for_server("none (abcictl admin store copy)");
    ctx.note("Holding " + dir.lock_file().string() +
             ": no abcictl serve starts on this data directory until the copy ends.");
    // The server on the database must verify the tokens this one signed, or
    // everyone is logged out by the move.
    std::vector<std::pair<std::string, std::string>> secrets;
    if (auto jwt = auth::shared_form_of_secret_file(dir.jwt_secret().string()))
        secrets.emplace_back(std::move(jwt->name), std::move(jwt->value));
    const auto report = store::copy_to_postgresql(dir.database(), s.target, secrets);
    for (auto& [name, value] : secrets) eth::secure_wipe(value.data(), value.size());
    dir.mark_moved({.url = s.target.url, .password_file = s.target.password_file,
                    .at = util::format_iso8601_utc(std::chrono::system_clock::now())});
    std::vector<std::vector<std::string>> rows;
    auto json = nlohmann::json::array();
    std::int64_t escaped = 0;
    for (const auto& table : report.tables) {
        rows.push_back({table.name, std::to_string(table.rows)});
        json.push_back({{"table", table.name}, {"rows", table.rows}, {"escaped", table.escaped}});
        escaped += table.escaped;
    }
    ctx.print_table({"TABLE", "ROWS"}, rows, json);
    if (escaped > 0)
        ctx.note(std::to_string(escaped) + " values held a NUL or bytes that are not UTF-8 (stored by an older "
                                           "release) and were copied escaped, each such byte as %XX (a '%' as %25); "
                                           "the \"escaped\" count of each table in --json says where.");
    ctx.note(secrets.empty()
                 ? "No " + dir.jwt_secret().string() + " to carry: a server on the database signs with a new secret, "
                       "so sessions end, unless it is given the old one's file as auth.jwtSecretFile."
                 : "The JWT signing secret was carried: sessions and tokens stay valid on the database's servers.");
    ctx.note("Copied, every count checked. Give the replicas this database as [database] url, with its password file. " +
             dir.root().string() + " is marked as moved: commands on it refuse, naming the database.");
}

}  // namespace

void add_admin_store_command(CLI::App& admin, Context& ctx) {
    auto* store_cmd = admin.add_subcommand("store", "The server's store as a whole: moving it to PostgreSQL");
    store_cmd->require_subcommand(1);

    auto s = std::make_shared<StoreCopySettings>();
    auto* copy_cmd = store_cmd->add_subcommand(
        "copy",
        "Copy the data directory's SQLite store into an empty PostgreSQL database (creating its schema), all or "
        "nothing, each table's rows counted on both sides, with the JWT signing secret (sessions stay valid); no "
        "serve may run on the directory meanwhile. The directory is then marked as moved: serve and the admin "
        "commands refuse its stale store, naming the database");
    set_examples(*copy_cmd, {
                 {"Move a server's store to PostgreSQL, the password in a file", "abcictl admin store copy --data-dir /var/lib/abcictl --to postgresql://abci@db.example:5432/abci --password-file /etc/abcictl/db.password"}});
    s->data_dir.add_dir_to(*copy_cmd);
    postgresql_url(copy_cmd
                       ->add_option("--to", s->target.url,
                                    "The empty PostgreSQL database to copy into (postgresql://USER@HOST/DB, no "
                                    "password in it)")
                       ->required(),
                   "--password-file");
    copy_cmd
        ->add_option("--password-file", s->target.password_file,
                     "A file whose first line is the database's password (default: libpq's PGPASSFILE, else ~/.pgpass)")
        ->type_name("FILE");
    copy_cmd->callback([s, &ctx] { copy_store(ctx, *s); });
}

}  // namespace abci::cli
