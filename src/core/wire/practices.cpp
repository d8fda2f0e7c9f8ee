#include "core/wire/practices.hpp"

#include "core/util/fields.hpp"

namespace abci::wire {

namespace {

constexpr std::size_t kMaxTextLength = 10000;

}  // namespace

service::PracticeRequest parse_practice(const nlohmann::json& body) {
    util::Fields fields(body);
    service::PracticeRequest request;
    request.title = fields.required_string("title", 200);
    request.description = fields.optional_string("description", kMaxTextLength).value_or("");
    request.farmer_id = fields.optional_string("farmerId", 64);
    fields.done();
    return request;
}

service::VerificationRequest parse_verification(const nlohmann::json& body) {
    util::Fields fields(body);
    service::VerificationRequest request;
    request.practice_id = fields.required_string("practiceId", 64);
    const auto outcome = fields.required_string("outcome", 16);
    request.notes = fields.optional_string("notes", kMaxTextLength).value_or("");
    const auto parsed = store::parse_verification_outcome(outcome);
    fields.check(outcome.empty() || parsed, "outcome must be approved or rejected");
    fields.done();
    request.outcome = *parsed;
    return request;
}

}  // namespace abci::wire
