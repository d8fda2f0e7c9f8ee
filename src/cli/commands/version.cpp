#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/build_info.hpp"
#include "cli/commands/commands.hpp"
#include "cli/context.hpp"

namespace abci::cli {

void add_version_command(CLI::App& app, Context& ctx) {
    add_lazy_subcommand(app, "version", "Print the version of abcictl and the commit it was built from", [&ctx](CLI::App& cmd) {
        set_examples(cmd, {{"The version, for a bug report", "abcictl version"},
                           {"Only the version number, for a script", "abcictl version -q"}});
        cmd.callback([&ctx] {
            // One line that reads as a version, not as "abcictl: <message>" (main's form of an error).
            if (!ctx.options.json && !ctx.options.quiet) {
                std::cout << "abcictl " << ABCI_VERSION << " (commit " << kBuildCommit << ")\n";
                return;
            }
            ctx.print({{}, ABCI_VERSION}, {{"version", ABCI_VERSION}, {"commit", kBuildCommit}});
        });
    });
}

}  // namespace abci::cli
