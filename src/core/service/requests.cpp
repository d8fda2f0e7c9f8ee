#include "core/service/requests.hpp"

#include <charconv>

#include "core/crypto/encoding.hpp"
#include "core/error.hpp"

namespace abci::service {

namespace {

constexpr std::string_view kFingerprintVersion = "2:";

// One field of canonical(): its length, 4 bytes big-endian, then its bytes.
void field(std::string& out, std::string_view bytes) {
    const auto n = static_cast<std::uint32_t>(bytes.size());
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((n >> shift) & 0xff));
    out.append(bytes);
}

std::string number(const Attribute::Value& value) {
    if (const auto* i = std::get_if<std::int64_t>(&value)) return std::to_string(*i);
    if (const auto* u = std::get_if<std::uint64_t>(&value)) return std::to_string(*u);
    // The shortest text that reads back as the same double, which the
    // standard fixes (unlike a library's printer); ".0" keeps 4.0 apart from 4.
    char buffer[32];
    const auto end = std::to_chars(buffer, buffer + sizeof buffer, std::get<double>(value)).ptr;
    std::string text(buffer, end);
    if (text.find_first_of(".e") == std::string::npos) text += ".0";
    return text;
}

Fingerprint fingerprint_of(const std::string& canonical_bytes, const std::string& legacy) {
    return {std::string(kFingerprintVersion) + crypto::sha256_hex(canonical_bytes), legacy};
}

}  // namespace

bool Fingerprint::matches(const std::string& stored) const {
    if (stored.starts_with(kFingerprintVersion)) return stored == current;
    return !legacy.empty() && stored == legacy;
}

std::string json_string(std::string_view text) {
    std::string out = "\"";
    for (const char c : text) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                static constexpr char kHex[] = "0123456789abcdef";
                out += "\\u00";
                out += kHex[(c >> 4) & 0xf];
                out += kHex[c & 0xf];
            } else {
                out += c;
            }
        }
    }
    return out + "\"";
}

std::string canonical_json(const Attributes& attributes) {
    std::string out = "[";
    for (const auto& a : attributes) {
        if (out.size() > 1) out += ',';
        out += '{';
        if (a.display_type) out += "\"display_type\":" + json_string(*a.display_type) + ',';
        out += "\"trait_type\":" + json_string(a.trait_type) + ",\"value\":";
        const auto* text = std::get_if<std::string>(&a.value);
        out += text ? json_string(*text) : number(a.value);
        out += '}';
    }
    return out + "]";
}

Attributes MintRoleRequest::attributes() const {
    Attributes attributes{{"role", std::string(kind.category), std::nullopt}};
    // In the order the previous release wrote them: the metadata's keys sorted.
    if (approval.approval_id) attributes.push_back({"approvalId", *approval.approval_id, std::nullopt});
    if (approval.approved_at) attributes.push_back({"approvedAt", *approval.approved_at, "date"});
    if (approval.approved_by) attributes.push_back({"approvedBy", *approval.approved_by, std::nullopt});
    if (approval.notes) attributes.push_back({"notes", *approval.notes, std::nullopt});
    return attributes;
}

std::string canonical(const MintRoleRequest& request) {
    std::string out;
    field(out, "mint-role/2");
    field(out, request.user_address.lower());
    field(out, request.kind.category);
    field(out, request.blockchain_id);
    field(out, canonical_json(request.attributes()));
    return out;
}

std::string canonical(const MintEntityRequest& request) {
    std::string out;
    field(out, "mint-entity/2");
    field(out, request.user_address.lower());
    field(out, request.kind.category);
    field(out, request.entity_id);
    field(out, request.blockchain_id);
    field(out, std::to_string(request.amount));
    field(out, request.metadata.name);
    field(out, request.metadata.description);
    field(out, request.metadata.image);
    field(out, request.metadata.external_url);
    field(out, canonical_json(request.metadata.attributes));
    return out;
}

Fingerprint MintRoleRequest::fingerprint() const { return fingerprint_of(canonical(*this), legacy_fingerprint); }
Fingerprint MintEntityRequest::fingerprint() const { return fingerprint_of(canonical(*this), legacy_fingerprint); }

std::optional<eth::Address> parse_address_field(util::Fields& fields, const std::string& key, const std::string& value) {
    if (value.empty()) return std::nullopt;
    if (value.size() != 42 || !value.starts_with("0x")) {
        fields.check(false, key + " must be an EVM address: 42 characters starting with 0x");
        return std::nullopt;
    }
    try {
        return eth::Address::parse(value);
    } catch (const Error& e) {
        fields.check(false, key + ": " + e.what());
        return std::nullopt;
    }
}

std::optional<eth::Address> parse_recipient_field(util::Fields& fields, const std::string& key, const std::string& value) {
    auto address = parse_address_field(fields, key, value);
    // The contract refuses it (ERC1155InvalidReceiver): decided here, before anything is signed.
    if (address && address->is_zero()) {
        fields.check(false, key + " must not be the zero address");
        return std::nullopt;
    }
    return address;
}

std::optional<eth::Address> address_field(util::Fields& fields, const std::string& name, const std::string& text) {
    if (text.empty()) return std::nullopt;
    try {
        return eth::Address::parse(text);
    } catch (const Error& e) {
        fields.check(false, name + ": " + e.what());
    }
    return std::nullopt;
}

}  // namespace abci::service
