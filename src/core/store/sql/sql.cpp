// What both backends' repositories share (sql.hpp).

#include "core/store/sql/sql.hpp"

#include <fmt/format.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "core/eth/u256.hpp"
#include "core/util/text.hpp"

namespace abci::store::sql {

std::int64_t to_millis(TimePoint t) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

TimePoint from_millis(std::int64_t ms) { return TimePoint(std::chrono::milliseconds(ms)); }

TimePoint now_millis() { return from_millis(to_millis(std::chrono::system_clock::now())); }

const std::string& bound_text(const std::string& value) {
    util::require_text(value, "a value to be stored");
    return value;
}

const char* bound_text(const char* value) {
    util::require_text(value, "a value to be stored");
    return value;
}

std::string recordable_text(std::string_view value) {
    return util::is_text(value) ? std::string(value) : util::escape_text(value);
}

std::string select_columns(const char* columns, std::string_view rest) {
    return fmt::format("SELECT {} {}", columns, rest);
}

std::string lower_ascii(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c); });
    return text;
}

std::string canonical_decimal(const std::string& text) { return eth::U256::parse(text).to_dec(); }

std::string string_list_to_json(const std::vector<std::string>& values, const char* what) {
    try {
        return nlohmann::json(values).dump();
    } catch (const nlohmann::json::exception&) {
        throw Error(ErrorKind::invalid_input, fmt::format("{} must be valid UTF-8", what));
    }
}

std::vector<std::string> string_list_from_json(const std::string& text, const char* what) {
    try {
        return nlohmann::json::parse(text).get<std::vector<std::string>>();
    } catch (const nlohmann::json::exception& e) {
        throw Error(ErrorKind::internal, fmt::format("stored {} are corrupt: {}", what, e.what()));
    }
}

}  // namespace abci::store::sql
