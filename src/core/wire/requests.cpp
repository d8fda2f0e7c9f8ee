#include "core/wire/requests.hpp"

#include <algorithm>
#include <array>

#include "core/crypto/encoding.hpp"
#include "core/error.hpp"
#include "core/util/fields.hpp"
#include "core/util/time.hpp"

namespace abci::wire {

using nlohmann::json;
using service::Attribute;
using service::Attributes;

namespace {

bool is_url(const std::string& text) {
    return text.starts_with("https://") || text.starts_with("http://") || text.starts_with("ipfs://");
}

// The previous release's fingerprint: the SHA-256 of the body as nlohmann
// prints it, which the keys it claimed were stored with.
std::string legacy_fingerprint(const json& body) { return crypto::sha256_hex(body.dump()); }

// A string member `key` of `object` (absent or null: not given); `prefix`
// names the object in the problems ("metadata." in a mint's body).
std::string text(util::Fields& fields, const json& object, const std::string& prefix, const std::string& key,
                 bool required, std::size_t max) {
    const auto v = object.find(key);
    if (v == object.end() || v->is_null()) {
        fields.check(!required, prefix + key + " is required");
        return {};
    }
    if (!v->is_string()) {
        fields.check(false, prefix + key + " must be a string");
        return {};
    }
    const auto& s = v->get_ref<const std::string&>();
    fields.check(s.size() <= max, prefix + key + " must be at most " + std::to_string(max) + " bytes");
    if (key == "image" || key == "external_url")
        fields.check(s.empty() || is_url(s), prefix + key + " must be an http(s):// or ipfs:// URL");
    return s;
}

bool short_string(const json& value, std::size_t max) {
    return value.is_string() && value.get_ref<const std::string&>().size() <= max;
}

// Spec 2.4's attributes: at most 64 {trait_type, value, display_type?}.
Attributes attributes(util::Fields& fields, const json& object, const std::string& prefix) {
    Attributes read;
    const auto a = object.find("attributes");
    if (a == object.end() || a->is_null()) return read;
    if (!a->is_array() || a->size() > service::kMaxAttributes) {
        fields.check(false, prefix + "attributes must be an array of at most 64 {trait_type, value} objects");
        return read;
    }
    for (std::size_t i = 0; i < a->size(); ++i) {
        const json& attr = (*a)[i];
        const bool ok = attr.is_object() && attr.contains("trait_type") &&
                        short_string(attr["trait_type"], service::kMaxTraitType) && attr.contains("value") &&
                        (attr["value"].is_number() || short_string(attr["value"], service::kMaxTextValue)) &&
                        (!attr.contains("display_type") || short_string(attr["display_type"], service::kMaxDisplayType)) &&
                        attr.size() == 2 + (attr.contains("display_type") ? 1 : 0);
        fields.check(ok, prefix + "attributes[" + std::to_string(i) +
                             "] must be {trait_type: string, value: string or number, display_type?: string}");
        if (!ok) continue;
        const json& v = attr["value"];
        Attribute::Value value;
        if (v.is_string()) value = v.get<std::string>();
        else if (v.is_number_unsigned()) value = v.get<std::uint64_t>();
        else if (v.is_number_integer()) value = v.get<std::int64_t>();
        else value = v.get<double>();
        std::optional<std::string> display_type;
        if (attr.contains("display_type")) display_type = attr["display_type"].get<std::string>();
        read.push_back({attr["trait_type"].get<std::string>(), std::move(value), std::move(display_type)});
    }
    return read;
}

// Spec 4.2's metadata: name, description, image, attributes, external_url.
service::EntityMetadata entity_metadata(util::Fields& fields, const json& body) {
    const auto it = body.find("metadata");
    if (it == body.end() || !it->is_object()) {
        fields.check(false, "metadata is required: an object with at least a name");
        return {};
    }
    const json& m = *it;
    for (const auto& [key, value] : m.items()) {
        static const std::array<std::string, 5> known{"name", "description", "image", "attributes", "external_url"};
        fields.check(std::find(known.begin(), known.end(), key) != known.end(), "metadata." + key + " is not a known field");
    }
    service::EntityMetadata metadata;
    metadata.name = text(fields, m, "metadata.", "name", true, 256);
    metadata.description = text(fields, m, "metadata.", "description", false, 4096);
    metadata.image = text(fields, m, "metadata.", "image", false, 2048);
    metadata.external_url = text(fields, m, "metadata.", "external_url", false, 2048);
    metadata.attributes = attributes(fields, m, "metadata.");
    return metadata;
}

// Spec 4.1's optional metadata: approvalId, approvedBy, approvedAt, notes.
service::ApprovalMetadata approval(util::Fields& fields, const json& body) {
    service::ApprovalMetadata approval;
    const auto it = body.find("metadata");
    if (it == body.end() || it->is_null()) return approval;
    if (!it->is_object()) {
        fields.check(false, "metadata must be an object");
        return approval;
    }
    for (const auto& [key, value] : it->items()) {
        const bool known = key == "approvalId" || key == "approvedBy" || key == "approvedAt" || key == "notes";
        fields.check(known, "metadata." + key + " is not a known field");
        if (!known) continue;
        if (!short_string(value, 2000)) {
            fields.check(false, "metadata." + key + " must be a string of at most 2000 bytes");
            continue;
        }
        const auto& given = value.get_ref<const std::string&>();
        if (key == "approvedAt") {
            try {
                const auto t = util::parse_rfc3339(given);
                approval.approved_at = std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
            } catch (const Error&) {
                fields.check(false, "metadata.approvedAt must be an ISO 8601 timestamp");
            }
        } else {
            (key == "approvalId" ? approval.approval_id : key == "approvedBy" ? approval.approved_by : approval.notes) = given;
        }
    }
    return approval;
}

}  // namespace

service::MintRoleRequest parse_mint_role(const json& body) {
    util::Fields fields(body);
    const auto address_text = fields.required_string("userAddress", 64);
    const auto role = fields.required_string("roleType", 32);
    auto blockchain_id = fields.required_string("blockchainId", 64);
    const auto to = service::parse_recipient_field(fields, "userAddress", address_text);
    const auto kind = service::role_token(role);
    fields.check(role.empty() || kind.has_value(), "roleType must be one of producer, verifier, valuator, certifier");
    auto metadata = approval(fields, body);
    fields.done();
    return {*to, *kind, std::move(blockchain_id), std::move(metadata), legacy_fingerprint(body)};
}

service::MintEntityRequest parse_mint_entity(const json& body) {
    util::Fields fields(body);
    const auto address_text = fields.required_string("userAddress", 64);
    const auto entity_type = fields.required_string("entityType", 32);
    auto entity_id = fields.required_string("entityId", 256);
    auto blockchain_id = fields.required_string("blockchainId", 64);
    const auto to = service::parse_recipient_field(fields, "userAddress", address_text);
    const auto kind = service::entity_token(entity_type);
    fields.check(entity_type.empty() || kind.has_value(),
                 "entityType must be one of report, verification, valuation, certificate");
    std::uint64_t amount = 0;
    const auto a = body.find("amount");
    if (a == body.end() || a->is_null()) {
        fields.check(false, "amount is required");
    } else if (a->is_number_integer() && (a->is_number_unsigned() || a->get<std::int64_t>() >= 1) &&
               a->get<std::uint64_t>() >= 1 && a->get<std::uint64_t>() <= service::kMaxMintAmount) {
        // Parsed JSON holds a positive integer as unsigned; one built in code may be signed.
        amount = a->get<std::uint64_t>();
    } else {
        fields.check(false, "amount must be an integer from 1 to " + std::to_string(service::kMaxMintAmount));
    }
    auto metadata = entity_metadata(fields, body);
    fields.done();
    return {*to, *kind, std::move(entity_id), std::move(blockchain_id), amount, std::move(metadata),
            legacy_fingerprint(body)};
}

store::NewRoleRequest parse_role_request(const json& body, const std::string& user_id) {
    util::Fields fields(body);
    auto role_type = fields.required_string("roleType", 32);
    const auto wallet = fields.required_string("walletAddress", 42);
    auto blockchain_id = fields.required_string("blockchainId", 64);
    auto note = fields.optional_string("note", 2000).value_or("");
    fields.check(role_type.empty() || service::role_token(role_type).has_value(),
                 "roleType must be one of producer, verifier, valuator, certifier");
    const auto address = service::address_field(fields, "walletAddress", wallet);
    fields.done();
    return {user_id, std::move(role_type), address ? address->lower() : std::string(), std::move(blockchain_id),
            std::move(note)};
}

service::CertificateRequest parse_certificate(const json& body) {
    util::Fields fields(body);
    service::CertificateRequest request;
    request.title = fields.required_string("title", 256);
    request.description = fields.optional_string("description", 4096).value_or("");
    const auto recipient_text = fields.required_string("recipientAddress", 64);
    request.blockchain_id = fields.required_string("blockchainId", 64);
    const auto recipient = service::address_field(fields, "recipientAddress", recipient_text);
    // The token goes to it: refused as a mint's recipient is.
    fields.check(!recipient || !recipient->is_zero(), "recipientAddress must not be the zero address");
    request.image = text(fields, body, "", "image", false, 2048);
    request.external_url = text(fields, body, "", "external_url", false, 2048);
    request.attributes = attributes(fields, body, "");
    fields.done();
    request.recipient = *recipient;
    return request;
}

}  // namespace abci::wire
