#include <CLI/CLI.hpp>

#include "cli/commands/commands.hpp"

namespace abci::cli {

void add_admin_command(CLI::App& app, Context& ctx) {
    const char* description = "Bootstrap and maintenance of a server and its contract";
    add_lazy_subcommand(app, "admin", description, [&ctx](CLI::App& admin) {
        admin.require_subcommand(1);
        add_admin_contract_command(admin, ctx);
        add_admin_user_command(admin, ctx);
        add_admin_apikey_command(admin, ctx);
        add_admin_audit_command(admin, ctx);
        add_admin_journal_command(admin, ctx);
        add_admin_store_command(admin, ctx);
        add_admin_lanes_command(admin, ctx);
    });
}

}  // namespace abci::cli
