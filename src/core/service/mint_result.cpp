#include "core/service/mint_result.hpp"

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/util/time.hpp"

namespace abci::service {

using nlohmann::json;

namespace {

MintResult from_version_2(const json& j) {
    MintResult r;
    r.family = j.at("family").get<std::string>() == "role" ? TokenFamily::role : TokenFamily::entity;
    r.transaction_hash = j.at("transactionHash").get<std::string>();
    r.block_number = j.at("blockNumber").get<std::uint64_t>();
    r.gas_used = j.at("gasUsed").get<std::uint64_t>();
    r.token_id = j.at("tokenId").get<std::uint64_t>();
    r.confirmations = j.at("confirmations").get<std::uint64_t>();
    const auto& chain = j.at("chain");
    r.chain = {chain.at("name").get<std::string>(), chain.at("chainId").get<std::uint64_t>(),
               chain.at("network").get<std::string>()};
    if (r.family == TokenFamily::role) {
        r.gas_price = eth::U256::parse(j.at("gasPrice").get<std::string>());
        r.contract_address = j.at("contractAddress").get<std::string>();
        r.contract_version = j.at("contractVersion").get<std::string>();
        r.timestamp = util::parse_rfc3339(j.at("timestamp").get<std::string>());
    } else {
        r.amount = j.at("amount").get<std::uint64_t>();
        r.cid = j.at("cid").get<std::string>();
        r.entity_type = j.at("entityType").get<std::string>();
        r.entity_id = j.at("entityId").get<std::string>();
    }
    return r;
}

// Version 1: the answer's body as the spec shapes it (only role answers name
// the network's family and the contract).
MintResult from_version_1(const json& body) {
    const auto& data = body.at("data");
    const auto& metadata = body.at("metadata");
    MintResult r;
    r.family = data.contains("amount") ? TokenFamily::entity : TokenFamily::role;
    r.transaction_hash = data.at("transactionHash").get<std::string>();
    r.block_number = data.at("blockNumber").get<std::uint64_t>();
    r.gas_used = std::stoull(data.at("gasUsed").get<std::string>());
    r.token_id = data.at("tokenId").get<std::uint64_t>();
    r.confirmations = data.at("confirmations").get<std::uint64_t>();
    const auto& chain = metadata.at("blockchain");
    r.chain = {chain.at("name").get<std::string>(), chain.at("chainId").get<std::uint64_t>(),
               chain.value("network", std::string())};
    if (r.family == TokenFamily::role) {
        r.gas_price = eth::U256::parse(data.at("gasPrice").get<std::string>());
        r.contract_address = metadata.at("contract").at("address").get<std::string>();
        r.contract_version = metadata.at("contract").at("version").get<std::string>();
        r.timestamp = util::parse_rfc3339(data.at("timestamp").get<std::string>());
    } else {
        r.amount = data.at("amount").get<std::uint64_t>();
        r.cid = metadata.at("ipfsHash").get<std::string>();
        r.entity_type = metadata.at("entityType").get<std::string>();
        r.entity_id = metadata.at("entityId").get<std::string>();
    }
    return r;
}

}  // namespace

std::string MintResult::serialize() const {
    json j = {{"version", kVersion},
              {"family", to_string(family)},
              {"transactionHash", transaction_hash},
              {"blockNumber", block_number},
              {"gasUsed", gas_used},
              {"tokenId", token_id},
              {"confirmations", confirmations},
              {"chain", {{"name", chain.name}, {"chainId", chain.chain_id}, {"network", chain.network}}}};
    if (family == TokenFamily::role) {
        j["gasPrice"] = gas_price.to_dec();
        j["contractAddress"] = contract_address;
        j["contractVersion"] = contract_version;
        j["timestamp"] = util::format_iso8601_utc(timestamp);
    } else {
        j["amount"] = amount;
        j["cid"] = cid;
        j["entityType"] = entity_type;
        j["entityId"] = entity_id;
    }
    return j.dump();
}

MintResult MintResult::parse(const std::string& stored) {
    try {
        const json j = json::parse(stored);
        if (j.contains("success")) return from_version_1(j);
        if (j.value("version", 0) == 2) return from_version_2(j);
    } catch (const std::exception& e) {
        throw Error(ErrorKind::internal, std::string("a stored mint answer is unreadable: ") + e.what());
    }
    throw Error(ErrorKind::internal, "a stored mint answer has a version this release does not know");
}

MintResult MintResult::accepted(std::string mint_id) {
    MintResult result;
    result.mint_id = std::move(mint_id);
    result.pending = true;
    return result;
}

}  // namespace abci::service
