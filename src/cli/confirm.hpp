#pragma once
// A yes/no confirmation before something that cannot be undone: -y answers
// it, --no-input (or nobody at a terminal) refuses to ask.

#include <string>

namespace abci::cli {

struct GlobalOptions;

/// True when -y was given or the person at the terminal answers y or yes to
/// "<question> [y/N]: " (asked on /dev/tty; `question` has no ": " of its
/// own, so that the prompt's end is unambiguous). Throws Error(invalid_input)
/// telling to pass -y when it cannot ask: --no-input, or no terminal.
[[nodiscard]] bool confirm(const GlobalOptions& options, const std::string& question);

}  // namespace abci::cli
