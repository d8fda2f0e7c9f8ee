#pragma once
// Recursive Length Prefix encoding (Ethereum yellow paper, appendix B).
// Decoding is strict: any non-canonical form (a single byte < 0x80 wrapped in
// a string header, a long form used for a short payload, length prefixes with
// leading zeros, trailing bytes, truncated input) is rejected.

#include <cstdint>
#include <vector>

#include "core/eth/bytes.hpp"
#include "core/eth/u256.hpp"

namespace abci::eth::rlp {

/// RLP of a byte string.
[[nodiscard]] Bytes encode_bytes(ByteView data);
/// RLP of an unsigned integer: big-endian without leading zeros (zero is 0x80).
[[nodiscard]] Bytes encode_uint(const U256& value);
/// RLP list whose items are already RLP-encoded; the items are concatenated under a list header.
[[nodiscard]] Bytes encode_list(const std::vector<Bytes>& encoded_items);

/// Builds a list item by item, e.g. the fields of a transaction.
class ListBuilder {
public:
    ListBuilder& add_bytes(ByteView data);
    ListBuilder& add_uint(const U256& value);
    /// Appends an item that is already RLP-encoded (a nested list).
    ListBuilder& add_encoded(ByteView encoded);
    /// The finished list, header included.
    [[nodiscard]] Bytes build() const;

private:
    Bytes payload_;
};

/// A decoded item: either a byte string or a list of items.
struct Item {
    bool is_list = false;
    Bytes bytes;              // the string's bytes when !is_list
    std::vector<Item> items;  // the list's items when is_list

    /// The string item as an integer; rejects lists, leading zeros and more than 32 bytes.
    [[nodiscard]] U256 as_uint() const;
};

/// Decodes exactly one item spanning all of `encoded`. Throws Error(invalid_input)
/// naming the problem on any malformed or non-canonical input.
[[nodiscard]] Item decode(ByteView encoded);

}  // namespace abci::eth::rlp
