#include "cli/confirm.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>

#include "cli/context.hpp"
#include "cli/secret_input.hpp"
#include "core/error.hpp"
#include "core/os/fd.hpp"

namespace abci::cli {

bool confirm(const GlobalOptions& options, const std::string& question) {
    if (options.yes) return true;
    if (options.no_input || !can_prompt())
        throw Error(ErrorKind::invalid_input,
                    question + " Pass -y to confirm (" +
                        (options.no_input ? "--no-input forbids asking" : "there is no terminal to ask on") + ")");
    const os::UniqueFd tty(::open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC));
    if (tty.get() < 0) throw Error(ErrorKind::unavailable, std::string("cannot open the terminal: ") + std::strerror(errno));
    const std::string prompt = question + " [y/N]: ";
    if (::write(tty.get(), prompt.data(), prompt.size()) < 0)
        throw Error(ErrorKind::unavailable, std::string("cannot write to the terminal: ") + std::strerror(errno));
    std::string answer(Secret::read_fd(tty.get(), true, "the answer").view());
    std::transform(answer.begin(), answer.end(), answer.begin(), [](unsigned char c) { return std::tolower(c); });
    return answer == "y" || answer == "yes";
}

}  // namespace abci::cli
