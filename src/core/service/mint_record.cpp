#include "core/service/mint_record.hpp"

#include "core/error.hpp"
#include "core/util/json_members.hpp"

namespace abci::service {

using nlohmann::json;

namespace {

constexpr const char* kMint = "mint";
constexpr const char* kBatch = "mintMany";

constexpr const char* kUnreadable = "a journaled mint record cannot be read";

util::RequiredMembers members_of(const json& record) {
    return util::RequiredMembers(record, ErrorKind::internal, kUnreadable);
}

// The kind of a version 1 record, which named the route (its "route"): the
// rule by which the schema migration made kinds of the routes in
// mint_requests (core/store/migrations.cpp, kMintKinds), so that a record
// without a mint id still names its mint by actor, kind and key.
store::MintKind kind_of_route(const util::RequiredMembers& record, const std::string& actor, const std::string& key) {
    const auto route = record.text("route");
    if (route == "POST /abci/contracts/mint-role-token")
        return actor == "workflow:role-request" ? store::MintKind::workflow_role : store::MintKind::role;
    if (route == "POST /abci/contracts/mint-entity-token")
        return key.starts_with("certificate:") ? store::MintKind::certificate : store::MintKind::entity;
    throw record.refusal("route", "names no kind of mint this release knows: '" + route + "'");
}

store::MintKind kind_by_name(const util::RequiredMembers& record) {
    const auto name = record.text("kind");
    const auto kind = store::parse_mint_kind(name);
    if (!kind) throw record.refusal("kind", "names no kind of mint this release knows: '" + name + "'");
    return *kind;
}

MintRecord read_record(const util::RequiredMembers& record, std::uint64_t version) {
    MintRecord r;
    if (record.has("mintId")) r.mint_id = record.text("mintId");
    r.actor = record.text("actor");
    r.key = record.text("key");
    r.kind = version == 1 ? kind_of_route(record, r.actor, r.key) : kind_by_name(record);
    const auto to = record.text("to");
    try {
        r.to = eth::Address::parse(to);
    } catch (const Error& e) {
        throw record.refusal("to", std::string("is no address: ") + e.what());
    }
    r.token_id = record.count("tokenId");
    r.amount = record.count("amount");
    r.cid = record.text("cid");
    r.entity_type = record.text("entityType");
    r.entity_id = record.text("entityId");
    r.role_request_id = record.text("roleRequestId");
    return r;
}

}  // namespace

json MintRecord::to_json() const {
    return {{"op", kMint},
            {"version", kVersion},
            {"mintId", mint_id},
            {"kind", store::to_string(kind)},
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
    const auto members = members_of(record);
    if (record.value("op", "") != kMint) throw members.refusal("op", "is not \"mint\"");
    return read_record(members, members.version(kVersion));
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
        const auto batch = members_of(parsed);
        const auto& items = batch.any("items");
        if (!items.is_array()) throw batch.refusal("items", "is no array");
        for (const auto& item : items) purpose.mints.push_back(MintRecord::from_json(item));
    }
    return purpose;
}

}  // namespace abci::service
