// ABI decoding (core/eth/abi) of return data, logs and revert data, which any
// contract or node controls. The input is "types\ndata": a type list for
// parse_types and the bytes to decode by it; without a newline, the whole
// input is a signature for Signature::parse. Whatever decodes must format,
// re-encode to a prefix-identical form and decode again to the same values.
// fuzz-max-len: 8192

#include <string>

#include "core/eth/abi.hpp"
#include "fuzz.hpp"

using namespace abci;
namespace abi = abci::eth::abi;

namespace {

// Custom errors as a contract's JSON ABI declares them, for decode_revert.
const std::vector<abi::Signature>& known_errors() {
    static const std::vector<abi::Signature> errors{
        abi::Signature::parse("RoleTokenAlreadyHeld(address account, uint256 id)"),
        abi::Signature::parse("Mixed(bytes b, string s, (uint8,bool[])[2] t, int64[] n)")};
    return errors;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto input = fuzz::text(data, size);
    const auto newline = input.find('\n');
    if (newline == std::string_view::npos) {
        abi::Signature signature;
        if (fuzz::accepts({ErrorKind::invalid_input}, [&] { signature = abi::Signature::parse(input); })) {
            abi::Signature again;
            fuzz::require(fuzz::accepts({ErrorKind::invalid_input},
                                        [&] { again = abi::Signature::parse(signature.canonical()); }) &&
                              again.canonical() == signature.canonical(),
                          "a canonical signature parses to itself");
        }
        return 0;
    }
    const eth::ByteView bytes(data + newline + 1, size - newline - 1);
    // Never throws, whatever the data.
    (void)abi::decode_revert(bytes, known_errors());

    std::vector<abi::Type> types;
    if (!fuzz::accepts({ErrorKind::invalid_input}, [&] { types = abi::parse_types(input.substr(0, newline)); }))
        return 0;
    std::vector<abi::Value> values;
    if (!fuzz::accepts({ErrorKind::invalid_input}, [&] { values = abi::decode(types, bytes); })) return 0;
    fuzz::require(values.size() == types.size(), "one value per type");
    for (std::size_t i = 0; i < types.size(); ++i) (void)abi::format_value(types[i], values[i]);
    // Decoding allows trailing bytes and any offsets; the canonical encoding
    // of the values decodes to the same values.
    const auto encoded = abi::encode(types, values);
    fuzz::require(abi::decode(types, encoded) == values, "encode then decode gives the values");
    return 0;
}
