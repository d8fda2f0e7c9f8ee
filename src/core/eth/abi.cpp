// The ABI codec in one file, over 500 lines on purpose: the type grammar,
// the encoder, the strict decoder and the revert decoder share the same type
// tree and its recursion; cross-checked against cast in tests/unit/eth.
#include "core/eth/abi.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/eth/keccak.hpp"

namespace abci::eth::abi {
namespace {

using Kind = Type::Kind;
constexpr std::size_t word = 32;
constexpr unsigned max_type_depth = 32;  // nesting of arrays/tuples in one type string

[[noreturn]] void fail(const std::string& problem) { throw Error(ErrorKind::invalid_input, "abi: " + problem); }

const U256 all_ones = U256{0} - U256{1};

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

/// Splits `s` at commas outside (), [] and double quotes. "" gives no parts.
std::vector<std::string_view> split_top_level(std::string_view s) {
    std::vector<std::string_view> parts;
    if (trim(s).empty()) return parts;
    int depth = 0;
    bool quoted = false;
    std::size_t start = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        char c = s[i];
        if (c == '"') quoted = !quoted;
        if (quoted) continue;
        if (c == '(' || c == '[') ++depth;
        if (c == ')' || c == ']') --depth;
        if (depth < 0) fail("unbalanced brackets in \"" + std::string(s) + "\"");
        if (c == ',' && depth == 0) {
            parts.push_back(trim(s.substr(start, i - start)));
            start = i + 1;
        }
    }
    if (depth != 0 || quoted) fail("unbalanced brackets or quotes in \"" + std::string(s) + "\"");
    parts.push_back(trim(s.substr(start)));
    return parts;
}

/// Index of the bracket closing the one at s[open] (same kind), or npos.
std::size_t matching_close(std::string_view s, std::size_t open) {
    int depth = 0;
    for (std::size_t i = open; i < s.size(); ++i) {
        if (s[i] == s[open]) ++depth;
        if (s[i] == (s[open] == '(' ? ')' : ']') && --depth == 0) return i;
    }
    return std::string_view::npos;
}

std::size_t parse_size(std::string_view digits, std::string_view context) {
    if (digits.empty() || digits.size() > 6 || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
        (digits.size() > 1 && digits[0] == '0'))
        fail("bad size in type \"" + std::string(context) + "\"");
    return std::stoul(std::string(digits));
}

Type parse_elementary(std::string_view name) {
    auto sized = [&](std::string_view prefix, Kind kind) -> std::optional<Type> {
        if (!name.starts_with(prefix)) return std::nullopt;
        std::string_view rest = name.substr(prefix.size());
        if (rest.empty()) {
            if (kind == Kind::fixed_bytes) return Type{Kind::bytes, 0, {}};
            return Type{kind, 256, {}};
        }
        std::size_t n = parse_size(rest, name);
        bool ok = kind == Kind::fixed_bytes ? (n >= 1 && n <= 32) : (n >= 8 && n <= 256 && n % 8 == 0);
        if (!ok) fail("unsupported size in type \"" + std::string(name) + "\"");
        return Type{kind, n, {}};
    };
    if (name == "address") return {Kind::address, 0, {}};
    if (name == "bool") return {Kind::boolean, 0, {}};
    if (name == "string") return {Kind::string, 0, {}};
    for (auto [prefix, kind] : {std::pair{"uint", Kind::uint}, {"int", Kind::sint}, {"bytes", Kind::fixed_bytes}})
        if (auto t = sized(prefix, kind)) return *t;
    fail("unknown type \"" + std::string(name) + "\"");
}

Type parse_type_at(std::string_view text, unsigned depth) {
    if (depth > max_type_depth) fail("type nested too deeply");
    text = trim(text);
    if (text.empty()) fail("empty type");
    Type t;
    std::size_t pos = 0;
    if (text[0] == '(') {
        std::size_t close = matching_close(text, 0);
        if (close == std::string_view::npos) fail("unclosed tuple in \"" + std::string(text) + "\"");
        t.kind = Kind::tuple;
        for (auto part : split_top_level(text.substr(1, close - 1))) t.components.push_back(parse_type_at(part, depth + 1));
        pos = close + 1;
    } else {
        pos = std::min(text.find('['), text.size());
        t = parse_elementary(text.substr(0, pos));
    }
    // Array suffixes apply left to right: uint8[2][] is a dynamic array of uint8[2].
    while (pos < text.size()) {
        std::size_t close = text[pos] == '[' ? matching_close(text, pos) : std::string_view::npos;
        if (close == std::string_view::npos) fail("bad array suffix in \"" + std::string(text) + "\"");
        if (++depth > max_type_depth) fail("type nested too deeply");
        std::string_view inner = text.substr(pos + 1, close - pos - 1);
        Type array{inner.empty() ? Kind::array : Kind::fixed_array, inner.empty() ? 0 : parse_size(inner, text), {}};
        array.components.push_back(std::move(t));
        t = std::move(array);
        pos = close + 1;
    }
    return t;
}

/// Bytes a type occupies in the head of its enclosing tuple.
std::size_t head_size(const Type& t) {
    if (t.is_dynamic()) return word;
    if (t.kind == Kind::fixed_array) return t.size * head_size(t.components[0]);
    if (t.kind == Kind::tuple) {
        std::size_t sum = 0;
        for (const auto& c : t.components) sum += head_size(c);
        return sum;
    }
    return word;
}

// ---- static words -------------------------------------------------------------

/// Whether a 32-byte word is the canonical encoding of a value of static elementary type `t`.
bool is_canonical_word(const Type& t, const U256& w) {
    switch (t.kind) {
        case Kind::uint: return t.size == 256 || (w >> static_cast<unsigned>(t.size)).is_zero();
        case Kind::sint: {
            U256 upper = w >> static_cast<unsigned>(t.size - 1);  // sign bit and above must agree
            return upper.is_zero() || upper == (all_ones >> static_cast<unsigned>(t.size - 1));
        }
        case Kind::address: return (w >> 160).is_zero();
        case Kind::boolean: return w <= U256{1};
        case Kind::fixed_bytes: return (w << static_cast<unsigned>(t.size * 8)).is_zero();
        default: return false;
    }
}

std::array<std::uint8_t, word> to_word(const Type& t, const Value& v) {
    U256 w;
    switch (t.kind) {
        case Kind::uint:
        case Kind::sint: w = v.as_uint(); break;
        case Kind::address: w = U256::from_be_bytes(v.as_address().bytes()); break;
        case Kind::boolean: w = U256{v.as_bool() ? 1u : 0u}; break;
        case Kind::fixed_bytes: {
            const Bytes& b = v.as_bytes();
            if (b.size() != t.size) fail(t.canonical() + " needs exactly " + std::to_string(t.size) + " bytes");
            std::array<std::uint8_t, word> out{};
            std::copy(b.begin(), b.end(), out.begin());
            return out;
        }
        default: fail("internal: not a word type");
    }
    if (!is_canonical_word(t, w)) fail("value out of range for " + t.canonical());
    return w.to_be_bytes32();
}

Value from_word(const Type& t, const U256& w) {
    if (!is_canonical_word(t, w)) fail("non-canonical " + t.canonical() + " word " + w.to_hex());
    switch (t.kind) {
        case Kind::address: {
            auto b = w.to_be_bytes32();
            std::array<std::uint8_t, 20> a{};
            std::copy(b.end() - 20, b.end(), a.begin());
            return Address(a);
        }
        case Kind::boolean: return !w.is_zero();
        case Kind::fixed_bytes: {
            auto b = w.to_be_bytes32();
            return Bytes(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(t.size));
        }
        default: return w;
    }
}

// ---- encoding -----------------------------------------------------------------

void append(Bytes& out, ByteView data) { out.insert(out.end(), data.begin(), data.end()); }

void append_word(Bytes& out, std::size_t n) { append(out, U256{n}.to_be_bytes32()); }

/// The elements of an array or the members of a tuple, each with its type.
/// Arrays repeat one element type, so it is looked up per index rather than copied.
const Type& element_type(const Type& t, std::size_t i) {
    return t.kind == Kind::tuple ? t.components[i] : t.components[0];
}

/// Fixed arrays and tuples need exactly their number of values.
void check_length(const Type& t, std::size_t n) {
    std::size_t expected = t.kind == Kind::tuple ? t.components.size() : t.size;
    if (t.kind != Kind::array && n != expected)
        fail(t.canonical() + " needs " + std::to_string(expected) + " values, got " + std::to_string(n));
}

Bytes encode_value(const Type& t, const Value& v);

/// Head/tail encoding of `values`, where value i has type element_type(t, i)
/// (or types[i] when `t` is null, for the top-level tuple).
template <class TypeAt>
Bytes encode_sequence(std::span<const Value> values, TypeAt type_at) {
    std::size_t heads = 0;
    for (std::size_t i = 0; i < values.size(); ++i) heads += head_size(type_at(i));
    Bytes head, tail;
    for (std::size_t i = 0; i < values.size(); ++i) {
        const Type& t = type_at(i);
        Bytes enc = encode_value(t, values[i]);
        if (t.is_dynamic()) {
            append_word(head, heads + tail.size());
            append(tail, enc);
        } else {
            append(head, enc);
        }
    }
    append(head, tail);
    return head;
}

Bytes encode_padded(ByteView data) {
    Bytes out;
    append_word(out, data.size());
    append(out, data);
    out.resize(out.size() + (word - data.size() % word) % word, 0);
    return out;
}

Bytes encode_value(const Type& t, const Value& v) {
    switch (t.kind) {
        case Kind::bytes: return encode_padded(v.as_bytes());
        case Kind::string: return encode_padded(as_bytes(v.as_string()));
        case Kind::array:
        case Kind::fixed_array:
        case Kind::tuple: {
            const auto& list = v.as_list();
            check_length(t, list.size());
            Bytes body = encode_sequence(list, [&t](std::size_t i) -> const Type& { return element_type(t, i); });
            if (t.kind != Kind::array) return body;
            Bytes out;
            append_word(out, list.size());
            append(out, body);
            return out;
        }
        default: {
            auto w = to_word(t, v);
            return Bytes(w.begin(), w.end());
        }
    }
}

// ---- decoding -----------------------------------------------------------------

/// Decodes one buffer. Every read is checked against the buffer. Offsets may
/// legally point anywhere, so several can alias one region; `budget_` caps the
/// work (values produced and bytes copied, in words) at a multiple of the
/// buffer's size, so a small hostile input cannot expand into an enormous result.
class Decoder {
public:
    explicit Decoder(ByteView data) : data_(data), budget_(4 * (data.size() / word) + 1024) {}

