// `abcictl whoami`: who the stored session (or ABCICTL_TOKEN) is on the server.

#include <CLI/CLI.hpp>

#include "cli/commands/commands.hpp"
#include "cli/context.hpp"
#include "cli/session.hpp"
#include "core/eth/address.hpp"

namespace abci::cli {

void add_whoami_command(CLI::App& app, Context& ctx) {
    add_lazy_subcommand(app, "whoami", "Show the logged-in user", [&ctx](CLI::App& cmd) {
        set_examples(cmd, {
                     {"Who the stored session is for", "abcictl whoami"},
                     {"On another server", "abcictl --server https://abci.example.org whoami"}});
        cmd.callback([&ctx] {
            StateDb state(StateDb::default_path());
            auto client = authenticated_client(ctx.options, state);
            const auto answer = client->call("GET", "/api/auth/me");
            const auto& user = answer.at("user");
            std::string wallets;
            for (const auto& w : user.value("wallets", nlohmann::json::array()))
                wallets += (wallets.empty() ? "" : ", ") + eth::Address::parse(w.get<std::string>()).checksummed();
            ctx.print({{{"server", client->base_url()},
                        {"profile", ctx.options.profile},
                        {"id", user.value("id", "")},
                        {"email", user.value("email", "")},
                        {"role", user.value("role", "")},
                        {"wallets", wallets.empty() ? "-" : wallets}},
                       user.value("email", "")},
                      {{"server", client->base_url()}, {"profile", ctx.options.profile}, {"user", user}});
        });
    });
}

}  // namespace abci::cli
