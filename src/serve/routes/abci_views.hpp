#pragma once
// The spec's bodies of what the ABCI service reports (§4.3–4.8): its field
// names, envelope and timestamps; the service returns types.

#include <nlohmann/json.hpp>

#include "core/service/health.hpp"

namespace abci::serve {

/// GET /abci/health, /readyz: {status, checks: {name: {...}}, timestamp};
/// `status` is `healthy_word` when every check is healthy, else `unhealthy_word`.
[[nodiscard]] nlohmann::json health_view(const service::HealthReport& report, const char* healthy_word,
                                         const char* unhealthy_word);
/// 200 for a healthy report, 503 (a load balancer's "take it out") otherwise.
[[nodiscard]] int health_status(const service::HealthReport& report);

}  // namespace abci::serve
