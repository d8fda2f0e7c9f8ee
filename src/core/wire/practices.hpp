#pragma once
// The bodies of POST /api/practices and /api/verifications (spec 5.5) read
// into the service's requests. Each throws Error(invalid_input, "invalid
// request", problems) listing every problem.

#include <nlohmann/json.hpp>

#include "core/service/practices.hpp"

namespace abci::wire {

/// {title, description?, farmerId?}.
[[nodiscard]] service::PracticeRequest parse_practice(const nlohmann::json& body);
/// {practiceId, outcome: approved|rejected, notes?}.
[[nodiscard]] service::VerificationRequest parse_verification(const nlohmann::json& body);

}  // namespace abci::wire