    /// `count` values laid out as a tuple whose head starts at `start`; value i has type type_at(i).
    template <class TypeAt>
    std::vector<Value> sequence(std::size_t start, std::size_t count, TypeAt type_at) {
        std::vector<Value> out;
        out.reserve(std::min(count, budget_));  // a fixed array's count comes from the type, not the data
        std::size_t head = start;
        for (std::size_t i = 0; i < count; ++i) {
            const Type& t = type_at(i);
            if (t.is_dynamic()) {
                std::size_t offset = read_size(head, "offset");
                if (offset > data_.size() - start) fail("offset points past the end of the data");
                out.push_back(value(t, start + offset));
            } else {
                out.push_back(value(t, head));
            }
            head += head_size(t);
        }
        return out;
    }

private:
    /// The value whose encoding starts at `pos` (its head for static types, its tail otherwise).
    Value value(const Type& t, std::size_t pos) {
        switch (t.kind) {
            case Kind::bytes: return read_blob(pos);
            case Kind::string: {
                Bytes b = read_blob(pos);
                return std::string(b.begin(), b.end());
            }
            case Kind::array: {
                std::size_t n = read_size(pos, "array length");
                spend(1 + n);
                return sequence(pos + word, n, [&t](std::size_t) -> const Type& { return t.components[0]; });
            }
            case Kind::fixed_array:
            case Kind::tuple: {
                std::size_t n = t.kind == Kind::tuple ? t.components.size() : t.size;
                return sequence(pos, n, [&t](std::size_t i) -> const Type& { return element_type(t, i); });
            }
            default: spend(1); return from_word(t, read_word(pos));
        }
    }

