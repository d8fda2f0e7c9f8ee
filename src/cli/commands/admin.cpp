#include <CLI/CLI.hpp>

#include "cli/commands/commands.hpp"

namespace abci::cli {

void add_admin_command(CLI::App& app, Context& ctx) {
    auto* admin = app.add_subcommand("admin", "Bootstrap and maintenance of a server and its contract");
    admin->require_subcommand(1);
    add_admin_contract_command(*admin, ctx);
    add_admin_user_command(*admin, ctx);
    add_admin_apikey_command(*admin, ctx);
    add_admin_audit_command(*admin, ctx);
}

}  // namespace abci::cli
