#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/commands/commands.hpp"
#include "cli/context.hpp"

namespace abci::cli {

void add_version_command(CLI::App& app, Context& ctx) {
    add_lazy_subcommand(app, "version", "Print the version of abcictl", [&ctx](CLI::App& cmd) {
        cmd.callback([&ctx] { ctx.print({{{"abcictl", ABCI_VERSION}}, ABCI_VERSION}, {{"version", ABCI_VERSION}}); });
    });
}

}  // namespace abci::cli