    U256 read_word(std::size_t pos) const {
        if (pos > data_.size() || data_.size() - pos < word) fail("data too short");
        return U256::from_be_bytes(data_.subspan(pos, word));
    }

    /// A length or offset word; anything beyond the buffer's size is rejected up front.
    std::size_t read_size(std::size_t pos, const char* what) const {
        U256 w = read_word(pos);
        if (w > U256{data_.size()}) fail(std::string(what) + " " + w.to_dec() + " exceeds the data");
        return static_cast<std::size_t>(w.to_u64());
    }

    Bytes read_blob(std::size_t pos) {
        std::size_t n = read_size(pos, "length");
        if (data_.size() - pos - word < n) fail("bytes run past the end of the data");
        spend(1 + n / word);
        auto body = data_.subspan(pos + word, n);
        return Bytes(body.begin(), body.end());
    }

    void spend(std::size_t words) {
        if (words > budget_) fail("data decodes to more values than it can hold (aliased offsets?)");
        budget_ -= words;
    }

    ByteView data_;
    std::size_t budget_;
};

// ---- text -----------------------------------------------------------------------

std::string_view unquote(std::string_view s) {
    if (s.size() >= 2 && s.front() == '"' && s.back() == '"') return s.substr(1, s.size() - 2);
    return s;
}

/// The parts of "[a,b]" or "(a,b)", with `open`/`close` the expected brackets.
std::vector<std::string_view> bracketed_parts(std::string_view text, char open, char close) {
    text = trim(text);
    if (text.size() < 2 || text.front() != open || text.back() != close)
        fail("expected " + std::string(1, open) + "…" + std::string(1, close) + ", got \"" + std::string(text) + "\"");
    return split_top_level(text.substr(1, text.size() - 2));
}

Value parse_signed(const Type& t, std::string_view text) {
    bool negative = text.starts_with('-');
    U256 magnitude = U256::parse(negative ? text.substr(1) : text);
    U256 limit = U256{1} << static_cast<unsigned>(t.size - 1);  // |min|; max is limit-1
    if (negative ? magnitude > limit : magnitude >= limit)
        fail(std::string(text) + " out of range for " + t.canonical());
    return negative ? U256{0} - magnitude : magnitude;
}

void append_quoted(std::string& out, std::string_view s) {
    static constexpr char hex[] = "0123456789abcdef";
    out += '"';
    for (char c : s) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    out += "\\u{";
                    if (c >= 0x10) out += hex[c >> 4];
                    out += hex[c & 0xf];
                    out += '}';
                } else {
                    out += c;
                }
        }
    }
    out += '"';
}

