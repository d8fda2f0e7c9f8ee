#pragma once
// The spec's bodies of what the ABCI service reports (§4.3–4.8): its field
// names, envelope and timestamps; the service returns types.

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/service/health.hpp"
#include "core/service/mint_result.hpp"
#include "core/service/reads.hpp"

namespace abci::serve {

/// Spec 4.1 and 4.2: a mined mint's answer.
[[nodiscard]] nlohmann::json mint_result_view(const service::MintResult& result);

/// Spec 4.3–4.7 and a mint's status (docs/api.md): the envelope
/// {success: true, data, metadata} around each result.
[[nodiscard]] nlohmann::json token_balance_view(const service::TokenBalance& balance);
[[nodiscard]] nlohmann::json user_balance_view(const service::UserBalance& balance);
[[nodiscard]] nlohmann::json blockchains_view(const std::vector<service::NetworkListing>& networks);
[[nodiscard]] nlohmann::json blockchain_status_view(const service::BlockchainStatus& status);
[[nodiscard]] nlohmann::json token_metadata_view(const service::TokenMetadata& metadata);
[[nodiscard]] nlohmann::json mint_status_view(const service::MintStatus& status);
/// The data of a 202 to a mint that does not wait (MintResult::pending):
/// mintId, state "pending" and the request's idempotencyKey (null without one).
[[nodiscard]] nlohmann::json mint_accepted_view(const service::MintResult& result,
                                                const std::optional<std::string>& idempotency_key);

/// GET /abci/health, /readyz: {status, checks: {name: {...}}, timestamp};
/// `status` is `healthy_word` when every check is healthy, else `unhealthy_word`.
[[nodiscard]] nlohmann::json health_view(const service::HealthReport& report, const char* healthy_word,
                                         const char* unhealthy_word);
/// 200 for a healthy report, 503 (a load balancer's "take it out") otherwise.
[[nodiscard]] int health_status(const service::HealthReport& report);

}  // namespace abci::serve
