#pragma once
// The role-gated records of spec 5.5: a farmer's profile, the practices
// farmers record, the verifications of a practice, with who may see or write
// what (a farmer sees and records only for themselves). Front ends pass the
// authenticated caller and the request, read by core/wire/practices.hpp;
// refusals are abci::Error (forbidden, not_found, unprocessable).

#include <optional>
#include <string>
#include <vector>

#include "core/auth/auth_service.hpp"
#include "core/store/store.hpp"

namespace abci::service {

struct FarmerProfile {
    store::User user;
    std::vector<std::string> wallets;
    std::vector<store::Practice> practices;
};

/// A practice to record; farmer_id unset means the caller.
struct PracticeRequest {
    std::string title;
    std::string description;
    std::optional<std::string> farmer_id;
};

/// A verification of a practice to record.
struct VerificationRequest {
    std::string practice_id;
    store::VerificationOutcome outcome = store::VerificationOutcome::approved;
    std::string notes;
};

class Practices {
public:
    explicit Practices(store::Store& store) : store_(store) {}

    /// The profile of `user_id` (the caller's own when unset).
    [[nodiscard]] FarmerProfile farmer_profile(const auth::Principal& caller, const std::optional<std::string>& user_id);
    [[nodiscard]] store::Practice record_practice(const auth::Principal& caller, const PracticeRequest& request);
    [[nodiscard]] store::Verification record_verification(const auth::Principal& caller,
                                                          const VerificationRequest& request);

private:
    store::Store& store_;
};

}  // namespace abci::service
