#include <CLI/CLI.hpp>
#include <csignal>
#include <iostream>
#include <map>

#include "cli/advice.hpp"
#include "cli/api_client.hpp"
#include "cli/cli_settings.hpp"
#include "cli/commands/commands.hpp"
#include "cli/context.hpp"
#include "cli/exit_code.hpp"
#include "cli/help_formatter.hpp"
#include "cli/unknown_word.hpp"
#include "cli/validators.hpp"
#include "core/util/text.hpp"

namespace {

void add_global_options(CLI::App& app, abci::cli::GlobalOptions& options) {
    for (const auto& [flag, value] : {std::pair{"server", &options.server}, std::pair{"profile", &options.profile}}) {
        const auto& setting = abci::cli::cli_setting(flag);
        app.add_option(std::string(setting.flag), *value, std::string(setting.description))->envname(std::string(setting.env));
    }
    app.add_flag("--json", options.json, "Machine-readable JSON output");
    app.add_flag("-q,--quiet", options.quiet, "Print only the essential value");
    // The word is checked as typed, then mapped: a transform would run before
    // the check (CLI11 puts transforms first), which then saw only "0", "1" or "2".
    abci::cli::one_of(app.add_option_function<std::string>(
                          "--color",
                          [&options](const std::string& word) {
                              options.color = word == "always"  ? abci::cli::ColorMode::always
                                              : word == "never" ? abci::cli::ColorMode::never
                                                                : abci::cli::ColorMode::automatic;
                          },
                          "Colour output (auto: on a terminal without NO_COLOR)"),
                      {"auto", "always", "never"});
    app.add_flag("--no-input", options.no_input, "Never prompt; fail when input is needed");
    app.add_flag("-y,--yes", options.yes, "Answer yes to confirmations");
    app.add_flag("-v,--verbose", options.verbosity, "More output on stderr (repeatable)");
}

}  // namespace

int main(int argc, char** argv) {
    std::signal(SIGPIPE, SIG_IGN);
    abci::cli::Context ctx;
    ctx.argv.assign(argv, argv + argc);
    CLI::App app{"abcictl: administration tool and API server for the ABCI token layer", "abcictl"};
    // Before any command is added: they inherit both.
    app.formatter(std::make_shared<abci::cli::HelpFormatter>());
    app.set_help_flag("-h,--help", "Show this help");
    app.require_subcommand(1);
    app.fallthrough();
    add_global_options(app, ctx.options);
    abci::cli::add_version_command(app, ctx);
    abci::cli::add_keystore_command(app, ctx);
    abci::cli::add_signer_command(app, ctx);
    abci::cli::add_admin_command(app, ctx);
    abci::cli::add_serve_command(app, ctx);
    abci::cli::add_login_command(app, ctx);
    abci::cli::add_logout_command(app, ctx);
    abci::cli::add_whoami_command(app, ctx);
    abci::cli::add_mint_role_command(app, ctx);
    abci::cli::add_mint_entity_command(app, ctx);
    abci::cli::add_mint_command(app, ctx);
    abci::cli::add_balance_command(app, ctx);
    abci::cli::add_chains_command(app, ctx);
    abci::cli::add_tokens_command(app, ctx);
    abci::cli::add_health_command(app, ctx);
    abci::cli::add_role_requests_command(app, ctx);
    abci::cli::add_webhooks_command(app, ctx);
    abci::cli::add_api_command(app, ctx);
    abci::cli::add_completion_command(app, ctx);
    abci::cli::add_man_command(app, ctx);

    // `abcictl help [COMMAND…]` is `abcictl [COMMAND…] --help`, as in git and cargo.
    if (ctx.argv.size() > 1 && ctx.argv[1] == "help") {
        ctx.argv.erase(ctx.argv.begin() + 1);
        ctx.argv.emplace_back("--help");
    }
    const auto refuse = [&](const abci::cli::Misreading& reading, const std::string& fallback) {
        std::cerr << "abcictl: " << reading.problem.value_or(fallback) << "\nRun '" << reading.command
                  << " --help' for usage.\n";
    };
    try {
        // CLI11 takes the words last first.
        app.parse(std::vector<std::string>(ctx.argv.rbegin(), ctx.argv.rend() - 1));
    } catch (const CLI::Success& e) {
        // --help after a mistyped word would show the help of the command before it, exit 0, as if all were well.
        if (const auto reading = abci::cli::read_command_line(app, {ctx.argv.begin() + 1, ctx.argv.end()});
            reading.unknown_word) {
            refuse(reading, e.what());
            return abci::cli::kExitUsage;
        }
        return app.exit(e);  // --help and friends: CLI11 prints the right subcommand's help
    } catch (const CLI::ParseError& e) {
        const auto reading = abci::cli::read_command_line(app, {ctx.argv.begin() + 1, ctx.argv.end()});
        refuse(reading, e.what());
        // A monitoring system must never read a typo in a check as CRITICAL (2).
        if (app.get_subcommand("health")->parsed())
            return abci::cli::kExitHealthUnknown;
        return abci::cli::kExitUsage;
    } catch (const abci::Error& e) {
        // A server's message may quote what a user sent (a path, a name): shown, never obeyed.
        using abci::util::display_text;
        std::cerr << "abcictl: " << display_text(e.what()) << "\n";
        // A refused request lists every problem (spec §7: details); other details are for -v.
        if (e.kind() == abci::ErrorKind::invalid_input || ctx.options.verbosity > 0)
            for (const auto& d : e.details())
                if (d != e.what()) std::cerr << "  - " << display_text(d) << "\n";
        if (const auto* answer = dynamic_cast<const abci::cli::ServerError*>(&e); answer && ctx.options.verbosity > 0)
            std::cerr << "  (" << answer->diagnosis() << ")\n";
        if (ctx.options.verbosity > 0) std::cerr << "  (error kind: " << abci::to_string(e.kind()) << ")\n";
        if (const auto* advised = dynamic_cast<const abci::cli::AdvisedError*>(&e))
            for (const auto& line : advised->advice()) std::cerr << line << "\n";
        return abci::cli::exit_code_for(e);
    } catch (const std::exception& e) {
        std::cerr << "abcictl: internal error: " << e.what() << "\n";
        return abci::cli::kExitError;
    }
    return ctx.exit_code;
}
