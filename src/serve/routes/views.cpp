#include "serve/routes/views.hpp"

#include "core/util/time.hpp"

namespace abci::serve {

std::string iso_time(store::TimePoint t) { return util::format_iso8601_utc(t); }

nlohmann::json user_view(const store::User& user) {
    return {{"id", user.id}, {"email", user.email}, {"role", user.role}, {"verified", user.verified}};
}

nlohmann::json login_view(const auth::LoginResult& login) {
    return {{"success", true},
            {"token", login.access_token},
            {"expires_in", login.expires_in},
            {"refresh_token", login.refresh_token},
            {"user", user_view(login.user)}};
}

nlohmann::json practice_view(const store::Practice& practice) {
    return {{"id", practice.id},
            {"farmerId", practice.farmer_id},
            {"title", practice.title},
            {"description", practice.description},
            {"createdAt", iso_time(practice.created_at)}};
}

nlohmann::json verification_view(const store::Verification& verification) {
    return {{"id", verification.id},
            {"practiceId", verification.practice_id},
            {"verifierId", verification.verifier_id},
            {"outcome", store::to_string(verification.outcome)},
            {"notes", verification.notes},
            {"createdAt", iso_time(verification.created_at)}};
}

nlohmann::json api_key_view(const store::ApiKey& key) {
    return {{"id", key.id},
            {"name", key.name},
            {"scopes", key.scopes},
            {"createdBy", key.created_by},
            {"createdAt", iso_time(key.created_at)},
            {"revokedAt", key.revoked_at ? nlohmann::json(iso_time(*key.revoked_at)) : nlohmann::json(nullptr)}};
}

nlohmann::json audit_view(const store::AuditEntry& entry) {
    return {{"id", entry.id},
            {"time", iso_time(entry.time)},
            {"actor", entry.actor},
            {"method", entry.method},
            {"path", entry.path},
            {"status", entry.status},
            {"clientAddress", entry.client_address},
            {"requestId", entry.request_id},
            {"count", entry.count},
            {"lastTime", entry.last_time ? nlohmann::json(iso_time(*entry.last_time)) : nlohmann::json(nullptr)}};
}

}  // namespace abci::serve
