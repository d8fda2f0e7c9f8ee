#pragma once
// Commands declared up front and built on demand. Building the whole CLI11
// tree (every option of every command) was most of what `abcictl version`
// spent in abcictl itself; a run needs only the commands on its command line.
// Each command is declared with its name, description and group, so the root
// --help, dispatch and errors are what the whole tree gives, and the rest of
// it (options, subcommands, callback, settings) is built only when parsing
// reaches it, or when something needs the whole tree (describe_commands).

#include <functional>
#include <string>

namespace CLI {
class App;
}

namespace abci::cli {

/// Builds a command's options, subcommands, callback and settings on `command`.
using PopulateCommand = std::function<void(CLI::App& command)>;

/// Adds subcommand `name` with `description` to `parent`, inheriting the
/// parent's settings as CLI11's add_subcommand does, and leaves the rest of it
/// to `populate`, which runs at most once: when parsing reaches the command
/// (CLI11 calls a subcommand's pre-parse callback before it parses any of its
/// arguments) or from populate_all(). Returns the command, e.g. to hide it
/// with group(""). Throws CLI::OptionAlreadyAdded when the name is taken.
CLI::App* add_lazy_subcommand(CLI::App& parent, std::string name, std::string description, PopulateCommand populate);

/// Builds every command under `app` not built yet, recursively (also those
/// the building declares), so that the tree is whole.
void populate_all(CLI::App& app);

}  // namespace abci::cli
