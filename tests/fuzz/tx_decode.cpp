// Raw signed transactions (core/eth/tx decode_transaction): what it accepts
// is exactly what signing its fields gives, byte for byte.
// fuzz-max-len: 4096

#include <algorithm>

#include "core/eth/keccak.hpp"
#include "core/eth/tx.hpp"
#include "fuzz.hpp"

using namespace abci;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    eth::SignedTransaction tx;
    if (!fuzz::accepts({ErrorKind::invalid_input}, [&] { tx = eth::decode_transaction(eth::ByteView(data, size)); }))
        return 0;
    fuzz::require(tx.raw.size() == size && std::equal(tx.raw.begin(), tx.raw.end(), data), "raw is the input");
    fuzz::require(tx.hash == eth::keccak256(tx.raw), "the hash is keccak256 of raw");
    fuzz::require(eth::recover_address(tx.tx.signing_hash(), tx.signature) == tx.from, "from signed it");
    return 0;
}
