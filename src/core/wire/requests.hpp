#pragma once
// The spec's JSON request bodies read into core's typed requests: the one
// reader both front ends use, so that the server (400 with every problem in
// Error::details) and the command line (checked before anything is sent) give
// the same messages. Core's services never see the JSON.

#include <string>

#include <nlohmann/json.hpp>

#include "core/service/requests.hpp"
#include "core/store/store.hpp"

namespace abci::wire {

/// Spec 4.1's body. Throws Error(invalid_input, "invalid request", problems).
[[nodiscard]] service::MintRoleRequest parse_mint_role(const nlohmann::json& body);
/// Spec 4.2's body; all fields required except metadata's description,
/// image, external_url and attributes. Throws as parse_mint_role().
[[nodiscard]] service::MintEntityRequest parse_mint_entity(const nlohmann::json& body);

/// POST /v1/role-requests' body (roleType, walletAddress, blockchainId, an
/// optional note) as the request of user `user_id`, the wallet in lower case.
/// Throws as parse_mint_role().
[[nodiscard]] store::NewRoleRequest parse_role_request(const nlohmann::json& body, const std::string& user_id);

/// POST /v1/certifiers/certificates' body: title, description,
/// recipientAddress, blockchainId, and the token metadata's optional image,
/// external_url and attributes, checked as a mint's metadata is. Throws as
/// parse_mint_role().
[[nodiscard]] service::CertificateRequest parse_certificate(const nlohmann::json& body);

}  // namespace abci::wire
