#pragma once
// A server's error that comes with what the user can do next: main prints its lines
// under the error's one-line message (whatever -q and -v say), and the exit
// code is still the one of the error's kind (cli/exit_code.hpp).

#include <string>
#include <utility>
#include <vector>

#include "cli/api_client.hpp"
#include "core/util/shell_command.hpp"

namespace abci::cli {

/// A server's error (-v still names its status and request id) with advice.
class AdvisedError : public ServerError {
public:
    AdvisedError(const ServerError& error, std::vector<std::string> advice)
        : ServerError(error), advice_(std::move(advice)) {}

    /// Lines to print after the message, indented by the caller's choice.
    [[nodiscard]] const std::vector<std::string>& advice() const noexcept { return advice_; }

private:
    std::vector<std::string> advice_;
};

using util::shell_command;

}  // namespace abci::cli
