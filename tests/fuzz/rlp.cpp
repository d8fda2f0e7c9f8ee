// RLP decoding (core/eth/rlp): strict, so whatever it accepts re-encodes to
// exactly the input.
// fuzz-max-len: 4096

#include "core/eth/rlp.hpp"
#include "fuzz.hpp"

namespace {

using namespace abci;

eth::Bytes reencode(const eth::rlp::Item& item) {
    if (!item.is_list) return eth::rlp::encode_bytes(item.bytes);
    eth::rlp::ListBuilder list;
    for (const auto& child : item.items) list.add_encoded(reencode(child));
    return list.build();
}

void read_uints(const eth::rlp::Item& item) {
    if (item.is_list) {
        for (const auto& child : item.items) read_uints(child);
        return;
    }
    (void)fuzz::accepts({ErrorKind::invalid_input}, [&] { (void)item.as_uint(); });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const eth::ByteView input(data, size);
    eth::rlp::Item item;
    if (!fuzz::accepts({ErrorKind::invalid_input}, [&] { item = eth::rlp::decode(input); })) return 0;
    const auto again = reencode(item);
    fuzz::require(again.size() == size && std::equal(again.begin(), again.end(), data), "decode then encode is the input");
    read_uints(item);
    return 0;
}
