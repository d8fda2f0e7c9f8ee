#include "core/util/strict_json.hpp"

#include <cctype>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"

namespace abci::util {
namespace {

using json = nlohmann::json;

// A member name is quoted back to the client, but not a megabyte of it.
constexpr std::size_t kMaxQuotedName = 64;

// What the parser met at 1-based byte `byte` of `text`, and where, in words
// a client can act on: the character (or byte, when it is not printable
// ASCII), its line and column, or that the text ended.
std::string describe_syntax_error(std::string_view text, std::size_t byte, std::string_view what) {
    if (text.empty()) return fmt::format("{} is empty; send a JSON object", what);
    if (byte == 0 || byte > text.size())
        return fmt::format("{} is not valid JSON: it ends before the JSON is complete (after byte {})", what,
                           text.size());
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i + 1 < byte; ++i) {
        if (text[i] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    const auto c = static_cast<unsigned char>(text[byte - 1]);
    const std::string found = std::isprint(c) != 0 ? fmt::format("character '{}'", static_cast<char>(c))
                                                   : fmt::format("byte 0x{:02X}", c);
    return fmt::format("{} is not valid JSON: unexpected {} at line {}, column {} (byte {})", what, found, line, column,
                       byte);
}

}  // namespace

json parse_strict_json(std::string_view text, std::size_t max_depth, std::string_view what, std::size_t max_values) {
    std::vector<std::set<std::string>> open_objects;
    std::size_t values = 0;
    const json::parser_callback_t check = [&](int depth, json::parse_event_t event, json& value) {
        if (static_cast<std::size_t>(depth) > max_depth)
            throw Error(ErrorKind::invalid_input,
                        fmt::format("{} is nested deeper than {} levels", what, max_depth));
        const bool starts_a_value = event == json::parse_event_t::value || event == json::parse_event_t::object_start ||
                                    event == json::parse_event_t::array_start;
        if (starts_a_value && ++values > max_values)
            throw Error(ErrorKind::invalid_input, fmt::format("{} holds more than {} JSON values", what, max_values));
        if (event == json::parse_event_t::object_start) open_objects.emplace_back();
        if (event == json::parse_event_t::object_end) open_objects.pop_back();
        if (event == json::parse_event_t::key && !open_objects.back().insert(value.get<std::string>()).second) {
            const auto& name = value.get_ref<const std::string&>();
            throw Error(ErrorKind::invalid_input,
                        fmt::format("{} names the member \"{}{}\" twice in one object; send each member once", what,
                                    name.substr(0, kMaxQuotedName), name.size() > kMaxQuotedName ? "…" : ""));
        }
        return true;
    };
    try {
        return json::parse(text.begin(), text.end(), check);
    } catch (const json::parse_error& e) {
        throw Error(ErrorKind::invalid_input, describe_syntax_error(text, e.byte, what));
    } catch (const json::out_of_range&) {
        // nlohmann's one range error while parsing (406): a number beyond a
        // double's range, which it does not count as a parse_error.
        throw Error(ErrorKind::invalid_input,
                    fmt::format("{} holds a number too large to read (beyond 1.8e308); send a smaller one", what));
    }
}

}  // namespace abci::util
