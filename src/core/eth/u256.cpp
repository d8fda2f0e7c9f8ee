#include "core/eth/u256.hpp"

#include <algorithm>
#include <utility>

#include "core/error.hpp"

namespace abci::eth {
namespace {

__extension__ typedef unsigned __int128 u128;  // GCC/Clang extension; __extension__ keeps -Wpedantic quiet

[[noreturn]] void fail(std::string message) { throw Error(ErrorKind::invalid_input, std::move(message)); }

int digit_value(char c, unsigned base) noexcept {
    int v = -1;
    if (c >= '0' && c <= '9') v = c - '0';
    else if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') v = c - 'A' + 10;
    return v >= 0 && static_cast<unsigned>(v) < base ? v : -1;
}

}  // namespace

U256 U256::parse(std::string_view text) {
    unsigned base = 10;
    std::string_view digits = text;
    if (digits.size() >= 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
        base = 16;
        digits.remove_prefix(2);
    }
    if (digits.empty()) fail("integer: empty string \"" + std::string(text) + "\"");
    U256 out;
    for (char c : digits) {
        int d = digit_value(c, base);
        if (d < 0) fail("integer: bad digit in \"" + std::string(text) + "\"");
        // Multiply-accumulate limb by limb; a carry out of the top limb is overflow.
        std::uint64_t carry = static_cast<std::uint64_t>(d);
        for (auto& limb : out.limbs_) {
            u128 t = static_cast<u128>(limb) * base + carry;
            limb = static_cast<std::uint64_t>(t);
            carry = static_cast<std::uint64_t>(t >> 64);
        }
        if (carry != 0) fail("integer: \"" + std::string(text) + "\" exceeds 2^256-1");
    }
    return out;
}

U256 U256::from_be_bytes(ByteView bytes) {
    if (bytes.size() > 32) fail("integer: " + std::to_string(bytes.size()) + " bytes exceed 32");
    U256 out;
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        std::size_t bit = (bytes.size() - 1 - i) * 8;  // position of this byte's lowest bit
        out.limbs_[bit / 64] |= static_cast<std::uint64_t>(bytes[i]) << (bit % 64);
    }
    return out;
}

std::array<std::uint8_t, 32> U256::to_be_bytes32() const noexcept {
    std::array<std::uint8_t, 32> out{};
    for (std::size_t i = 0; i < 32; ++i) {
        std::size_t bit = (31 - i) * 8;
        out[i] = static_cast<std::uint8_t>(limbs_[bit / 64] >> (bit % 64));
    }
    return out;
}

Bytes U256::to_be_bytes_trimmed() const {
    auto full = to_be_bytes32();
    auto first = std::find_if(full.begin(), full.end(), [](std::uint8_t b) { return b != 0; });
    return Bytes(first, full.end());
}

std::string U256::to_dec() const {
    if (is_zero()) return "0";
    // Peel off 19 decimal digits at a time (10^19 is the largest power of ten below 2^64).
    constexpr std::uint64_t chunk = 10'000'000'000'000'000'000ull;
    std::string out;
    U256 rest = *this;
    while (!rest.is_zero()) {
        std::uint64_t rem = 0;
        for (std::size_t i = 4; i-- > 0;) {
            u128 cur = (static_cast<u128>(rem) << 64) | rest.limbs_[i];
            rest.limbs_[i] = static_cast<std::uint64_t>(cur / chunk);
            rem = static_cast<std::uint64_t>(cur % chunk);
        }
        for (int d = 0; d < 19 && (rem != 0 || !rest.is_zero()); ++d) {
            out += static_cast<char>('0' + rem % 10);
            rem /= 10;
        }
    }
    std::reverse(out.begin(), out.end());
    return out;
}

std::string U256::to_hex() const {
    std::string hex = eth::to_hex(to_be_bytes_trimmed(), false);
    if (hex.empty()) return "0x0";
    if (hex[0] == '0') hex.erase(0, 1);  // the trimmed bytes may still start with a zero nibble
    return "0x" + hex;
}

