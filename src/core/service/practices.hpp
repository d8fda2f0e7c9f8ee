#pragma once
// The role-gated records of spec 5.5: a farmer's profile, the practices
// farmers record, the verifications of a practice, with who may see or write
// what (a farmer sees and records only for themselves). Front ends pass the
// authenticated caller and the request's body; refusals are abci::Error
// (forbidden, not_found, unprocessable, invalid_input with every problem).

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/auth/auth_service.hpp"
#include "core/store/store.hpp"

namespace abci::service {

struct FarmerProfile {
    store::User user;
    std::vector<std::string> wallets;
    std::vector<store::Practice> practices;
};

class Practices {
public:
    explicit Practices(store::Store& store) : store_(store) {}

    /// The profile of `user_id` (the caller's own when unset).
    [[nodiscard]] FarmerProfile farmer_profile(const auth::Principal& caller, const std::optional<std::string>& user_id);
    /// Records a practice from {title, description?, farmerId?}; farmerId defaults to the caller.
    [[nodiscard]] store::Practice record_practice(const auth::Principal& caller, const nlohmann::json& body);
    /// Records a verification from {practiceId, outcome: approved|rejected, notes?}.
    [[nodiscard]] store::Verification record_verification(const auth::Principal& caller, const nlohmann::json& body);

private:
    store::Store& store_;
};

}  // namespace abci::service
