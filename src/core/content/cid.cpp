#include "core/content/cid.hpp"

#include <algorithm>
#include <array>

#include "core/crypto/encoding.hpp"
#include "core/error.hpp"

namespace abci::content {
namespace {

constexpr std::string_view kAlphabet = "abcdefghijklmnopqrstuvwxyz234567";
constexpr std::uint8_t kCidVersion = 0x01;
constexpr std::uint8_t kSha2_256 = 0x12;
constexpr std::uint8_t kDigestSize = 32;
constexpr std::size_t kHeaderSize = 4;  // version, codec, hash code, digest size: each a one-byte varint
constexpr char kMultibaseBase32 = 'b';
// "b" + base32 of the 36-byte binary CID: ceil(36 * 8 / 5) = 58 characters.
constexpr std::size_t kTextSize = 1 + (8 * (kHeaderSize + kDigestSize) + 4) / 5;

std::array<std::uint8_t, kHeaderSize> header(Codec codec) {
    return {kCidVersion, static_cast<std::uint8_t>(codec), kSha2_256, kDigestSize};
}

int base32_value(char c) {
    if (c >= 'a' && c <= 'z') return c - 'a';
    if (c >= '2' && c <= '7') return c - '2' + 26;
    return -1;
}

}  // namespace

std::string base32_encode(eth::ByteView data) {
    std::string out;
    out.reserve((data.size() * 8 + 4) / 5);
    std::uint32_t buffer = 0;
    int bits = 0;
    for (const std::uint8_t byte : data) {
        buffer = (buffer << 8) | byte;
        bits += 8;
        while (bits >= 5) {
            bits -= 5;
            out.push_back(kAlphabet[(buffer >> bits) & 0x1f]);
        }
    }
    if (bits > 0) out.push_back(kAlphabet[(buffer << (5 - bits)) & 0x1f]);
    return out;
}

eth::Bytes base32_decode(std::string_view text) {
    // Lengths 1, 3 and 6 (mod 8) leave a fragment too short to hold a byte.
    const std::size_t rest = text.size() % 8;
    if (rest == 1 || rest == 3 || rest == 6)
        throw Error(ErrorKind::invalid_input,
                    "base32: no byte count encodes to " + std::to_string(text.size()) + " characters");
    eth::Bytes out;
    out.reserve(text.size() * 5 / 8);
    std::uint32_t buffer = 0;
    int bits = 0;
    for (const char c : text) {
        const int value = base32_value(c);
        if (value < 0) throw Error(ErrorKind::invalid_input, "base32: a character outside a-z and 2-7");
        buffer = (buffer << 5) | static_cast<std::uint32_t>(value);
        bits += 5;
        if (bits >= 8) {
            bits -= 8;
            out.push_back(static_cast<std::uint8_t>(buffer >> bits));
        }
        buffer &= (1u << bits) - 1;
    }
    // Non-zero leftover bits would let two texts decode to the same bytes.
    if (buffer != 0) throw Error(ErrorKind::invalid_input, "base32: non-zero trailing bits (not canonical)");
    return out;
}

Cid Cid::of(eth::ByteView data) { return Cid(Codec::raw, crypto::sha256(data)); }

Cid Cid::parse(std::string_view text) {
    if (text.size() != kTextSize || text.front() != kMultibaseBase32)
        throw Error(ErrorKind::invalid_input,
                    "not a CID: expected \"b\" and 58 base32 characters (a CIDv1 of raw content, sha2-256)");
    const eth::Bytes binary = base32_decode(text.substr(1));
    const auto expected = header(Codec::raw);
    if (!std::equal(expected.begin(), expected.end(), binary.begin()))
        throw Error(ErrorKind::invalid_input, "not a raw-codec CIDv1 with a sha2-256 multihash");
    eth::Hash32 digest{};
    std::copy(binary.begin() + kHeaderSize, binary.end(), digest.begin());
    return Cid(Codec::raw, digest);
}

eth::Bytes Cid::bytes() const {
    eth::Bytes out(kHeaderSize + kDigestSize);
    const auto prefix = header(codec_);
    std::copy(digest_.begin(), digest_.end(), std::copy(prefix.begin(), prefix.end(), out.begin()));
    return out;
}

std::string Cid::to_string() const { return kMultibaseBase32 + base32_encode(bytes()); }

std::string Cid::uri() const { return "ipfs://" + to_string(); }

}  // namespace abci::content
