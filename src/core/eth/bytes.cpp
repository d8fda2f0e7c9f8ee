#include "core/eth/bytes.hpp"

#include <openssl/crypto.h>

#include "core/error.hpp"

namespace abci::eth {
namespace {

int nibble(char c) noexcept {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

std::string_view strip_prefix(std::string_view hex) noexcept {
    if (hex.size() >= 2 && hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X')) hex.remove_prefix(2);
    return hex;
}

}  // namespace

std::string to_hex(ByteView data, bool prefix) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    out.reserve(data.size() * 2 + 2);
    if (prefix) out += "0x";
    for (std::uint8_t b : data) {
        out += digits[b >> 4];
        out += digits[b & 0x0f];
    }
    return out;
}

Bytes from_hex(std::string_view hex, std::string_view what) {
    hex = strip_prefix(hex);
    if (hex.size() % 2 != 0)
        throw Error(ErrorKind::invalid_input, std::string(what) + ": odd number of hex digits");
    Bytes out(hex.size() / 2);
    for (std::size_t i = 0; i < out.size(); ++i) {
        int hi = nibble(hex[2 * i]);
        int lo = nibble(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            throw Error(ErrorKind::invalid_input, std::string(what) + ": not a hex string");
        out[i] = static_cast<std::uint8_t>(hi << 4 | lo);
    }
    return out;
}

template <std::size_t N>
std::array<std::uint8_t, N> from_hex_fixed(std::string_view hex, std::string_view what) {
    Bytes raw = from_hex(hex, what);
    if (raw.size() != N)
        throw Error(ErrorKind::invalid_input,
                    std::string(what) + ": expected " + std::to_string(N) + " bytes, got " +
                        std::to_string(raw.size()));
    std::array<std::uint8_t, N> out{};
    std::copy(raw.begin(), raw.end(), out.begin());
    return out;
}

template std::array<std::uint8_t, 20> from_hex_fixed<20>(std::string_view, std::string_view);
template std::array<std::uint8_t, 32> from_hex_fixed<32>(std::string_view, std::string_view);
template std::array<std::uint8_t, 65> from_hex_fixed<65>(std::string_view, std::string_view);

void secure_wipe(void* data, std::size_t size) noexcept { OPENSSL_cleanse(data, size); }

}  // namespace abci::eth
