#include "core/crypto/encoding.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/eth/wipe.hpp"

namespace abci::crypto {
namespace {

constexpr std::string_view kStandardAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr std::string_view kUrlAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

// Character → 6-bit value, or -1 for characters outside the alphabet.
using DecodeTable = std::array<std::int8_t, 256>;

constexpr DecodeTable decode_table(std::string_view alphabet) {
    DecodeTable table{};
    table.fill(-1);
    for (std::size_t i = 0; i < alphabet.size(); ++i)
        table[static_cast<unsigned char>(alphabet[i])] = static_cast<std::int8_t>(i);
    return table;
}

constexpr DecodeTable kStandardTable = decode_table(kStandardAlphabet);
constexpr DecodeTable kUrlTable = decode_table(kUrlAlphabet);

std::string encode(eth::ByteView data, std::string_view alphabet, bool pad) {
    std::string out;
    out.reserve((data.size() + 2) / 3 * 4);
    for (std::size_t i = 0; i < data.size(); i += 3) {
        const std::size_t n = std::min<std::size_t>(3, data.size() - i);
        std::uint32_t group = std::uint32_t{data[i]} << 16;
        if (n > 1) group |= std::uint32_t{data[i + 1]} << 8;
        if (n > 2) group |= data[i + 2];
        // n input bytes fill n + 1 output characters; the rest is padding.
        for (std::size_t k = 0; k <= n; ++k) out.push_back(alphabet[(group >> (18 - 6 * k)) & 0x3f]);
        if (pad) out.append(3 - n, '=');
    }
    return out;
}

// Decodes unpadded text; `name` names the encoding in error messages.
eth::Bytes decode_unpadded(std::string_view text, const DecodeTable& table, std::string_view name) {
    // A single character in the last group carries only 6 bits: never a whole byte.
    if (text.size() % 4 == 1) throw Error(ErrorKind::invalid_input, fmt::format("{}: invalid length", name));
    eth::Bytes out;
    out.reserve(text.size() * 3 / 4);
    std::uint32_t bits = 0;
    int pending = 0;  // bits in `bits` not yet emitted
    for (std::size_t i = 0; i < text.size(); ++i) {
        const std::int8_t value = table[static_cast<unsigned char>(text[i])];
        if (value < 0) throw Error(ErrorKind::invalid_input, fmt::format("{}: invalid character at offset {}", name, i));
        bits = (bits << 6) | static_cast<std::uint32_t>(value);
        pending += 6;
        if (pending >= 8) {
            pending -= 8;
            out.push_back(static_cast<std::uint8_t>(bits >> pending));
            bits &= (1u << pending) - 1;
        }
    }
    // Leftover bits must be zero, so each byte string has exactly one encoding.
    if (bits != 0) throw Error(ErrorKind::invalid_input, fmt::format("{}: non-canonical trailing bits", name));
    return out;
}

}  // namespace

eth::Bytes random_bytes(std::size_t n) {
    eth::Bytes out(n);
    if (n > 0 && RAND_bytes(out.data(), static_cast<int>(n)) != 1)
        throw Error(ErrorKind::internal, "the random number generator failed");
    return out;
}

std::string random_token(std::size_t n) {
    eth::Bytes raw = random_bytes(n);
    const eth::WipeOnExit wipe(raw);
    return base64url_encode(raw);
}

std::string random_uuid() {
    eth::Bytes b = random_bytes(16);
    b[6] = static_cast<std::uint8_t>((b[6] & 0x0f) | 0x40);  // version 4
    b[8] = static_cast<std::uint8_t>((b[8] & 0x3f) | 0x80);  // variant 10 (RFC 9562)
    const std::string hex = eth::to_hex(b, false);
    return fmt::format("{}-{}-{}-{}-{}", hex.substr(0, 8), hex.substr(8, 4), hex.substr(12, 4), hex.substr(16, 4),
                       hex.substr(20));
}

std::array<std::uint8_t, 32> sha256(eth::ByteView data) {
    std::array<std::uint8_t, 32> out{};
    unsigned int len = 0;
    if (EVP_Digest(data.data(), data.size(), out.data(), &len, EVP_sha256(), nullptr) != 1 || len != out.size())
        throw Error(ErrorKind::internal, "SHA-256 failed");
    return out;
}

std::string sha256_hex(std::string_view data) { return eth::to_hex(sha256(eth::as_bytes(data)), false); }

std::array<std::uint8_t, 32> hmac_sha256(eth::ByteView key, eth::ByteView data) {
    std::array<std::uint8_t, 32> out{};
    unsigned int len = 0;
    // OpenSSL reads a null key as "no key given", not as an empty one.
    static const std::uint8_t empty = 0;
    const std::uint8_t* key_ptr = key.empty() ? &empty : key.data();
    if (HMAC(EVP_sha256(), key_ptr, static_cast<int>(key.size()), data.data(), data.size(), out.data(), &len) ==
            nullptr ||
        len != out.size())
        throw Error(ErrorKind::internal, "HMAC-SHA256 failed");
    return out;
}

std::string base64url_encode(eth::ByteView data) { return encode(data, kUrlAlphabet, false); }

eth::Bytes base64url_decode(std::string_view text) { return decode_unpadded(text, kUrlTable, "base64url"); }

std::string base64_encode(eth::ByteView data) { return encode(data, kStandardAlphabet, true); }

eth::Bytes base64_decode(std::string_view text) {
    if (text.size() % 4 != 0) throw Error(ErrorKind::invalid_input, "base64: length is not a multiple of 4");
    std::size_t padding = 0;
    while (padding < 2 && padding < text.size() && text[text.size() - 1 - padding] == '=') ++padding;
    // Any '=' left (a third one, or one inside) is rejected as a bad character.
    return decode_unpadded(text.substr(0, text.size() - padding), kStandardTable, "base64");
}

bool constant_time_equal(eth::ByteView a, eth::ByteView b) noexcept {
    if (a.size() != b.size()) return false;
    return a.empty() || CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace abci::crypto