std::string format_list(const Type& t, const Value::List& list, char open, char close) {
    check_length(t, list.size());
    std::string out(1, open);
    for (std::size_t i = 0; i < list.size(); ++i) {
        if (i) out += ", ";
        out += format_value(element_type(t, i), list[i]);
    }
    return out + close;
}

// ---- signatures -------------------------------------------------------------------

bool is_identifier(std::string_view s) {
    return !s.empty() && !std::isdigit(static_cast<unsigned char>(s[0])) &&
           std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; });
}

/// One parameter: a type, then optional words ("indexed", a data location, a name).
Param parse_param(std::string_view text) {
    text = trim(text);
    std::size_t type_end = 0;
    if (text.starts_with('(')) {
        type_end = matching_close(text, 0);
        if (type_end == std::string_view::npos) fail("unclosed tuple in \"" + std::string(text) + "\"");
        while (type_end + 1 < text.size() && !std::isspace(static_cast<unsigned char>(text[type_end + 1]))) ++type_end;
        ++type_end;
    } else {
        type_end = std::min(text.find_first_of(" \t\n"), text.size());
    }
    Param p{parse_type(text.substr(0, type_end)), "", false};
    std::string_view rest = trim(text.substr(type_end));
    while (!rest.empty()) {
        std::size_t end = std::min(rest.find_first_of(" \t\n"), rest.size());
        std::string_view w = rest.substr(0, end);
        if (w == "indexed") p.indexed = true;
        else if (w != "memory" && w != "calldata" && w != "storage") {
            if (!is_identifier(w) || !p.name.empty()) fail("bad parameter \"" + std::string(text) + "\"");
            p.name = std::string(w);
        }
        rest = trim(rest.substr(end));
    }
    return p;
}

