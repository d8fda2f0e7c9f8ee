#pragma once
// Farmers' sustainable practices and the verifiers' verdicts on them (spec 5.5).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/store/records.hpp"

namespace abci::store {

struct Practice {
    std::string id;  // UUID v4
    std::string farmer_id;
    std::string title;
    std::string description;
    TimePoint created_at;
};

struct NewPractice {
    std::string farmer_id;
    std::string title;
    std::string description;
};

enum class VerificationOutcome { approved, rejected };
[[nodiscard]] const char* to_string(VerificationOutcome outcome) noexcept;
[[nodiscard]] std::optional<VerificationOutcome> parse_verification_outcome(std::string_view name) noexcept;

struct Verification {
    std::string id;  // UUID v4
    std::string practice_id;
    std::string verifier_id;
    VerificationOutcome outcome = VerificationOutcome::approved;
    std::string notes;
    TimePoint created_at;
};

struct NewVerification {
    std::string practice_id;
    std::string verifier_id;
    VerificationOutcome outcome = VerificationOutcome::approved;
    std::string notes;
};

class Practices {
public:
    virtual ~Practices() = default;
    /// Error(not_found) when the farmer does not exist.
    [[nodiscard]] virtual Practice create(const NewPractice& practice) = 0;
    [[nodiscard]] virtual std::optional<Practice> find(const std::string& id) = 0;
    /// The farmer's practices, oldest first.
    [[nodiscard]] virtual std::vector<Practice> of_farmer(const std::string& farmer_id) = 0;
    /// Error(not_found) when the practice or the verifier does not exist.
    [[nodiscard]] virtual Verification add_verification(const NewVerification& verification) = 0;
    /// Verifications of one practice, oldest first.
    [[nodiscard]] virtual std::vector<Verification> verifications_of(const std::string& practice_id) = 0;
};

}  // namespace abci::store
