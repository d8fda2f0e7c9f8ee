#pragma once
// Each command lives in its own file and registers itself on the root app:
// declared there with add_lazy_subcommand, built only when the command line
// reaches it (cli/lazy_command.hpp), so a run pays for its own command only.
// Options bind straight into the command's settings; the action runs after
// parsing and throws abci::Error on failure (main maps it to an exit code).

#include "cli/examples.hpp"
#include "cli/lazy_command.hpp"

namespace abci::cli {

class Context;

void add_version_command(CLI::App& app, Context& ctx);
void add_keystore_command(CLI::App& app, Context& ctx);
void add_signer_command(CLI::App& app, Context& ctx);
void add_admin_command(CLI::App& app, Context& ctx);
void add_serve_command(CLI::App& app, Context& ctx);
// Clients of a running server (over HTTP).
void add_login_command(CLI::App& app, Context& ctx);
void add_logout_command(CLI::App& app, Context& ctx);
void add_whoami_command(CLI::App& app, Context& ctx);
void add_mint_role_command(CLI::App& app, Context& ctx);
void add_mint_entity_command(CLI::App& app, Context& ctx);
void add_mint_command(CLI::App& app, Context& ctx);  // `mint status`
void add_balance_command(CLI::App& app, Context& ctx);
void add_chains_command(CLI::App& app, Context& ctx);
void add_tokens_command(CLI::App& app, Context& ctx);
void add_health_command(CLI::App& app, Context& ctx);
void add_role_requests_command(CLI::App& app, Context& ctx);
void add_webhooks_command(CLI::App& app, Context& ctx);
void add_api_command(CLI::App& app, Context& ctx);  // `api spec`
// Generated from the command tree: `completion SHELL` (and the hidden
// `__complete-chains` its scripts call), the hidden `__man TEMPLATE`.
void add_completion_command(CLI::App& app, Context& ctx);
void add_man_command(CLI::App& app, Context& ctx);
// Subcommands of `admin`.
void add_admin_contract_command(CLI::App& admin, Context& ctx);
// These work on a server's data directory directly, not over HTTP.
void add_admin_user_command(CLI::App& admin, Context& ctx);
void add_admin_apikey_command(CLI::App& admin, Context& ctx);
void add_admin_audit_command(CLI::App& admin, Context& ctx);
void add_admin_journal_command(CLI::App& admin, Context& ctx);
void add_admin_store_command(CLI::App& admin, Context& ctx);
void add_admin_lanes_command(CLI::App& admin, Context& ctx);

}  // namespace abci::cli
