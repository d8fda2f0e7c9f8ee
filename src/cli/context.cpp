#include "cli/context.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>

#include "core/util/text.hpp"

namespace abci::cli {

void Context::print(const Record& record, const nlohmann::json& as_json) const {
    if (options.json) {
        std::cout << as_json.dump(2) << "\n";
        return;
    }
    // Values come from the server and, through it, from any user: shown as
    // text, never as what drives the terminal (--json escapes them as JSON).
    if (options.quiet) {
        std::cout << util::display_text(record.essential) << "\n";
        return;
    }
    std::size_t width = 0;
    for (const auto& [key, _] : record.fields) width = std::max(width, key.size());
    for (const auto& [key, value] : record.fields)
        std::cout << key << ":" << std::string(width - key.size() + 1, ' ') << util::display_text(value) << "\n";
}

void Context::print_table(const std::vector<std::string>& headers, const std::vector<std::vector<std::string>>& given_rows,
                          const nlohmann::json& as_json) const {
    if (options.json) {
        std::cout << as_json.dump(2) << "\n";
        return;
    }
    // As print(): a cell can neither drive the terminal nor forge a row.
    auto rows = given_rows;
    for (auto& row : rows)
        for (auto& cell : row) cell = util::display_text(cell);
    if (options.quiet) {
        for (const auto& row : rows) std::cout << row.front() << "\n";
        return;
    }
    std::vector<std::size_t> widths(headers.size());
    for (std::size_t i = 0; i < headers.size(); ++i) widths[i] = headers[i].size();
    for (const auto& row : rows)
        for (std::size_t i = 0; i < row.size() && i < widths.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
    auto format_row = [&](const std::vector<std::string>& row) {
        std::string line;
        for (std::size_t i = 0; i < row.size(); ++i) {
            line += row[i];
            if (i + 1 < row.size()) line += std::string(widths[i] - row[i].size() + 2, ' ');
        }
        return line;
    };
    std::cout << bold(format_row(headers)) << "\n";
    auto print_row = [&](const std::vector<std::string>& row) { std::cout << format_row(row) << "\n"; };
    for (const auto& row : rows) print_row(row);
}

bool Context::color() const {
    switch (options.color) {
    case ColorMode::always: return true;
    case ColorMode::never: return false;
    case ColorMode::automatic: break;
    }
    const char* no_color = std::getenv("NO_COLOR");
    return (no_color == nullptr || *no_color == '\0') && ::isatty(STDOUT_FILENO);
}

std::string Context::bold(const std::string& text) const { return color() ? "\033[1m" + text + "\033[0m" : text; }

void Context::note(const std::string& message) const {
    if (!options.quiet) std::cerr << message << "\n";
}

}  // namespace abci::cli
