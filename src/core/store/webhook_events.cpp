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
                         .at = TimePoint(std::chrono::milliseconds(j.at("at").get<std::int64_t>()))};
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
                                    .at = TimePoint(std::chrono::milliseconds(j.at("at").get<std::int64_t>()))};
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
