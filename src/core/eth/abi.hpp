#pragma once
// Solidity contract ABI: types, values, encoding and strict decoding, function
// selectors, event topics and revert reasons.
// https://docs.soliditylang.org/en/latest/abi-spec.html
//
// Decoding treats its input as hostile (return data and logs come from any
// contract or node): every offset and length is bounds-checked, padding of
// static types must be canonical, and the work done is bounded by the input's
// size, so a malformed buffer yields Error(invalid_input), never a read out of
// bounds or a runaway allocation.

#include <array>
#include <concepts>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/eth/address.hpp"
#include "core/eth/bytes.hpp"
#include "core/eth/u256.hpp"

namespace abci::eth::abi {

/// An ABI type, e.g. uint256, bytes32, (address,uint8)[2][].
struct Type {
    enum class Kind { uint, sint, address, boolean, fixed_bytes, bytes, string, array, fixed_array, tuple };

    Kind kind = Kind::uint;
    /// Bits for uint/sint (8..256, multiple of 8), bytes for fixed_bytes (1..32),
    /// element count for fixed_array; unused otherwise.
    std::size_t size = 256;
    /// The element type (exactly one) for array and fixed_array; the members for tuple.
    std::vector<Type> components;

    /// Canonical form used in signatures: "uint256", "(address,bytes)[]".
    [[nodiscard]] std::string canonical() const;
    /// True for bytes, string, T[], and fixed arrays/tuples containing a dynamic type.
    [[nodiscard]] bool is_dynamic() const;
    friend bool operator==(const Type&, const Type&) = default;
};

/// Parses one type: uintN/intN (N = 8..256 step 8; bare "uint"/"int" mean 256),
/// address, bool, bytesN (1..32), bytes, string, T[], T[k], (T1,T2,...), nested
/// to a bounded depth. Whitespace around the type is ignored. Throws Error(invalid_input).
[[nodiscard]] Type parse_type(std::string_view text);
/// Parses a comma-separated list, e.g. "uint256,address[]"; "" is the empty list.
[[nodiscard]] std::vector<Type> parse_types(std::string_view text);

/// A value of some ABI type. The type is not stored: callers pair values with
/// types, and encode/decode check that they agree.
///  - uint and sint → U256 (sint as 256-bit two's complement: -1 is 2^256-1)
///  - address → Address;  bool → bool
///  - bytes and bytesN → Bytes (exactly N bytes for bytesN);  string → std::string
///  - arrays and tuples → List
class Value {
public:
    using List = std::vector<Value>;

    Value() : data_(U256{}) {}
    Value(U256 v) : data_(v) {}                     // NOLINT: implicit by design, as for every alternative
    Value(Address v) : data_(v) {}                  // NOLINT
    Value(Bytes v) : data_(std::move(v)) {}         // NOLINT
    Value(std::string v) : data_(std::move(v)) {}   // NOLINT
    Value(const char* v) : data_(std::string(v)) {} // NOLINT
    Value(List v) : data_(std::move(v)) {}          // NOLINT
    /// Any integer; a negative one becomes its 256-bit two's complement (for intN).
    /// A template so that a literal 0 is an integer, not a null `const char*`.
    template <std::integral I>
        requires(!std::same_as<I, bool>)
    Value(I v) : data_(std::is_signed_v<I> ? from_int(static_cast<std::int64_t>(v)).as_uint()  // NOLINT
                                            : U256{static_cast<std::uint64_t>(v)}) {}
    /// Only a real bool becomes a bool value (an int must not silently do so).
    template <std::same_as<bool> B>
    Value(B v) : data_(v) {}  // NOLINT

    /// A signed integer in two's complement, for sint types.
    [[nodiscard]] static Value from_int(std::int64_t v);

    // Each accessor throws Error(invalid_input) when the value holds another alternative.
    [[nodiscard]] const U256& as_uint() const;
    [[nodiscard]] const Address& as_address() const;
    [[nodiscard]] bool as_bool() const;
    [[nodiscard]] const Bytes& as_bytes() const;
    [[nodiscard]] const std::string& as_string() const;
    [[nodiscard]] const List& as_list() const;