/// Parses "(…)" at the start of `text`, returning its parameters and advancing `text` past it.
std::vector<Param> parse_param_list(std::string_view& text) {
    text = trim(text);
    std::size_t close = text.starts_with('(') ? matching_close(text, 0) : std::string_view::npos;
    if (close == std::string_view::npos) fail("expected a parenthesised parameter list");
    std::vector<Param> params;
    for (auto part : split_top_level(text.substr(1, close - 1))) params.push_back(parse_param(part));
    text = trim(text.substr(close + 1));
    return params;
}

std::string join_canonical(std::span<const Type> types) {
    std::string out;
    for (const auto& t : types) out += (out.empty() ? "" : ",") + t.canonical();
    return out;
}

/// A JSON ABI parameter's type string, expanding "tuple…" through its "components".
std::string json_param_type(const nlohmann::json& param) {
    std::string type = param.at("type").get<std::string>();
    if (!type.starts_with("tuple")) return type;
    std::string members;
    for (const auto& c : param.at("components")) members += (members.empty() ? "" : ",") + json_param_type(c);
    return "(" + members + ")" + type.substr(5);
}

constexpr Selector error_string_selector{0x08, 0xc3, 0x79, 0xa0};  // Error(string)
constexpr Selector panic_selector{0x4e, 0x48, 0x7b, 0x71};         // Panic(uint256)

std::string format_call(const Signature& sig, const std::vector<Value>& args) {
    std::string out = sig.name + "(";
    for (std::size_t i = 0; i < args.size(); ++i) out += (i ? ", " : "") + format_value(sig.inputs[i].type, args[i]);
    return out + ")";
}

}  // namespace

// ---- Type -------------------------------------------------------------------------

std::string Type::canonical() const {
    switch (kind) {
        case Kind::uint: return "uint" + std::to_string(size);
        case Kind::sint: return "int" + std::to_string(size);
        case Kind::address: return "address";
        case Kind::boolean: return "bool";
        case Kind::fixed_bytes: return "bytes" + std::to_string(size);
        case Kind::bytes: return "bytes";
        case Kind::string: return "string";
        case Kind::array: return components[0].canonical() + "[]";
        case Kind::fixed_array: return components[0].canonical() + "[" + std::to_string(size) + "]";
        case Kind::tuple: return "(" + join_canonical(components) + ")";
    }
    return {};
}

bool Type::is_dynamic() const {
    switch (kind) {
        case Kind::bytes:
        case Kind::string:
        case Kind::array: return true;
        case Kind::fixed_array:
        case Kind::tuple: return std::any_of(components.begin(), components.end(), [](const Type& c) { return c.is_dynamic(); });
        default: return false;
    }
}

Type parse_type(std::string_view text) { return parse_type_at(text, 0); }

std::vector<Type> parse_types(std::string_view text) {
    std::vector<Type> out;
    for (auto part : split_top_level(text)) out.push_back(parse_type(part));
    return out;
}

// ---- Value ------------------------------------------------------------------------

Value Value::from_int(std::int64_t v) {
    U256 magnitude{v < 0 ? static_cast<std::uint64_t>(-(v + 1)) + 1 : static_cast<std::uint64_t>(v)};
    return v < 0 ? U256{0} - magnitude : magnitude;
}

namespace {
template <class T>
const T& alternative(const std::variant<U256, Address, bool, Bytes, std::string, Value::List>& data, const char* what) {
    if (const T* p = std::get_if<T>(&data)) return *p;
    fail(std::string("value is not ") + what);
}
}  // namespace

const U256& Value::as_uint() const { return alternative<U256>(data_, "an integer"); }
const Address& Value::as_address() const { return alternative<Address>(data_, "an address"); }
bool Value::as_bool() const { return alternative<bool>(data_, "a bool"); }
const Bytes& Value::as_bytes() const { return alternative<Bytes>(data_, "bytes"); }
const std::string& Value::as_string() const { return alternative<std::string>(data_, "a string"); }
const Value::List& Value::as_list() const { return alternative<List>(data_, "a list"); }

