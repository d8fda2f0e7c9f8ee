#pragma once
// What a mined mint produced: the service returns it, serve renders it as the
// spec's answer (4.1, 4.2), and it is stored with the mint (MintRequest's
// answer) so that a repeat of the mint's Idempotency-Key, or its status,
// gets the same answer. A durable format read by later releases: this
// module is its only reader and writer.
//
// Stored versions:
//   1  the spec's answer body itself, {"success", "data", "metadata"}, as
//      releases before this module stored it
//   2  {"version":2, "family", "transactionHash", "blockNumber", "gasUsed",
//      "tokenId", "confirmations", "chain":{"name","chainId","network"},
//      role: "gasPrice", "contractAddress", "contractVersion", "timestamp";
//      entity: "amount", "cid", "entityType", "entityId"}

#include <cstdint>
#include <string>

#include "core/eth/u256.hpp"
#include "core/service/network_config.hpp"
#include "core/service/tokens.hpp"
#include "core/store/records.hpp"

namespace abci::service {

struct MintResult {
    static constexpr int kVersion = 2;

    TokenFamily family = TokenFamily::role;
    std::string transaction_hash;
    std::uint64_t block_number = 0;
    std::uint64_t gas_used = 0;
    std::uint64_t token_id = 0;
    std::uint64_t confirmations = 0;
    ChainRef chain;
    // A role mint's.
    eth::U256 gas_price;           // effective, per gas
    std::string contract_address;  // checksummed
    std::string contract_version;
    store::TimePoint timestamp;  // when it was recorded
    // An entity mint's.
    std::uint64_t amount = 0;
    std::string cid;  // of the metadata record
    std::string entity_type;
    std::string entity_id;
    // Not stored: the mint's own key (MintRequest's id), which the service
    // sets on what it returns, so that an answer names its status route.
    std::string mint_id;
    // Not stored either: what a caller that does not wait (MintWait::no) gets
    // for a mint not final yet, with mint_id alone set.
    bool pending = false;

    /// What a caller that does not wait gets for mint `mint_id` while it is not final.
    [[nodiscard]] static MintResult accepted(std::string mint_id);
    /// The stored form, version kVersion.
    [[nodiscard]] std::string serialize() const;
    /// Any stored version. Error(internal) for text no release wrote.
    [[nodiscard]] static MintResult parse(const std::string& stored);
};

}  // namespace abci::service
