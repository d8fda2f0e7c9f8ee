// `abcictl logout`: ends the session on the server (its access token and
// refresh family are revoked) and forgets it locally.

#include <CLI/CLI.hpp>

#include "cli/commands/commands.hpp"
#include "cli/context.hpp"
#include "cli/session.hpp"

namespace abci::cli {

void add_logout_command(CLI::App& app, Context& ctx) {
    add_lazy_subcommand(app, "logout", "Log out of the server and forget the session", [&ctx](CLI::App& cmd) {
        set_examples(cmd, {
                     {"End the session of the default profile", "abcictl logout"}});
        cmd.callback([&ctx] {
            auto client = anonymous_client(ctx.options);
            StateDb state(StateDb::default_path());
            // A server left is no longer the profile's: the next command goes where it would have before the login.
            state.forget_login_server(ctx.options.profile, client->base_url());
            const auto session = state.session(ctx.options.profile, client->base_url());
            if (!session) {
                ctx.note("not logged in to " + client->base_url());
                return;
            }
            client->set_bearer(session->access_token);
            try {
                (void)client->call("POST", "/api/auth/logout");
            } catch (const Error& e) {
                // An expired or revoked session is over anyway; anything else
                // (server down) still ends it here, with a word about the server.
                if (e.kind() != ErrorKind::unauthenticated)
                    ctx.note("the server could not be told (" + std::string(e.what()) +
                             "); the local session is removed");
            }
            state.remove_session(ctx.options.profile, client->base_url());
            ctx.note("logged out of " + client->base_url());
        });
    });
}

}  // namespace abci::cli
