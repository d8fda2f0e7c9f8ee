#include "core/store/webhook_events.hpp"

#include <list>
#include <mutex>

#include <nlohmann/json.hpp>

#include "core/error.hpp"

namespace abci::store {
namespace {

using nlohmann::json;

std::int64_t millis_of(TimePoint t) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

TimePoint time_at(const json& j, const char* key) {
    return TimePoint(std::chrono::milliseconds(j.at(key).get<std::int64_t>()));
}

json certificate_json(const Certificate& c) {
    return {{"id", c.id},
            {"userId", c.user_id},
            {"blockchainId", c.blockchain_id},
            {"walletAddress", c.wallet_address},
            {"recipient", c.recipient},
            {"title", c.title},
            {"description", c.description},
            {"status", to_string(c.status)},
            {"cid", c.cid},
            {"tokenId", c.token_id},
            {"txHash", c.tx_hash},
            {"blockNumber", c.block_number},
            {"token", c.token},
            {"createdAt", millis_of(c.created_at)},
            {"updatedAt", millis_of(c.updated_at)}};
}

Certificate certificate_of(const json& j) {
    const auto status = parse_certificate_status(j.at("status").get<std::string>());
    if (!status) throw Error(ErrorKind::internal, "a stored certificate.issued event has an unknown status");
    return Certificate{.id = j.at("id").get<std::string>(),
                       .user_id = j.at("userId").get<std::string>(),
                       .blockchain_id = j.at("blockchainId").get<std::string>(),
                       .wallet_address = j.at("walletAddress").get<std::string>(),
                       .recipient = j.at("recipient").get<std::string>(),
                       .title = j.at("title").get<std::string>(),
                       .description = j.at("description").get<std::string>(),
                       .status = *status,
                       .cid = j.at("cid").get<std::string>(),
                       .token_id = j.at("tokenId").get<std::uint64_t>(),
                       .tx_hash = j.at("txHash").get<std::string>(),
                       .block_number = j.at("blockNumber").get<std::uint64_t>(),
                       .token = j.at("token").get<std::string>(),
                       .created_at = time_at(j, "createdAt"),
                       .updated_at = time_at(j, "updatedAt")};
}

struct Listeners {
    std::mutex mutex;
    std::list<std::function<void()>> all;
};

Listeners& listeners() {
    static Listeners instance;
    return instance;
}

}  // namespace

std::string MintEvent::serialize() const {
    return json{{"type", to_string(type)},
                {"mintId", mint_id},
                {"blockchainId", blockchain_id},
                {"idempotencyKey", idempotency_key},
                {"transactionHash", transaction_hash},
                {"answer", answer},
                {"at", millis_of(at)}}
        .dump();
}

MintEvent MintEvent::parse(const std::string& stored) {
    try {
        const json j = json::parse(stored);
        const auto type = parse_event_type(j.at("type").get<std::string>());
        if (!type) throw Error(ErrorKind::internal, "a stored webhook event has a type this release does not know");
        return MintEvent{.type = *type,
                         .mint_id = j.at("mintId").get<std::string>(),
                         .blockchain_id = j.at("blockchainId").get<std::string>(),
                         .idempotency_key = j.at("idempotencyKey").get<std::string>(),
                         .transaction_hash = j.at("transactionHash").get<std::string>(),
                         .answer = j.at("answer").get<std::string>(),
                         .at = time_at(j, "at")};
    } catch (const json::exception& e) {
        throw Error(ErrorKind::internal, std::string("a stored webhook event is unreadable: ") + e.what());
    }
}

std::string RoleRequestEvent::serialize() const {
    return json{{"type", to_string(type)},     {"id", id},       {"walletAddress", wallet_address},
                {"roleType", role_type},       {"blockchainId", blockchain_id}, {"status", status},
                {"at", millis_of(at)}}
        .dump();
}

std::string CertificateEvent::serialize() const {
    return json{{"type", to_string(type)},
                {"certificate", certificate_json(certificate)},
                {"mintId", mint_id},
                {"at", millis_of(at)}}
        .dump();
}

std::string LaneEvent::serialize() const {
    return json{{"type", to_string(type)}, {"lane", lane},   {"previousOwner", previous_owner},
                {"owner", owner},          {"epoch", epoch}, {"at", millis_of(at)}}
        .dump();
}

std::string SignerBalanceEvent::serialize() const {
    return json{{"type", to_string(type)},
                {"lane", lane},
                {"blockchainId", reading.blockchain_id},
                {"address", reading.address},
                {"balance", reading.balance},
                {"minimumBalance", reading.minimum_balance},
                {"estimatedMints", reading.estimated_mints},
                {"at", millis_of(at)}}
        .dump();
}

StoredEvent parse_stored_event(const std::string& stored) {
    try {
        const json j = json::parse(stored);
        const auto type = parse_event_type(j.at("type").get<std::string>());
        if (!type) throw Error(ErrorKind::internal, "a stored webhook event has a type this release does not know");
        switch (*type) {
        case EventType::role_request_created:
        case EventType::role_request_approved:
        case EventType::role_request_rejected:
            return RoleRequestEvent{.type = *type,
                                    .id = j.at("id").get<std::string>(),
                                    .wallet_address = j.at("walletAddress").get<std::string>(),
                                    .role_type = j.at("roleType").get<std::string>(),
                                    .blockchain_id = j.at("blockchainId").get<std::string>(),
                                    .status = j.at("status").get<std::string>(),
                                    .at = time_at(j, "at")};
        case EventType::certificate_issued:
            return CertificateEvent{.type = *type,
                                    .certificate = certificate_of(j.at("certificate")),
                                    .mint_id = j.at("mintId").get<std::string>(),
                                    .at = time_at(j, "at")};
        case EventType::lane_owner_changed:
            return LaneEvent{.type = *type,
                             .lane = j.at("lane").get<std::string>(),
                             .previous_owner = j.at("previousOwner").get<std::string>(),
                             .owner = j.at("owner").get<std::string>(),
                             .epoch = j.at("epoch").get<std::int64_t>(),
                             .at = time_at(j, "at")};
        case EventType::signer_balance_low:
            return SignerBalanceEvent{.type = *type,
                                      .lane = j.at("lane").get<std::string>(),
                                      .reading = {.blockchain_id = j.at("blockchainId").get<std::string>(),
                                                  .address = j.at("address").get<std::string>(),
                                                  .balance = j.at("balance").get<std::string>(),
                                                  .minimum_balance = j.at("minimumBalance").get<std::string>(),
                                                  .estimated_mints = j.at("estimatedMints").get<std::uint64_t>(),
                                                  .low = true},
                                      .at = time_at(j, "at")};
        default: return MintEvent::parse(stored);
        }
    } catch (const json::exception& e) {
        throw Error(ErrorKind::internal, std::string("a stored webhook event is unreadable: ") + e.what());
    }
}

EventType type_of(const StoredEvent& event) noexcept {
    return std::visit([](const auto& e) { return e.type; }, event);
}

std::shared_ptr<void> on_events_written(std::function<void()> listener) {
    auto& l = listeners();
    const std::lock_guard lock(l.mutex);
    const auto it = l.all.insert(l.all.end(), std::move(listener));
    return std::shared_ptr<void>(nullptr, [it](void*) {
        auto& l = listeners();
        const std::lock_guard lock(l.mutex);
        l.all.erase(it);
    });
}

void events_written() noexcept {
    auto& l = listeners();
    const std::lock_guard lock(l.mutex);
    for (const auto& listener : l.all) listener();
}

}  // namespace abci::store
