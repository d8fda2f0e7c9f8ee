#pragma once
// Byte containers and hex conversion shared by every eth module.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace abci::eth {

using Bytes = std::vector<std::uint8_t>;
using ByteView = std::span<const std::uint8_t>;
using Hash32 = std::array<std::uint8_t, 32>;

/// Lower-case hex of `data`, with a "0x" prefix when `prefix` is true.
[[nodiscard]] std::string to_hex(ByteView data, bool prefix = true);

/// Parses hex with or without "0x"; an odd number of digits is rejected.
/// Throws Error(invalid_input) naming `what` on any bad character.
[[nodiscard]] Bytes from_hex(std::string_view hex, std::string_view what = "hex string");

/// Parses exactly N bytes of hex (e.g. a 32-byte hash); other lengths are rejected.
template <std::size_t N>
[[nodiscard]] std::array<std::uint8_t, N> from_hex_fixed(std::string_view hex, std::string_view what = "hex string");

/// View of the bytes of a string (no copy).
[[nodiscard]] inline ByteView as_bytes(std::string_view s) noexcept {
    return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

/// Overwrites `data` so the compiler cannot elide it; for keys and passwords.
void secure_wipe(void* data, std::size_t size) noexcept;

}  // namespace abci::eth
