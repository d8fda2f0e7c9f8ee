#pragma once
// 20-byte account addresses and their EIP-55 mixed-case checksum.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/eth/bytes.hpp"

namespace abci::eth {

class Address {
public:
    constexpr Address() noexcept = default;
    explicit constexpr Address(const std::array<std::uint8_t, 20>& bytes) noexcept : bytes_(bytes) {}

    /// Parses "0x" + 40 hex digits. All-lower and all-upper digits are accepted
    /// as they are; mixed case must be a valid EIP-55 checksum. Throws
    /// Error(invalid_input) saying which rule failed.
    [[nodiscard]] static Address parse(std::string_view text);
    /// The last 20 bytes of keccak256 of a 64-byte uncompressed public key (no 0x04 prefix).
    [[nodiscard]] static Address from_public_key(ByteView public_key64);

    /// EIP-55 checksummed form, e.g. "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed".
    [[nodiscard]] std::string checksummed() const;
    /// Lower-case form, "0x…", for storage keys and comparisons.
    [[nodiscard]] std::string lower() const;

    [[nodiscard]] const std::array<std::uint8_t, 20>& bytes() const noexcept { return bytes_; }
    [[nodiscard]] bool is_zero() const noexcept;
    friend bool operator==(const Address&, const Address&) noexcept = default;
    friend auto operator<=>(const Address&, const Address&) noexcept = default;

private:
    std::array<std::uint8_t, 20> bytes_{};
};

}  // namespace abci::eth
