#include "core/service/requests.hpp"

#include <algorithm>
#include <array>

#include "core/crypto/encoding.hpp"
#include "core/error.hpp"
#include "core/util/time.hpp"

namespace abci::service {

using nlohmann::json;

namespace {

bool is_url(const std::string& text) {
    return text.starts_with("https://") || text.starts_with("http://") || text.starts_with("ipfs://");
}

// Spec 4.2's metadata: name, description, image, attributes, external_url.
json entity_details(util::Fields& fields, const json& body) {
    const auto it = body.find("metadata");
    if (it == body.end() || !it->is_object()) {
        fields.check(false, "metadata is required: an object with at least a name");
        return json::object();
    }
    const json& m = *it;
    util::Fields inner(m);
    json details = json::object();
    for (const auto& [key, value] : m.items()) {
        static const std::array<std::string, 5> known{"name", "description", "image", "attributes", "external_url"};
        fields.check(std::find(known.begin(), known.end(), key) != known.end(), "metadata." + key + " is not a known field");
    }
    auto text = [&](const std::string& key, bool required, std::size_t max) {
        const auto v = m.find(key);
        if (v == m.end() || v->is_null()) {
            fields.check(!required, "metadata." + key + " is required");
            return;
        }
        if (!v->is_string()) return fields.check(false, "metadata." + key + " must be a string");
        const auto& s = v->get_ref<const std::string&>();
        fields.check(s.size() <= max, "metadata." + key + " must be at most " + std::to_string(max) + " bytes");
        if (key == "image" || key == "external_url")
            fields.check(s.empty() || is_url(s), "metadata." + key + " must be an http(s):// or ipfs:// URL");
        details[key] = s;
    };
    text("name", true, 256);
    text("description", false, 4096);
    text("image", false, 2048);
    text("external_url", false, 2048);
    if (const auto a = m.find("attributes"); a != m.end() && !a->is_null()) {
        if (!a->is_array() || a->size() > 64) {
            fields.check(false, "metadata.attributes must be an array of at most 64 {trait_type, value} objects");
        } else {
            for (std::size_t i = 0; i < a->size(); ++i) {
                const json& attr = (*a)[i];
                const std::string at = "metadata.attributes[" + std::to_string(i) + "]";
                const bool ok = attr.is_object() && attr.contains("trait_type") && attr["trait_type"].is_string() &&
                                attr["trait_type"].get_ref<const std::string&>().size() <= 128 &&
                                attr.contains("value") &&
                                (attr["value"].is_number() ||
                                 (attr["value"].is_string() && attr["value"].get_ref<const std::string&>().size() <= 1024)) &&
                                (!attr.contains("display_type") ||
                                 (attr["display_type"].is_string() &&
                                  attr["display_type"].get_ref<const std::string&>().size() <= 32)) &&
                                attr.size() == 2 + (attr.contains("display_type") ? 1 : 0);
                fields.check(ok, at + " must be {trait_type: string, value: string or number, display_type?: string}");
            }
            details["attributes"] = *a;
        }
    }
    return details;
}

// Spec 4.1's optional metadata: approvalId, approvedBy, approvedAt, notes.
json role_attributes(util::Fields& fields, const json& body, const std::string& role) {
    json attributes = json::array({{{"trait_type", "role"}, {"value", role}}});
    const auto it = body.find("metadata");
    if (it == body.end() || it->is_null()) return attributes;
    if (!it->is_object()) {
        fields.check(false, "metadata must be an object");
        return attributes;
    }
    for (const auto& [key, value] : it->items()) {
        const bool known = key == "approvalId" || key == "approvedBy" || key == "approvedAt" || key == "notes";
        fields.check(known, "metadata." + key + " is not a known field");
        if (!known) continue;
        if (!value.is_string() || value.get_ref<const std::string&>().size() > 2000) {
            fields.check(false, "metadata." + key + " must be a string of at most 2000 bytes");
            continue;
        }
        const auto& text = value.get_ref<const std::string&>();
        if (key == "approvedAt") {
            try {
                const auto t = util::parse_rfc3339(text);
                attributes.push_back({{"trait_type", key},
                                      {"value", std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count()},
                                      {"display_type", "date"}});
            } catch (const Error&) {
                fields.check(false, "metadata.approvedAt must be an ISO 8601 timestamp");
            }
            continue;
        }
        attributes.push_back({{"trait_type", key}, {"value", text}});
    }
    return attributes;
}

}  // namespace

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

MintRoleRequest parse_mint_role(const json& body) {
    util::Fields fields(body);
    const auto address_text = fields.required_string("userAddress", 64);
    const auto role = fields.required_string("roleType", 32);
    auto blockchain_id = fields.required_string("blockchainId", 64);
    const auto to = parse_recipient_field(fields, "userAddress", address_text);
    const auto kind = role_token(role);
    fields.check(role.empty() || kind.has_value(), "roleType must be one of producer, verifier, valuator, certifier");
    json attributes = role_attributes(fields, body, role);
    fields.done();
    return {*to, *kind, std::move(blockchain_id), std::move(attributes), crypto::sha256_hex(body.dump())};
}

MintEntityRequest parse_mint_entity(const json& body) {
    util::Fields fields(body);
    const auto address_text = fields.required_string("userAddress", 64);
    const auto entity_type = fields.required_string("entityType", 32);
    auto entity_id = fields.required_string("entityId", 256);
    auto blockchain_id = fields.required_string("blockchainId", 64);
    const auto to = parse_recipient_field(fields, "userAddress", address_text);
    const auto kind = entity_token(entity_type);
    fields.check(entity_type.empty() || kind.has_value(),
                 "entityType must be one of report, verification, valuation, certificate");
    std::uint64_t amount = 0;
    const auto a = body.find("amount");
    if (a == body.end() || a->is_null()) {
        fields.check(false, "amount is required");
    } else if (a->is_number_integer() && (a->is_number_unsigned() || a->get<std::int64_t>() >= 1) &&
               a->get<std::uint64_t>() >= 1 && a->get<std::uint64_t>() <= kMaxMintAmount) {
        // Parsed JSON holds a positive integer as unsigned; one built in code may be signed.
        amount = a->get<std::uint64_t>();
    } else {
        fields.check(false, "amount must be an integer from 1 to " + std::to_string(kMaxMintAmount));
    }
    json details = entity_details(fields, body);
    fields.done();
    if (!details.contains("attributes")) details["attributes"] = json::array();
    details["attributes"].push_back({{"trait_type", "entityId"}, {"value", entity_id}});
    return {*to, *kind, std::move(entity_id), std::move(blockchain_id), amount, std::move(details),
            crypto::sha256_hex(body.dump())};
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

store::NewRoleRequest parse_role_request(const json& body, const std::string& user_id) {
    util::Fields fields(body);
    auto role_type = fields.required_string("roleType", 32);
    const auto wallet = fields.required_string("walletAddress", 42);
    auto blockchain_id = fields.required_string("blockchainId", 64);
    auto note = fields.optional_string("note", 2000).value_or("");
    fields.check(role_type.empty() || role_token(role_type).has_value(),
                 "roleType must be one of producer, verifier, valuator, certifier");
    const auto address = address_field(fields, "walletAddress", wallet);
    fields.done();
    return {user_id, std::move(role_type), address ? address->lower() : std::string(), std::move(blockchain_id),
            std::move(note)};
}

}  // namespace abci::service
