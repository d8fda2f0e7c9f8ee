#include <CLI/CLI.hpp>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/build_info.hpp"
#include "cli/cli_settings.hpp"
#include "cli/commands/commands.hpp"
#include "cli/context.hpp"
#include "cli/session.hpp"

namespace abci::cli {
namespace {

constexpr std::string_view kServerSoftware = "abcictl/";

/// The version of the server the options name, when one is configured (not
/// the default: a plain `version` stays a start-up measure that touches no
/// network) and answers within a second as an abcictl server does; nothing
/// otherwise, since a version query must not fail for want of a server.
std::optional<std::string> server_version(GlobalOptions& options) {
    const bool given = !options.server.empty();  // --server or ABCICTL_SERVER
    apply_config_file(options);
    if (!given && options.server == cli_setting("server").default_value) return std::nullopt;
    try {
        const auto answer = anonymous_client(options, std::chrono::seconds(1))->send("GET", "/");
        if (answer.software.starts_with(kServerSoftware)) return answer.software.substr(kServerSoftware.size());
    } catch (const Error&) {
        // Unreachable, or no URL: the line about the server is left out, as documented.
    }
    return std::nullopt;
}

void print_version(Context& ctx) {
    const auto server = ctx.options.quiet ? std::nullopt : server_version(ctx.options);
    if (ctx.options.json) {
        nlohmann::json json{{"version", ABCI_VERSION}, {"commit", kBuildCommit}};
        if (server) json["server"] = {{"url", ctx.options.server}, {"version", *server}};
        std::cout << json.dump(2) << "\n";
    } else if (ctx.options.quiet) {
        std::cout << ABCI_VERSION << "\n";
    } else {
        // One line that reads as a version, not as "abcictl: <message>" (main's form of an error).
        std::cout << "abcictl " << ABCI_VERSION << " (commit " << kBuildCommit << ")\n";
        if (server) std::cout << "server " << *server << " at " << ctx.options.server << "\n";
    }
}

}  // namespace

void add_version_command(CLI::App& app, Context& ctx) {
    add_lazy_subcommand(app, "version",
                        "Print the version of abcictl and its commit, and the server's when one is set (--server, "
                        "ABCICTL_SERVER, the config file or the last login; the default is not asked)",
                        [&ctx](CLI::App& cmd) {
                            set_examples(cmd, {{"The versions, for a bug report", "abcictl version"},
                                               {"Only abcictl's version number, for a script", "abcictl version -q"}});
                            cmd.callback([&ctx] { print_version(ctx); });
                        });
}

}  // namespace abci::cli
