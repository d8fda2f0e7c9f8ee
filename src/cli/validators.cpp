#include "cli/validators.hpp"

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdlib>

#include "core/error.hpp"
#include "core/service/database_url.hpp"
#include "core/service/requests.hpp"
#include "core/util/fields.hpp"
#include "core/util/suggest.hpp"

namespace abci::cli {
namespace {

[[noreturn]] void refuse(const std::string& message) { throw CLI::ParseError(message, CLI::ExitCodes::ValidationError); }

std::string range_words(std::uint64_t min, std::uint64_t max) {
    if (max == std::numeric_limits<std::uint64_t>::max()) return "of at least " + std::to_string(min);
    return "from " + std::to_string(min) + " to " + std::to_string(max);
}

}  // namespace

std::string or_list(const std::vector<std::string>& words) {
    std::string text;
    for (std::size_t i = 0; i < words.size(); ++i)
        text += (i == 0 ? "" : i + 1 == words.size() ? " or " : ", ") + words[i];
    return text;
}

CLI::Option* whole_number(CLI::Option* option, std::uint64_t min, std::uint64_t max) {
    const std::string rule = option->get_name() + " must be a whole number " + range_words(min, max);
    return option->check(CLI::Validator(
        [rule, min, max](std::string& value) -> std::string {
            const bool digits = !value.empty() && value.size() <= 20 &&
                                value.find_first_not_of("0123456789") == std::string::npos;
            errno = 0;
            const auto number = digits ? std::strtoull(value.c_str(), nullptr, 10) : 0;
            if (!digits || errno == ERANGE || number < min || number > max) refuse(rule + ", not '" + value + "'");
            return {};
        },
        "", "whole number"));
}

CLI::Option* positive_number(CLI::Option* option) {
    const std::string rule = option->get_name() + " must be a number above 0";
    return option->check(CLI::Validator(
        [rule](std::string& value) -> std::string {
            char* end = nullptr;
            errno = 0;
            const double number = value.empty() ? 0 : std::strtod(value.c_str(), &end);
            if (value.empty() || *end != '\0' || errno == ERANGE || !(number > 0)) refuse(rule + ", not '" + value + "'");
            return {};
        },
        "", "positive number"));
}

CLI::Option* evm_address(CLI::Option* option, bool recipient) {
    const std::string name = option->get_name();
    return option->check(CLI::Validator(
        [name, recipient](std::string& value) -> std::string {
            const nlohmann::json no_body;
            util::Fields fields(no_body);
            const bool parsed = (recipient ? service::parse_recipient_field(fields, name, value)
                                           : service::parse_address_field(fields, name, value))
                                    .has_value();
            try {
                fields.done();
            } catch (const Error& e) {
                refuse(e.details().empty() ? e.what() : e.details().front());
            }
            if (!parsed) refuse(name + " must be an EVM address: 42 characters starting with 0x");
            return {};
        },
        "", "address"));
}

CLI::Option* postgresql_url(CLI::Option* option, const std::string& password_file) {
    // A value from the environment is refused under the option's name too: both are named.
    const std::string env = option->get_envname();
    const std::string name = option->get_name() + (env.empty() ? "" : " (" + env + ")");
    return option->check(CLI::Validator(
        [name, password_file](std::string& value) -> std::string {
            if (const auto why = service::postgresql_url_objection(value, password_file)) refuse(name + " " + *why);
            return {};
        },
        "", "PostgreSQL URL"));
}

CLI::Option* one_of(CLI::Option* option, std::vector<std::string> choices) {
    std::string set;
    for (const auto& c : choices) set += (set.empty() ? "{" : ",") + c;
    const std::string rule = option->get_name() + " must be " + or_list(choices);
    // The description "{a,b}" is where cli/command_tree.cpp finds the choices.
    return option->check(CLI::Validator(
        [rule, choices](std::string& value) -> std::string {
            if (std::find(choices.begin(), choices.end(), value) != choices.end()) return {};
            std::string message = rule + ", not '" + value + "'";
            if (const auto near = util::closest_match(value, choices)) message += ". Did you mean '" + *near + "'?";
            refuse(message);
        },
        set + "}", "one of"));
}

}  // namespace abci::cli
