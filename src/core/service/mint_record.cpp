#include "core/service/mint_record.hpp"

#include "core/error.hpp"

namespace abci::service {

using nlohmann::json;

namespace {

constexpr const char* kMint = "mint";
constexpr const char* kBatch = "mintMany";

[[noreturn]] void unreadable(const std::string& why) {
    throw Error(ErrorKind::internal, "a journaled mint record cannot be read: " + why);
}

const json& member(const json& record, const char* name) {
    const auto it = record.find(name);
    if (it == record.end()) unreadable(std::string("it has no \"") + name + "\"");
    return *it;
}

std::string text_member(const json& record, const char* name) {
    const auto& value = member(record, name);
    if (!value.is_string()) unreadable(std::string("its \"") + name + "\" is no string");
    return value.get<std::string>();
}

std::uint64_t number_member(const json& record, const char* name) {
    const auto& value = member(record, name);
    if (!value.is_number_unsigned()) unreadable(std::string("its \"") + name + "\" is no non-negative integer");
    return value.get<std::uint64_t>();
}

MintRecord record_from_version_1(const json& record) {
    MintRecord r;
    if (record.contains("mintId")) r.mint_id = text_member(record, "mintId");
    r.route = text_member(record, "route");
    try {
        r.to = eth::Address::parse(text_member(record, "to"));
    } catch (const Error& e) {
        unreadable(std::string("its \"to\" is no address: ") + e.what());
    }
    r.token_id = number_member(record, "tokenId");
    r.amount = number_member(record, "amount");
    r.cid = text_member(record, "cid");
    r.entity_type = text_member(record, "entityType");
    r.entity_id = text_member(record, "entityId");
    r.actor = text_member(record, "actor");
    r.key = text_member(record, "key");
    r.role_request_id = text_member(record, "roleRequestId");
    return r;
}

}  // namespace

json MintRecord::to_json() const {
    return {{"op", kMint},
            {"version", kVersion},
            {"mintId", mint_id},
            {"route", route},
            {"to", to.lower()},
            {"tokenId", token_id},
            {"amount", amount},
            {"cid", cid},
            {"entityType", entity_type},
            {"entityId", entity_id},
            {"actor", actor},
            {"key", key},
            {"roleRequestId", role_request_id}};
}

MintRecord MintRecord::from_json(const json& record) {
    if (!record.is_object()) unreadable("it is no JSON object");
    if (record.value("op", "") != kMint) unreadable("its \"op\" is not \"mint\"");
    const std::uint64_t version = record.contains("version") ? number_member(record, "version") : 1;
    if (version == 1) return record_from_version_1(record);
    unreadable("it is version " + std::to_string(version) + ", this release reads versions up to " +
               std::to_string(kVersion) + ": run the release that wrote it");
}

std::string combine_mint_records(const std::vector<std::string>& records) {
    // Joined as text: each record is the JSON text its writer made, kept byte for byte.
    std::string batch = std::string(R"({"op":")") + kBatch + R"(","items":[)";
    for (std::size_t i = 0; i < records.size(); ++i) batch += (i ? "," : "") + records[i];
    return batch + "]}";
}

MintPurpose parse_mint_purpose(const std::string& text) {
    MintPurpose purpose;
    const auto parsed = json::parse(text, nullptr, false);
    if (!parsed.is_object()) return purpose;
    const auto op = parsed.find("op");
    if (op == parsed.end() || !op->is_string()) return purpose;
    purpose.op = op->get<std::string>();
    if (purpose.op == kMint) {
        purpose.mints.push_back(MintRecord::from_json(parsed));
    } else if (purpose.op == kBatch) {
        const auto& items = member(parsed, "items");
        if (!items.is_array()) unreadable("the \"items\" of its batch are no array");
        for (const auto& item : items) purpose.mints.push_back(MintRecord::from_json(item));
    }
    return purpose;
}

}  // namespace abci::service
