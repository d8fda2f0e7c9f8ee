#include "core/util/shell_command.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace abci::util {

std::string shell_command(const std::vector<std::string>& args) {
    std::string line;
    for (const auto& word : args) {
        const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](unsigned char c) {
            return std::isalnum(c) || std::string_view("-_./:=@,+%").find(static_cast<char>(c)) != std::string_view::npos;
        });
        std::string quoted = "'";
        // A ' ends the quote, is escaped, and the quote resumes.
        for (const char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
        line += (line.empty() ? "" : " ") + (plain ? word : quoted + "'");
    }
    return line;
}

}  // namespace abci::util
