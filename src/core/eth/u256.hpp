#pragma once
// Unsigned 256-bit integer for EVM quantities (wei, gas prices, token ids and
// balances, ABI uint256). Only what the EVM data model needs: parse/print,
// big-endian bytes, comparison and wrapping arithmetic.

#include <array>
#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/eth/bytes.hpp"

namespace abci::eth {

class U256 {
public:
    constexpr U256() noexcept = default;
    constexpr U256(std::uint64_t v) noexcept : limbs_{v, 0, 0, 0} {}  // NOLINT: implicit by design

    /// Parses decimal ("1000") or 0x-prefixed hex ("0x3e8"). Throws
    /// Error(invalid_input) on an empty string, a bad digit or overflow past 2^256-1.
    [[nodiscard]] static U256 parse(std::string_view text);
    /// Big-endian bytes, at most 32 (leading zeros allowed). Longer input throws Error(invalid_input).
    [[nodiscard]] static U256 from_be_bytes(ByteView bytes);

    [[nodiscard]] std::array<std::uint8_t, 32> to_be_bytes32() const noexcept;
    /// Big-endian bytes without leading zeros; zero is the empty string (RLP's form).
    [[nodiscard]] Bytes to_be_bytes_trimmed() const;
    /// Decimal, e.g. "1000".
    [[nodiscard]] std::string to_dec() const;
    /// JSON-RPC quantity: 0x-prefixed hex without leading zeros, "0x0" for zero.
    [[nodiscard]] std::string to_hex() const;

    [[nodiscard]] bool fits_u64() const noexcept { return !(limbs_[1] | limbs_[2] | limbs_[3]); }
    /// The value as uint64; throws Error(invalid_input) when it does not fit.
    [[nodiscard]] std::uint64_t to_u64() const;
    [[nodiscard]] bool is_zero() const noexcept { return !(limbs_[0] | limbs_[1] | limbs_[2] | limbs_[3]); }
    /// Bit `index` (0 = least significant); false for index >= 256.
    [[nodiscard]] bool bit(unsigned index) const noexcept {
        return index < 256 && ((limbs_[index / 64] >> (index % 64)) & 1u) != 0;
    }

    // Wrapping (mod 2^256) arithmetic, as the EVM does.
    friend U256 operator+(const U256& a, const U256& b) noexcept;
    friend U256 operator-(const U256& a, const U256& b) noexcept;
    friend U256 operator*(const U256& a, const U256& b) noexcept;
    /// Division and remainder; division by zero throws Error(invalid_input).
    friend U256 operator/(const U256& a, const U256& b);
    friend U256 operator%(const U256& a, const U256& b);
    friend U256 operator<<(const U256& a, unsigned shift) noexcept;
    friend U256 operator>>(const U256& a, unsigned shift) noexcept;
    friend std::strong_ordering operator<=>(const U256& a, const U256& b) noexcept;
    friend bool operator==(const U256& a, const U256& b) noexcept = default;

private:
    std::array<std::uint64_t, 4> limbs_{};  // little-endian limbs
};

}  // namespace abci::eth
