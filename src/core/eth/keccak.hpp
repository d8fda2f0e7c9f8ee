#pragma once
// Keccak-256 as Ethereum uses it (original Keccak padding 0x01, not SHA3-256's
// 0x06). OpenSSL 3.0 has no Keccak-256, so this is a small implementation of
// Keccak-f[1600], checked against published vectors and cast.

#include <string_view>

#include "core/eth/bytes.hpp"

namespace abci::eth {

/// Keccak-256 of `data`.
[[nodiscard]] Hash32 keccak256(ByteView data) noexcept;
[[nodiscard]] inline Hash32 keccak256(std::string_view text) noexcept { return keccak256(as_bytes(text)); }

/// Incremental Keccak-256 for data that arrives in pieces.
class Keccak256 {
public:
    Keccak256() noexcept;
    void update(ByteView data) noexcept;
    /// Finishes the hash; the object must not be updated afterwards.
    [[nodiscard]] Hash32 finish() noexcept;

private:
    std::uint64_t state_[25];
    std::size_t offset_ = 0;  // bytes absorbed into the current block
};

}  // namespace abci::eth
