#include "core/rpc/quantity.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "core/error.hpp"

namespace abci::rpc {
namespace {

// The hex digits of a well-formed quantity string, or an Error(unavailable).
std::string_view quantity_digits(const nlohmann::json& value, std::string_view what) {
    auto bad = [&](std::string_view why) {
        return Error(ErrorKind::unavailable,
                     fmt::format("node returned a malformed quantity for {}: {} ({})", what, why, value.dump()));
    };
    if (!value.is_string()) throw bad("not a string");
    const auto& text = value.get_ref<const std::string&>();
    if (text.size() < 3 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X')) throw bad("expected 0x and hex digits");
    std::string_view digits(text);
    digits.remove_prefix(2);
    if (!std::all_of(digits.begin(), digits.end(), [](unsigned char c) { return std::isxdigit(c) != 0; }))
        throw bad("not hex");
    digits.remove_prefix(std::min(digits.find_first_not_of('0'), digits.size()));
    if (digits.size() > 64) throw bad("wider than 256 bits");
    return digits;
}

}  // namespace

std::string to_quantity(std::uint64_t value) { return fmt::format("0x{:x}", value); }

std::string to_quantity(const eth::U256& value) { return value.to_hex(); }

std::uint64_t quantity_to_u64(const nlohmann::json& value, std::string_view what) {
    auto digits = quantity_digits(value, what);
    if (digits.size() > 16)
        throw Error(ErrorKind::unavailable,
                    fmt::format("node returned a quantity for {} that does not fit 64 bits: {}", what, value.dump()));
    std::uint64_t out = 0;
    for (char c : digits) {
        auto d = static_cast<unsigned char>(std::tolower(static_cast<unsigned char>(c)));
        out = (out << 4) | static_cast<std::uint64_t>(d <= '9' ? d - '0' : d - 'a' + 10);
    }
    return out;
}

eth::U256 quantity_to_u256(const nlohmann::json& value, std::string_view what) {
    auto digits = quantity_digits(value, what);
    return digits.empty() ? eth::U256{} : eth::U256::parse("0x" + std::string(digits));
}

}  // namespace abci::rpc
