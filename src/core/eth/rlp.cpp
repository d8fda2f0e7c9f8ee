#include "core/eth/rlp.hpp"

#include "core/error.hpp"

namespace abci::eth::rlp {
namespace {

constexpr std::uint8_t string_offset = 0x80;
constexpr std::uint8_t list_offset = 0xc0;
constexpr std::size_t short_limit = 56;  // payloads shorter than this use the one-byte header

[[noreturn]] void fail(const std::string& problem) { throw Error(ErrorKind::invalid_input, "rlp: " + problem); }

/// Appends the header of a payload of `length` bytes; `offset` is 0x80 for strings, 0xc0 for lists.
void append_header(Bytes& out, std::size_t length, std::uint8_t offset) {
    if (length < short_limit) {
        out.push_back(static_cast<std::uint8_t>(offset + length));
        return;
    }
    Bytes len = U256(length).to_be_bytes_trimmed();
    out.push_back(static_cast<std::uint8_t>(offset + short_limit - 1 + len.size()));
    out.insert(out.end(), len.begin(), len.end());
}

Bytes with_header(ByteView payload, std::uint8_t offset) {
    Bytes out;
    out.reserve(payload.size() + 9);
    append_header(out, payload.size(), offset);
    out.insert(out.end(), payload.begin(), payload.end());
    return out;
}

/// Where an item's payload lies within its encoding, and whether it is a list.
struct Header {
    bool is_list = false;
    std::size_t header_size = 0;
    std::size_t payload_size = 0;
};

/// Reads the header at the start of `in`, checking canonical form and that the
/// payload fits in `in` (never reads past it).
Header read_header(ByteView in) {
    if (in.empty()) fail("unexpected end of input");
    const std::uint8_t lead = in[0];
    if (lead < string_offset) return {false, 0, 1};  // the byte is its own encoding

    const bool is_list = lead >= list_offset;
    const std::uint8_t kind_base = is_list ? list_offset : string_offset;
    const std::size_t short_len = lead - kind_base;
    Header h{is_list, 1, short_len};
    if (short_len >= short_limit) {
        const std::size_t len_of_len = short_len - (short_limit - 1);
        if (in.size() < 1 + len_of_len) fail("truncated length prefix");
        if (in[1] == 0) fail("length prefix has a leading zero");
        if (len_of_len > sizeof(std::size_t)) fail("length exceeds addressable size");
        std::size_t length = 0;
        for (std::size_t i = 0; i < len_of_len; ++i) length = length << 8 | in[1 + i];
        if (length < short_limit) fail("long form used for a payload shorter than 56 bytes");
        h = {is_list, 1 + len_of_len, length};
    }
    if (h.payload_size > in.size() - h.header_size) fail("payload runs past the end of input");
    if (!is_list && h.header_size == 1 && h.payload_size == 1 && in[1] < string_offset)
        fail("single byte below 0x80 must be encoded as itself");
    return h;
}

/// Decodes the item at the start of `in`; `consumed` receives its full encoded size.
Item decode_prefix(ByteView in, std::size_t& consumed, unsigned depth) {
    // Nesting is bounded so hostile input cannot exhaust the stack.
    constexpr unsigned max_depth = 256;
    if (depth > max_depth) fail("nesting deeper than 256 lists");
    Header h = read_header(in);
    consumed = h.header_size + h.payload_size;
    ByteView payload = in.subspan(h.header_size, h.payload_size);
    Item item;
    item.is_list = h.is_list;
    if (!h.is_list) {
        item.bytes.assign(payload.begin(), payload.end());
        return item;
    }
    while (!payload.empty()) {
        std::size_t used = 0;
        item.items.push_back(decode_prefix(payload, used, depth + 1));
        payload = payload.subspan(used);
    }
    return item;
}

}  // namespace

Bytes encode_bytes(ByteView data) {
    if (data.size() == 1 && data[0] < string_offset) return Bytes{data[0]};
    return with_header(data, string_offset);
}

Bytes encode_uint(const U256& value) { return encode_bytes(value.to_be_bytes_trimmed()); }

Bytes encode_list(const std::vector<Bytes>& encoded_items) {
    ListBuilder builder;
    for (const auto& item : encoded_items) builder.add_encoded(item);
    return builder.build();
}

ListBuilder& ListBuilder::add_bytes(ByteView data) { return add_encoded(encode_bytes(data)); }

ListBuilder& ListBuilder::add_uint(const U256& value) { return add_encoded(encode_uint(value)); }

ListBuilder& ListBuilder::add_encoded(ByteView encoded) {
    payload_.insert(payload_.end(), encoded.begin(), encoded.end());
    return *this;
}

Bytes ListBuilder::build() const { return with_header(payload_, list_offset); }

U256 Item::as_uint() const {
    if (is_list) fail("expected an integer, found a list");
    if (!bytes.empty() && bytes[0] == 0) fail("integer has leading zero bytes");
    if (bytes.size() > 32) fail("integer longer than 32 bytes");
    return U256::from_be_bytes(bytes);
}

Item decode(ByteView encoded) {
    std::size_t consumed = 0;
    Item item = decode_prefix(encoded, consumed, 0);
    if (consumed != encoded.size()) fail("trailing bytes after the item");
    return item;
}

}  // namespace abci::eth::rlp