    friend bool operator==(const Value&, const Value&) = default;

private:
    std::variant<U256, Address, bool, Bytes, std::string, List> data_;
};

/// Encodes `values` as the tuple of `types` (a call's arguments, a return value).
/// Throws Error(invalid_input) when the counts differ or a value does not fit
/// its type (wrong alternative, out of range, wrong bytesN or fixed-array length).
[[nodiscard]] Bytes encode(std::span<const Type> types, std::span<const Value> values);

/// Decodes `data` as the tuple of `types`. Trailing bytes after the encoded
/// data are allowed (as Solidity allows them); everything else is checked.
/// Throws Error(invalid_input) on any malformed input.
[[nodiscard]] std::vector<Value> decode(std::span<const Type> types, ByteView data);

/// Parses a value from text as `cast abi-encode` accepts it: decimal or 0x-hex
/// integers (intN may start with '-'), "true"/"false", addresses (EIP-55 rules
/// of Address::parse), 0x-hex for bytes/bytesN, strings (surrounding double quotes
/// are removed), [a,b,...] for arrays and (a,b,...) for tuples, nesting allowed and
/// quoted strings may contain commas and brackets. Throws Error(invalid_input).
[[nodiscard]] Value parse_value(const Type& type, std::string_view text);

/// Renders a value as `cast abi-decode` prints it: decimal integers (signed for
/// intN), checksummed addresses, true/false, 0x-hex bytes, double-quoted
/// escaped strings, "[a, b]" arrays and "(a, b)" tuples.
/// Throws Error(invalid_input) when the value does not match the type.
[[nodiscard]] std::string format_value(const Type& type, const Value& value);

using Selector = std::array<std::uint8_t, 4>;

/// One parameter of a function, event or error signature.
struct Param {
    Type type;
    std::string name;      // may be empty
    bool indexed = false;  // events only
};

/// A function, event or error signature, e.g. "mint(address,uint256,uint256,bytes)",
/// "balanceOf(address)(uint256)" (cast's form with outputs), "f(uint256 a) returns (bool)",
/// or "TransferSingle(address indexed operator, address indexed from, ...)".
struct Signature {
    std::string name;
    std::vector<Param> inputs;
    std::vector<Type> outputs;

    /// Throws Error(invalid_input) on a malformed signature.
    [[nodiscard]] static Signature parse(std::string_view text);
    /// "name(type1,type2)" without names, spaces or outputs: what selectors and topics hash.
    [[nodiscard]] std::string canonical() const;
    [[nodiscard]] std::vector<Type> input_types() const;
    /// First 4 bytes of keccak256(canonical()).
    [[nodiscard]] Selector selector() const;
    /// keccak256(canonical()): an event's topic 0.
    [[nodiscard]] Hash32 topic() const;
};

/// Selector of a signature given as text (it is canonicalised first).
[[nodiscard]] Selector selector(std::string_view signature);
/// Topic 0 of an event signature given as text.
[[nodiscard]] Hash32 event_topic(std::string_view signature);
/// Calldata: selector followed by the encoded arguments.
[[nodiscard]] Bytes encode_call(std::string_view signature, std::span<const Value> args);
/// Decodes a call's return data by the signature's outputs ("version()(string)").
[[nodiscard]] std::vector<Value> decode_output(std::string_view signature, ByteView data);

/// Decodes a log of `event` into all its parameters in declaration order:
/// indexed ones from topics[1..] (a dynamic or composite indexed parameter is
/// only its keccak hash there, returned as 32 Bytes), the others from `data`.
/// Anonymous events are not supported. Throws Error(invalid_input) when topic 0
/// is not the event's, the topic count is wrong, or anything fails to decode.
[[nodiscard]] std::vector<Value> decode_event(const Signature& event, std::span<const Hash32> topics,
                                              ByteView data);

/// A decoded revert reason.
struct Revert {
    /// "Error", "Panic", the custom error's name, or empty when there was no data
    /// or the selector is unknown.
    std::string name;
    std::vector<Value> args;
    /// For people: Error(string) → the reason itself; Panic → "Panic(0x11): arithmetic
    /// underflow or overflow"; custom → "RoleTokenAlreadyHeld(0x5aAe…, 10000)";
    /// unknown selector or undecodable data → its 0x-hex; empty → "execution reverted without data".
    std::string message;
};

/// Decodes revert data, knowing the custom errors in `errors`. Never throws for bad data.
[[nodiscard]] Revert decode_revert(ByteView data, std::span<const Signature> errors = {});

/// The custom errors declared in a contract's JSON ABI (entries with "type": "error").
/// Throws Error(invalid_input) when an error entry is malformed.
[[nodiscard]] std::vector<Signature> errors_from_json_abi(const nlohmann::json& abi);

/// What a Solidity panic code means, e.g. 0x11 → "arithmetic underflow or overflow".
[[nodiscard]] std::string panic_meaning(const U256& code);

}  // namespace abci::eth::abi
