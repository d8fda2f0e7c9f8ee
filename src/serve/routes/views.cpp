#include "serve/routes/views.hpp"

#include "core/eth/address.hpp"
#include "core/service/certificate_token.hpp"
#include "core/util/time.hpp"

namespace abci::serve {

std::string iso_time(store::TimePoint t) { return util::format_iso8601_utc(t); }

nlohmann::json user_view(const store::User& user) {
    return {{"id", user.id}, {"email", user.email}, {"role", user.role}, {"verified", user.verified}};
}

nlohmann::json account_view(const service::Account& account) {
    auto view = user_view(account.user);
    view["wallets"] = account.wallets;
    return view;
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

nlohmann::json role_request_view(const store::RoleRequest& r) {
    return {{"id", r.id},
            {"userId", r.user_id},
            {"roleType", r.role_type},
            {"walletAddress", r.wallet_address},
            {"blockchainId", r.blockchain_id},
            {"note", r.note},
            {"status", store::to_string(r.status)},
            {"approvedBy", r.approved_by.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.approved_by)},
            {"approvedAt", r.approved_at ? nlohmann::json(iso_time(*r.approved_at)) : nlohmann::json(nullptr)},
            {"transactionHash", r.tx_hash.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.tx_hash)},
            {"blockNumber", r.block_number ? nlohmann::json(r.block_number) : nlohmann::json(nullptr)},
            {"failure", r.failure.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.failure)},
            {"createdAt", iso_time(r.created_at)},
            {"updatedAt", iso_time(r.updated_at)}};
}

namespace {

nlohmann::json certificate_token_view(const service::CertificateToken& t) {
    return {{"tokenId", t.token_id},
            {"amount", t.amount},
            {"transactionHash", t.transaction_hash},
            {"blockNumber", t.block_number},
            {"metadataUri", "ipfs://" + t.cid},
            {"ipfsHash", t.cid},
            {"blockchain", {{"name", t.chain_name}, {"chainId", t.chain_id}}}};
}

}  // namespace

nlohmann::json certificate_view(const store::Certificate& c) {
    return {{"id", c.id},
            {"userId", c.user_id},
            {"blockchainId", c.blockchain_id},
            {"certifierAddress", eth::Address::parse(c.wallet_address).checksummed()},
            {"recipientAddress", eth::Address::parse(c.recipient).checksummed()},
            {"title", c.title},
            {"description", c.description},
            {"status", store::to_string(c.status)},
            {"token", c.token.empty() ? nlohmann::json(nullptr) : certificate_token_view(service::CertificateToken::parse(c.token))},
            {"createdAt", iso_time(c.created_at)},
            {"updatedAt", iso_time(c.updated_at)}};
}

}  // namespace abci::serve
