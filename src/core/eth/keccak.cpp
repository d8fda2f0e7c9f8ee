#include "core/eth/keccak.hpp"

#include <bit>
#include <cstring>

namespace abci::eth {
namespace {

constexpr std::size_t kRate = 136;  // 1600 - 2*256 bits, in bytes

constexpr std::uint64_t kRoundConstants[24] = {
    0x0000000000000001ULL, 0x0000000000008082ULL, 0x800000000000808aULL, 0x8000000080008000ULL,
    0x000000000000808bULL, 0x0000000080000001ULL, 0x8000000080008081ULL, 0x8000000000008009ULL,
    0x000000000000008aULL, 0x0000000000000088ULL, 0x0000000080008009ULL, 0x000000008000000aULL,
    0x000000008000808bULL, 0x800000000000008bULL, 0x8000000000008089ULL, 0x8000000000008003ULL,
    0x8000000000008002ULL, 0x8000000000000080ULL, 0x000000000000800aULL, 0x800000008000000aULL,
    0x8000000080008081ULL, 0x8000000000008080ULL, 0x0000000080000001ULL, 0x8000000080008008ULL,
};
constexpr int kRotations[24] = {1, 3, 6, 10, 15, 21, 28, 36, 45, 55, 2, 14,
                                27, 41, 56, 8, 25, 43, 62, 18, 39, 61, 20, 44};
constexpr int kPiLanes[24] = {10, 7, 11, 17, 18, 3, 5, 16, 8, 21, 24, 4,
                              15, 23, 19, 13, 12, 2, 20, 14, 22, 9, 6, 1};

inline std::uint64_t rotl(std::uint64_t x, int n) noexcept { return (x << n) | (x >> (64 - n)); }

void keccak_f1600(std::uint64_t a[25]) noexcept {
    for (std::uint64_t rc : kRoundConstants) {
        std::uint64_t c[5];
        for (int x = 0; x < 5; ++x) c[x] = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20];
        for (int x = 0; x < 5; ++x) {
            std::uint64_t d = c[(x + 4) % 5] ^ rotl(c[(x + 1) % 5], 1);
            for (int y = 0; y < 25; y += 5) a[y + x] ^= d;
        }
        std::uint64_t carry = a[1];
        for (int i = 0; i < 24; ++i) {
            int j = kPiLanes[i];
            std::uint64_t tmp = a[j];
            a[j] = rotl(carry, kRotations[i]);
            carry = tmp;
        }
        for (int y = 0; y < 25; y += 5) {
            std::uint64_t row[5];
            for (int x = 0; x < 5; ++x) row[x] = a[y + x];
            for (int x = 0; x < 5; ++x) a[y + x] = row[x] ^ (~row[(x + 1) % 5] & row[(x + 2) % 5]);
        }
        a[0] ^= rc;
    }
}

// The state is little-endian lanes; x86-64 and every target we build for are
// little-endian, so bytes are XORed straight into the lane memory.
static_assert(std::endian::native == std::endian::little);

}  // namespace

Keccak256::Keccak256() noexcept { std::memset(state_, 0, sizeof state_); }

void Keccak256::update(ByteView data) noexcept {
    auto* bytes = reinterpret_cast<std::uint8_t*>(state_);
    for (std::uint8_t b : data) {
        bytes[offset_++] ^= b;
        if (offset_ == kRate) {
            keccak_f1600(state_);
            offset_ = 0;
        }
    }
}

Hash32 Keccak256::finish() noexcept {
    auto* bytes = reinterpret_cast<std::uint8_t*>(state_);
    bytes[offset_] ^= 0x01;
    bytes[kRate - 1] ^= 0x80;
    keccak_f1600(state_);
    Hash32 out;
    std::memcpy(out.data(), bytes, out.size());
    return out;
}

Hash32 keccak256(ByteView data) noexcept {
    Keccak256 h;
    h.update(data);
    return h.finish();
}

}  // namespace abci::eth
