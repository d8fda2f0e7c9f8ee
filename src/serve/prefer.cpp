#include "serve/prefer.hpp"

#include <algorithm>
#include <cctype>

namespace abci::serve {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t'; }

std::string_view trimmed(std::string_view text) {
    while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
    while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
    return text;
}

bool same_token(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

// The preference names of one header line: each element's text before its
// '=' or ';'. The name itself is a token (no quotes), but a value or a
// parameter may be a quoted string, so a quote's extent is followed to find
// the element's end.
std::vector<std::string_view> preference_names(std::string_view line) {
    std::vector<std::string_view> names;
    std::size_t start = 0;
    std::size_t name_end = std::string_view::npos;
    bool quoted = false;
    for (std::size_t i = 0; i <= line.size(); ++i) {
        if (i == line.size() || (!quoted && line[i] == ',')) {
            const auto end = std::min(name_end, i);
            names.push_back(trimmed(line.substr(start, end - start)));
            start = i + 1;
            name_end = std::string_view::npos;
            continue;
        }
        const char c = line[i];
        if (quoted) {
            if (c == '\\') ++i;  // quoted-pair: the next character is literal
            else if (c == '"') quoted = false;
        } else if (c == '"') {
            quoted = true;
        } else if ((c == '=' || c == ';') && name_end == std::string_view::npos) {
            name_end = i;
        }
    }
    return names;
}

}  // namespace

bool has_preference(const std::vector<std::string>& values, std::string_view token) {
    return std::ranges::any_of(values, [&](const std::string& line) {
        return std::ranges::any_of(preference_names(line), [&](std::string_view name) { return same_token(name, token); });
    });
}

}  // namespace abci::serve
