#pragma once
// Command lines that messages print for a person to paste into a shell.

#include <string>
#include <vector>

namespace abci::util {

/// `args` as one command line a POSIX shell reads back as the same words:
/// words with nothing special bare, others in single quotes.
[[nodiscard]] std::string shell_command(const std::vector<std::string>& args);

}  // namespace abci::util
