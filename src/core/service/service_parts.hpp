#pragma once
// What the files of AbciService share (service.cpp defines it): the mint
// routes' names, the metadata record of a mint, and how a mint's failure is
// stored for its Idempotency-Key. Not for use outside
// core/service.

#include <string>

#include <nlohmann/json.hpp>

#include "core/service/network_config.hpp"
#include "core/service/tokens.hpp"
#include "core/error.hpp"
#include "core/eth/address.hpp"

namespace abci::service {

inline constexpr const char* kMintRoleRoute = "POST /abci/contracts/mint-role-token";
inline constexpr const char* kMintEntityRoute = "POST /abci/contracts/mint-entity-token";

[[nodiscard]] std::string now_iso();
/// The ERC-1155 metadata record of spec 2.4 for one mint.
[[nodiscard]] nlohmann::json metadata_record(const TokenKind& kind, const nlohmann::json& details,
                                             const eth::Address& issuer, const eth::Address& beneficiary,
                                             const std::string& issued_at);
/// A failed mint's stored answer, which a repeat of its Idempotency-Key replays as the same error.
[[nodiscard]] std::string failure_answer(const Error& error);

}  // namespace abci::service
