#pragma once
// The command line as data: the CLI11 tree walked into plain records for what
// is generated from it (shell completions, the man page), so that a new
// command or option shows up there without anyone listing it again.

#include <string>
#include <vector>

#include "cli/examples.hpp"

namespace CLI {
class App;
class Option;
}

namespace abci::cli {

/// What the value of an option or positional argument is, for completing it.
enum class ValueKind {
    none,       // a flag: takes no value
    text,       // free text: nothing to offer
    choice,     // one of ArgumentSpec::choices
    file,       // a file name
    directory,  // a directory name
    chain,      // a blockchain id (completed from the chain cache: abcictl __complete-chains)
};

struct ArgumentSpec {
    /// Options: their names with dashes, short first ("-q", "--quiet").
    /// Positionals: their one name ("ID").
    std::vector<std::string> names;
    bool positional = false;
    ValueKind kind = ValueKind::none;
    std::vector<std::string> choices;  // kind == choice, in CLI11's order
    /// What the man page calls the value ("FILE", "N", "ADDRESS"); empty for a flag.
    std::string value_name;
    std::string description;
    std::string envname;  // the environment variable CLI11 reads it from, if any
    std::string default_value;  // shown as the default (capture_default_str), if any
    bool required = false;

    [[nodiscard]] bool takes_value() const noexcept { return kind != ValueKind::none; }
};

struct CommandSpec {
    std::vector<std::string> path;  // {} for abcictl itself, {"chains", "status"} for `abcictl chains status`
    std::string description;
    std::vector<ArgumentSpec> options;  // -h,--help included
    std::vector<ArgumentSpec> positionals;
    std::vector<CommandSpec> subcommands;
    std::vector<Example> examples;

    /// The path joined by spaces: "" for the root, "chains status".
    [[nodiscard]] std::string name() const;
};

/// The visible tree under `app`, built whole first (populate_all() of
/// cli/lazy_command.hpp): commands and options in a group of their own
/// named "" (CLI11's way of hiding them from --help) are left out, and so are
/// they from completions and the man page. Choices come from the options'
/// IsMember/CheckedTransformer validators; files and directories from their
/// FILE/DIR type names (or the positional's name FILE); `--chain` and the ID
/// of `chains …` are chain ids.
[[nodiscard]] CommandSpec describe_commands(CLI::App& app);

/// One option or positional of the command at `command_path`, as above.
[[nodiscard]] ArgumentSpec describe_argument(const CLI::Option& option, const std::vector<std::string>& command_path);

/// The names from the root to `command`: {} for the root, {"chains", "list"}.
[[nodiscard]] std::vector<std::string> command_path(const CLI::App& command);

}  // namespace abci::cli
