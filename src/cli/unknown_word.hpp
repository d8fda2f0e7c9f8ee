#pragma once
// Why a command line did not parse, said in the user's terms: CLI11 reports
// the first rule it checks ("A subcommand is required", "--address is
// required"), which for a typo is the wrong one. This walks the words the way
// the parser does and finds the first command or flag that does not exist,
// with the nearest one that does (core/util/suggest.hpp).

#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace abci::cli {

struct Misreading {
    /// The command the words reached, "abcictl chains": where --help helps.
    std::string command = "abcictl";
    /// "unknown command 'lst' for 'abcictl chains'. Did you mean 'list'?",
    /// "unknown flag --adress for 'abcictl balance'. Did you mean --address?",
    /// "'abcictl chains' needs a command: list or status"; nothing when every
    /// word is known (CLI11's own message is then the right one).
    std::optional<std::string> problem;
    /// The problem is a word that names no command or flag (not a command
    /// left out): --help must not answer as if the words were right.
    bool unknown_word = false;
};

/// Reads `args` (argv without argv[0]) against the whole tree under `app`
/// (built first: cli/lazy_command.hpp).
[[nodiscard]] Misreading read_command_line(CLI::App& app, const std::vector<std::string>& args);

}  // namespace abci::cli
