#pragma once
// Examples of a command, declared once beside its options: its --help shows
// them (cli/help_formatter.hpp) and so does the man page (commands/man.cpp).

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace abci::cli {

struct Example {
    std::string what;     // one line: what it does, e.g. "A wallet's tokens on the local devnet"
    std::string command;  // the command line, starting with "abcictl"
};

/// Declares the examples of `command` (replacing any it had).
void set_examples(const CLI::App& command, std::vector<Example> examples);

/// What set_examples() declared for `command`; none when nothing was.
[[nodiscard]] const std::vector<Example>& examples_of(const CLI::App& command);

}  // namespace abci::cli