// ---- encode / decode ----------------------------------------------------------------

Bytes encode(std::span<const Type> types, std::span<const Value> values) {
    if (types.size() != values.size())
        fail(std::to_string(types.size()) + " types but " + std::to_string(values.size()) + " values");
    return encode_sequence(values, [types](std::size_t i) -> const Type& { return types[i]; });
}

std::vector<Value> decode(std::span<const Type> types, ByteView data) {
    return Decoder(data).sequence(0, types.size(), [types](std::size_t i) -> const Type& { return types[i]; });
}

Value parse_value(const Type& t, std::string_view text) {
    switch (t.kind) {
        case Kind::string: return std::string(unquote(text));
        case Kind::bytes: return from_hex(trim(text), "bytes");
        case Kind::array:
        case Kind::fixed_array:
        case Kind::tuple: {
            bool tuple = t.kind == Kind::tuple;
            Value::List list;
            auto parts = bracketed_parts(text, tuple ? '(' : '[', tuple ? ')' : ']');
            check_length(t, parts.size());
            for (std::size_t i = 0; i < parts.size(); ++i) list.push_back(parse_value(element_type(t, i), parts[i]));
            return list;
        }
        default: break;
    }
    std::string_view s = trim(text);
    Value v;
    switch (t.kind) {
        case Kind::uint: v = U256::parse(s); break;
        case Kind::sint: v = parse_signed(t, s); break;
        case Kind::address: v = Address::parse(s); break;
        case Kind::boolean:
            if (s != "true" && s != "false") fail("expected true or false, got \"" + std::string(s) + "\"");
            v = s == "true";
            break;
        default: v = from_hex(s, t.canonical()); break;  // fixed_bytes
    }
    (void)to_word(t, v);  // range and length checks
    return v;
}

std::string format_value(const Type& t, const Value& v) {
    switch (t.kind) {
        case Kind::uint: return v.as_uint().to_dec();
        case Kind::sint: {
            const U256& w = v.as_uint();
            return w.bit(255) ? "-" + (U256{0} - w).to_dec() : w.to_dec();
        }
        case Kind::address: return v.as_address().checksummed();
        case Kind::boolean: return v.as_bool() ? "true" : "false";
        case Kind::fixed_bytes:
        case Kind::bytes: return to_hex(v.as_bytes());
        case Kind::string: {
            std::string out;
            append_quoted(out, v.as_string());
            return out;
        }
        case Kind::tuple: return format_list(t, v.as_list(), '(', ')');
        default: return format_list(t, v.as_list(), '[', ']');
    }
}

// ---- signatures -------------------------------------------------------------------

Signature Signature::parse(std::string_view text) {
    text = trim(text);
    std::size_t open = text.find('(');
    Signature sig;
    sig.name = std::string(trim(text.substr(0, open)));
    if (open == std::string_view::npos || !is_identifier(sig.name))
        fail("bad signature \"" + std::string(text) + "\"");
    std::string_view rest = text.substr(open);
    sig.inputs = parse_param_list(rest);
    if (rest.starts_with("returns")) rest = rest.substr(7);
    if (!trim(rest).empty()) {
        for (auto& p : parse_param_list(rest)) sig.outputs.push_back(std::move(p.type));
        if (!rest.empty()) fail("unexpected text after signature \"" + std::string(text) + "\"");
    }
    return sig;
}

std::vector<Type> Signature::input_types() const {
    std::vector<Type> out;
    for (const auto& p : inputs) out.push_back(p.type);
    return out;
}

std::string Signature::canonical() const { return name + "(" + join_canonical(input_types()) + ")"; }

Selector Signature::selector() const {
    Hash32 h = topic();
    return {h[0], h[1], h[2], h[3]};
}

Hash32 Signature::topic() const { return keccak256(std::string_view(canonical())); }

Selector selector(std::string_view signature) { return Signature::parse(signature).selector(); }

Hash32 event_topic(std::string_view signature) { return Signature::parse(signature).topic(); }

Bytes encode_call(std::string_view signature, std::span<const Value> args) {
    Signature sig = Signature::parse(signature);
    Selector sel = sig.selector();
    Bytes out(sel.begin(), sel.end());
    append(out, encode(sig.input_types(), args));
    return out;
}

