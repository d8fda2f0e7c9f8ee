// AbciService's construction and what its files share (service_parts.hpp).
// The service's jobs each have a file: mint.cpp (a mint and its
// Idempotency-Key, up to its receipt), settle.cpp (recording a mint's outcome:
// live, for a caller who stopped waiting, and at start), reads.cpp (balances,
// chains, token metadata, a mint's status) and health.cpp (health and readiness).
#include "core/service/service.hpp"

#include <algorithm>

#include "core/service/service_parts.hpp"
#include "core/util/time.hpp"

namespace abci::service {

using nlohmann::json;

std::string now_iso() { return util::format_iso8601_utc(std::chrono::system_clock::now()); }

json metadata_record(const TokenKind& kind, const EntityMetadata& metadata, const eth::Address& issuer,
                     const eth::Address& beneficiary, const std::string& issued_at) {
    json attributes = json::array();
    for (const auto& a : metadata.attributes) {
        json attribute = {{"trait_type", a.trait_type}};
        std::visit([&](const auto& value) { attribute["value"] = value; }, a.value);
        if (a.display_type) attribute["display_type"] = *a.display_type;
        attributes.push_back(std::move(attribute));
    }
    return {
        {"tokenId", kind.id},
        {"tokenType", to_string(kind.family)},
        {"category", kind.category},
        {"name", metadata.name},
        {"description", metadata.description},
        {"image", metadata.image},
        {"external_url", metadata.external_url},
        {"attributes", std::move(attributes)},
        {"properties",
         {{"issuer", issuer.checksummed()},
          {"beneficiary", beneficiary.checksummed()},
          {"issuedAt", issued_at},
          {"expiresAt", nullptr},
          {"transferable", !is_soulbound(kind.family)},
          {"revocable", false}}},
    };
}

EntityMetadata role_metadata(const TokenKind& kind, Attributes attributes) {
    return {std::string(kind.name), "Soulbound " + std::string(kind.category) + " role of the ESG workflow platform", "",
            "", std::move(attributes)};
}

void validate_idempotency_key(const std::string& key) {
    const bool ok = !key.empty() && key.size() <= 255 &&
                    std::all_of(key.begin(), key.end(), [](char c) { return c >= 0x20 && c < 0x7f; });
    if (!ok) throw Error(ErrorKind::invalid_input, "invalid request", {"Idempotency-Key must be 1 to 255 printable ASCII characters"});
}

AbciService::AbciService(store::Store& store, Registry& registry, content::ContentStore& content,
                         std::string admin_store)
    : store_(store), registry_(registry), content_(content), admin_store_(std::move(admin_store)), balances_(store) {}
}  // namespace abci::service
