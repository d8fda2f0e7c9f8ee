#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/commands/commands.hpp"
#include "cli/context.hpp"

namespace abci::cli {

void add_version_command(CLI::App& app, Context& ctx) {
    app.add_subcommand("version", "Print the version of abcictl")->callback([&ctx] {
        ctx.print({{{"abcictl", ABCI_VERSION}}, ABCI_VERSION}, {{"version", ABCI_VERSION}});
    });
}

}  // namespace abci::cli
