#pragma once
// Content identifiers (CIDs) of what abcictl stores: CIDv1 over a sha2-256
// multihash, written in multibase base32 ("b" + RFC 4648 lower case, no
// padding). With the raw codec this is exactly what `ipfs add
// --cid-version=1` (raw leaves) answers for content of one chunk, so a CID we
// compute names the same bytes on any IPFS node.

#include <cstdint>
#include <string>
#include <string_view>

#include "core/eth/bytes.hpp"

namespace abci::content {

/// Multicodec codes (https://github.com/multiformats/multicodec).
enum class Codec : std::uint8_t {
    raw = 0x55,     // the bytes themselves: the codec of everything we store
    dag_pb = 0x70,  // a UnixFS node: only for cross-checking our encoding against dag-pb CIDs
};

/// RFC 4648 base32, lower-case alphabet, no padding.
[[nodiscard]] std::string base32_encode(eth::ByteView data);
/// Strict inverse of base32_encode: only "a-z2-7", no padding, a length that
/// some byte count encodes to, zero trailing bits. Error(invalid_input) otherwise.
[[nodiscard]] eth::Bytes base32_decode(std::string_view text);

/// A CIDv1 with a sha2-256 multihash. Equal CIDs name equal content.
class Cid {
public:
    /// The raw-codec CID of `data`: the only kind abcictl stores and serves.
    [[nodiscard]] static Cid of(eth::ByteView data);

    /// The CID of a block of codec `codec` whose sha2-256 digest is `digest`.
    Cid(Codec codec, const eth::Hash32& digest) noexcept : codec_(codec), digest_(digest) {}

    /// Parses the text form of a raw-codec CID, and only that, strictly: "b",
    /// then exactly 58 characters of lower-case base32 decoding (canonically)
    /// to 0x01 0x55 0x12 0x20 and a 32-byte digest. Anything else, including
    /// CIDv0 ("Qm…"), other multibases, upper case, other codecs or hashes,
    /// and path-like text, is Error(invalid_input). Safe to call on untrusted
    /// input (a URL path segment): a string it accepts has only [a-z2-7].
    [[nodiscard]] static Cid parse(std::string_view text);

    [[nodiscard]] Codec codec() const noexcept { return codec_; }
    /// The sha2-256 digest of the content.
    [[nodiscard]] const eth::Hash32& digest() const noexcept { return digest_; }
    /// The binary CID: version 1, codec, multihash (0x12, 0x20, digest).
    [[nodiscard]] eth::Bytes bytes() const;
    /// "b" + base32 of bytes(), e.g. "bafkrei…" for raw content.
    [[nodiscard]] std::string to_string() const;
    /// "ipfs://" + to_string(): the token metadata URI.
    [[nodiscard]] std::string uri() const;

    friend bool operator==(const Cid&, const Cid&) = default;

private:
    Codec codec_;
    eth::Hash32 digest_;
};

}  // namespace abci::content
