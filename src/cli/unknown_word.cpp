#include "cli/unknown_word.hpp"

#include <CLI/CLI.hpp>
#include <cctype>

#include "cli/lazy_command.hpp"
#include "cli/validators.hpp"
#include "core/util/suggest.hpp"

namespace abci::cli {
namespace {

bool visible(const CLI::App* command) { return !command->get_group().empty(); }

std::vector<CLI::App*> subcommands_of(CLI::App& command) {
    return command.get_subcommands([](CLI::App*) { return true; });
}

CLI::App* subcommand_named(CLI::App& command, const std::string& word) {
    for (auto* sub : subcommands_of(command))
        if (sub->check_name(word)) return sub;
    return nullptr;
}

/// The option `name` ("--address", "-q") of the innermost command of `path`
/// that has it: the parser falls through to the commands above.
const CLI::Option* option_named(const std::vector<CLI::App*>& path, const std::string& name) {
    for (auto it = path.rbegin(); it != path.rend(); ++it)
        for (const auto* option : (*it)->get_options())
            if (!option->get_positional() && option->check_name(name)) return option;
    return nullptr;
}

std::vector<std::string> long_flag_names(const std::vector<CLI::App*>& path) {
    std::vector<std::string> names;
    for (auto it = path.rbegin(); it != path.rend(); ++it)
        for (const auto* option : (*it)->get_options([](const CLI::Option* o) { return !o->get_group().empty(); }))
            for (const auto& l : option->get_lnames()) names.push_back("--" + l);
    return names;
}

// Every one-letter flag is one slip from every other: only long ones get a suggestion.
std::string unknown_flag(const std::string& flag, const std::vector<CLI::App*>& path, const std::string& command) {
    std::string message = "unknown flag " + flag + " for '" + command + "'";
    if (const auto near = flag.starts_with("--") ? util::closest_match(flag, long_flag_names(path)) : std::nullopt)
        message += ". Did you mean " + *near + "?";
    return message;
}

bool takes_value(const CLI::Option* option) { return option->get_expected_max() > 0; }

}  // namespace

Misreading read_command_line(CLI::App& app, const std::vector<std::string>& args) {
    populate_all(app);
    Misreading reading;
    std::vector<CLI::App*> path{&app};
    for (std::size_t i = 0; i < args.size() && !reading.problem; ++i) {
        const std::string& word = args[i];
        if (word == "--") break;
        const bool number = word.size() > 1 && word[0] == '-' && std::isdigit(static_cast<unsigned char>(word[1]));
        if (word.size() > 2 && word.starts_with("--")) {
            const auto equals = word.find('=');
            const std::string flag = word.substr(0, equals);
            const auto* option = option_named(path, flag);
            if (!option) {
                reading.problem = unknown_flag(flag, path, reading.command);
                reading.unknown_word = true;
            } else if (equals == std::string::npos && takes_value(option)) ++i;
        } else if (word.size() > 1 && word[0] == '-' && !number) {
            // Short flags may be bundled (-qy); one taking a value takes the rest of the word or the next one.
            for (std::size_t k = 1; k < word.size(); ++k) {
                const std::string flag = "-" + word.substr(k, 1);
                const auto* option = option_named(path, flag);
                if (!option) {
                    reading.problem = unknown_flag(flag, path, reading.command);
                    reading.unknown_word = true;
                    break;
                }
                if (takes_value(option)) {
                    if (k + 1 == word.size()) ++i;
                    break;
                }
            }
        } else if (auto* sub = subcommand_named(*path.back(), word)) {
            path.push_back(sub);
            reading.command += " " + sub->get_name();
        } else if (!subcommands_of(*path.back()).empty() && path.back()->get_options([](const CLI::Option* o) {
                       return o->get_positional();
                   }).empty()) {
            std::vector<std::string> names;
            for (const auto* sub : subcommands_of(*path.back()))
                if (visible(sub)) names.push_back(sub->get_name());
            std::string message = "unknown command '" + word + "' for '" + reading.command + "'";
            if (const auto near = util::closest_match(word, names)) message += ". Did you mean '" + *near + "'?";
            reading.problem = message;
            reading.unknown_word = true;
        }
    }
    auto& reached = *path.back();
    if (!reading.problem && reached.get_require_subcommand_min() > 0) {
        std::vector<std::string> names;
        for (const auto* sub : subcommands_of(reached))
            if (visible(sub)) names.push_back(sub->get_name());
        // A long list is what --help is for (the hint under the message).
        reading.problem = "'" + reading.command + "' needs a command" + (names.size() <= 6 ? ": " + or_list(names) : "");
    }
    return reading;
}

}  // namespace abci::cli
