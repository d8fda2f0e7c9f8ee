#include "core/eth/address.hpp"

#include <algorithm>
#include <cctype>

#include "core/error.hpp"
#include "core/eth/keccak.hpp"

namespace abci::eth {
namespace {

[[noreturn]] void fail(std::string_view text, std::string_view rule) {
    throw Error(ErrorKind::invalid_input, "address \"" + std::string(text) + "\": " + std::string(rule));
}

bool is_upper(char c) noexcept { return c >= 'A' && c <= 'F'; }
bool is_lower(char c) noexcept { return c >= 'a' && c <= 'f'; }

/// EIP-55: hex digit i is upper-case when nibble i of keccak256(lower-case hex) is >= 8.
std::string apply_checksum(std::string lower_hex) {
    Hash32 hash = keccak256(std::string_view(lower_hex));
    for (std::size_t i = 0; i < lower_hex.size(); ++i) {
        std::uint8_t nibble = (i % 2 == 0) ? hash[i / 2] >> 4 : hash[i / 2] & 0x0f;
        if (nibble >= 8) lower_hex[i] = static_cast<char>(std::toupper(static_cast<unsigned char>(lower_hex[i])));
    }
    return lower_hex;
}

}  // namespace

Address Address::parse(std::string_view text) {
    if (text.size() < 2 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X'))
        fail(text, "must start with 0x");
    std::string_view digits = text.substr(2);
    if (digits.size() != 40) fail(text, "must have exactly 40 hex digits");
    Address out(from_hex_fixed<20>(digits, "address"));
    const bool has_upper = std::any_of(digits.begin(), digits.end(), is_upper);
    const bool has_lower = std::any_of(digits.begin(), digits.end(), is_lower);
    if (has_upper && has_lower && apply_checksum(to_hex(out.bytes_, false)) != digits)
        fail(text, "mixed-case checksum (EIP-55) does not match");
    return out;
}

Address Address::from_public_key(ByteView public_key64) {
    if (public_key64.size() != 64)
        throw Error(ErrorKind::invalid_input,
                    "public key: expected 64 bytes, got " + std::to_string(public_key64.size()));
    Hash32 hash = keccak256(public_key64);
    Address out;
    std::copy(hash.end() - 20, hash.end(), out.bytes_.begin());
    return out;
}

std::string Address::checksummed() const { return "0x" + apply_checksum(to_hex(bytes_, false)); }

std::string Address::lower() const { return to_hex(bytes_); }

bool Address::is_zero() const noexcept {
    return std::all_of(bytes_.begin(), bytes_.end(), [](std::uint8_t b) { return b == 0; });
}

}  // namespace abci::eth
