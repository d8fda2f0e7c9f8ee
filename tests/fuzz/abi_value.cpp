// ABI values from text (core/eth/abi parse_value), as `abcictl call` and the
// cast-compatible commands read a user's arguments. The input is
// "type\ntext". A refusal is invalid_input; a value that parses encodes,
// decodes to itself and formats; without strings (whose quotes and escapes
// are not symmetric by design) its formatted text parses back to it.
// fuzz-max-len: 4096

#include <vector>

#include "core/eth/abi.hpp"
#include "fuzz.hpp"

using namespace abci;
namespace abi = abci::eth::abi;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto input = fuzz::text(data, size);
    const auto newline = input.find('\n');
    if (newline == std::string_view::npos) return 0;
    abi::Type type;
    if (!fuzz::accepts({ErrorKind::invalid_input}, [&] { type = abi::parse_type(input.substr(0, newline)); }))
        return 0;
    abi::Value value;
    if (!fuzz::accepts({ErrorKind::invalid_input}, [&] { value = abi::parse_value(type, input.substr(newline + 1)); }))
        return 0;
    const std::vector<abi::Type> types{type};
    const std::vector<abi::Value> values{value};
    fuzz::require(abi::decode(types, abi::encode(types, values)) == values, "a parsed value encodes and decodes to itself");
    const auto text = abi::format_value(type, value);
    if (type.canonical().find("string") == std::string::npos)
        fuzz::require(abi::parse_value(type, text) == value, "a formatted value parses back to itself");
    return 0;
}