std::vector<Value> decode_output(std::string_view signature, ByteView data) {
    return decode(Signature::parse(signature).outputs, data);
}

std::vector<Value> decode_event(const Signature& event, std::span<const Hash32> topics, ByteView data) {
    if (topics.empty() || topics[0] != event.topic()) fail("log is not a " + event.canonical() + " event");
    std::vector<Type> data_types;
    std::size_t indexed = 0;
    for (const auto& p : event.inputs) {
        if (p.indexed) ++indexed;
        else data_types.push_back(p.type);
    }
    if (topics.size() != indexed + 1)
        fail(event.canonical() + " has " + std::to_string(indexed) + " indexed parameters but the log has " +
             std::to_string(topics.size() - 1) + " topics");
    std::vector<Value> from_data = decode(data_types, data);
    std::vector<Value> out;
    std::size_t next_topic = 1, next_data = 0;
    for (const auto& p : event.inputs) {
        if (!p.indexed) {
            out.push_back(std::move(from_data[next_data++]));
            continue;
        }
        const Hash32& topic = topics[next_topic++];
        bool hashed = p.type.is_dynamic() || p.type.kind == Kind::tuple || p.type.kind == Kind::fixed_array;
        out.push_back(hashed ? Value(Bytes(topic.begin(), topic.end())) : from_word(p.type, U256::from_be_bytes(topic)));
    }
    return out;
}

// ---- reverts ------------------------------------------------------------------------

std::string panic_meaning(const U256& code) {
    static constexpr std::pair<std::uint64_t, const char*> meanings[] = {
        {0x00, "generic compiler panic"},
        {0x01, "assertion failed"},
        {0x11, "arithmetic underflow or overflow"},
        {0x12, "division or modulo by zero"},
        {0x21, "conversion to an invalid enum value"},
        {0x22, "incorrectly encoded storage byte array"},
        {0x31, "pop() on an empty array"},
        {0x32, "array index out of bounds"},
        {0x41, "too much memory allocated"},
        {0x51, "call to an uninitialised internal function"},
    };
    for (auto [value, meaning] : meanings)
        if (code == U256{value}) return meaning;
    return "unknown panic code";
}

Revert decode_revert(ByteView data, std::span<const Signature> errors) {
    if (data.empty()) return {"", {}, "execution reverted without data"};
    Revert raw{"", {}, to_hex(data)};
    if (data.size() < 4) return raw;
    Selector sel{data[0], data[1], data[2], data[3]};
    ByteView body = data.subspan(4);
    try {
        if (sel == error_string_selector) {
            auto args = decode(std::vector<Type>{Type{Kind::string, 0, {}}}, body);
            std::string reason = args[0].as_string();
            return {"Error", std::move(args), std::move(reason)};
        }
        if (sel == panic_selector) {
            auto args = decode(std::vector<Type>{Type{}}, body);
            std::string message = "Panic(" + args[0].as_uint().to_hex() + "): " + panic_meaning(args[0].as_uint());
            return {"Panic", std::move(args), std::move(message)};
        }
        for (const auto& e : errors) {
            if (e.selector() != sel) continue;
            auto args = decode(e.input_types(), body);
            std::string message = format_call(e, args);
            return {e.name, std::move(args), std::move(message)};
        }
    } catch (const Error&) {
        // A known selector with undecodable arguments is still best shown raw.
    }
    return raw;
}

std::vector<Signature> errors_from_json_abi(const nlohmann::json& abi) {
    std::vector<Signature> out;
    if (!abi.is_array()) fail("JSON ABI must be an array");
    try {
        for (const auto& entry : abi) {
            if (entry.value("type", "") != "error") continue;
            Signature sig{entry.at("name").get<std::string>(), {}, {}};
            for (const auto& input : entry.value("inputs", nlohmann::json::array()))
                sig.inputs.push_back({parse_type(json_param_type(input)), input.value("name", ""), false});
            out.push_back(std::move(sig));
        }
    } catch (const nlohmann::json::exception& e) {
        fail(std::string("malformed error entry in JSON ABI: ") + e.what());
    }
    return out;
}

}  // namespace abci::eth::abi