std::uint64_t U256::to_u64() const {
    if (!fits_u64()) fail("integer: " + to_dec() + " does not fit in 64 bits");
    return limbs_[0];
}

U256 operator+(const U256& a, const U256& b) noexcept {
    U256 out;
    u128 carry = 0;
    for (std::size_t i = 0; i < 4; ++i) {
        u128 t = static_cast<u128>(a.limbs_[i]) + b.limbs_[i] + carry;
        out.limbs_[i] = static_cast<std::uint64_t>(t);
        carry = t >> 64;
    }
    return out;
}

U256 operator-(const U256& a, const U256& b) noexcept {
    U256 out;
    std::uint64_t borrow = 0;
    for (std::size_t i = 0; i < 4; ++i) {
        std::uint64_t d = a.limbs_[i] - b.limbs_[i];
        std::uint64_t next_borrow = (a.limbs_[i] < b.limbs_[i]) || (d < borrow);
        out.limbs_[i] = d - borrow;
        borrow = next_borrow;
    }
    return out;
}

U256 operator*(const U256& a, const U256& b) noexcept {
    U256 out;
    for (std::size_t i = 0; i < 4; ++i) {
        std::uint64_t carry = 0;
        for (std::size_t j = 0; i + j < 4; ++j) {
            u128 t = static_cast<u128>(a.limbs_[i]) * b.limbs_[j] + out.limbs_[i + j] + carry;
            out.limbs_[i + j] = static_cast<std::uint64_t>(t);
            carry = static_cast<std::uint64_t>(t >> 64);
        }
    }
    return out;
}

namespace {

// Bit-at-a-time long division: at most 256 iterations, plenty for the few
// divisions per request (fee maths, decimal printing uses a faster path).
std::pair<U256, U256> divmod(const U256& a, const U256& b) {
    if (b.is_zero()) fail("integer: division by zero");
    if (a < b) return {U256{}, a};
    U256 quotient;
    U256 remainder;
    for (unsigned i = 256; i-- > 0;) {
        // A remainder whose top bit shifts out is certainly >= b; the wrapping subtraction stays exact.
        bool carried = remainder.bit(255);
        remainder = (remainder << 1) + U256{a.bit(i) ? 1u : 0u};
        if (carried || remainder >= b) {
            remainder = remainder - b;
            quotient = quotient + (U256{1} << i);
        }
    }
    return {quotient, remainder};
}

}  // namespace

U256 operator/(const U256& a, const U256& b) { return divmod(a, b).first; }
U256 operator%(const U256& a, const U256& b) { return divmod(a, b).second; }

U256 operator<<(const U256& a, unsigned shift) noexcept {
    U256 out;
    if (shift >= 256) return out;
    std::size_t limb_shift = shift / 64;
    unsigned bit_shift = shift % 64;
    for (std::size_t i = 4; i-- > limb_shift;) {
        std::size_t src = i - limb_shift;
        out.limbs_[i] = a.limbs_[src] << bit_shift;
        if (bit_shift != 0 && src > 0) out.limbs_[i] |= a.limbs_[src - 1] >> (64 - bit_shift);
    }
    return out;
}

U256 operator>>(const U256& a, unsigned shift) noexcept {
    U256 out;
    if (shift >= 256) return out;
    std::size_t limb_shift = shift / 64;
    unsigned bit_shift = shift % 64;
    for (std::size_t i = 0; i + limb_shift < 4; ++i) {
        std::size_t src = i + limb_shift;
        out.limbs_[i] = a.limbs_[src] >> bit_shift;
        if (bit_shift != 0 && src + 1 < 4) out.limbs_[i] |= a.limbs_[src + 1] << (64 - bit_shift);
    }
    return out;
}

std::strong_ordering operator<=>(const U256& a, const U256& b) noexcept {
    for (std::size_t i = 4; i-- > 0;) {
        if (a.limbs_[i] != b.limbs_[i]) return a.limbs_[i] <=> b.limbs_[i];
    }
    return std::strong_ordering::equal;
}

}  // namespace abci::eth
