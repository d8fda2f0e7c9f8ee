#include "core/webhooks/events.hpp"

#include <type_traits>

#include "core/error.hpp"
#include "core/util/time.hpp"

namespace abci::webhooks {

using nlohmann::json;

std::string event_body(const store::MintEvent& event, const MintResultView& result_view) {
    json data{{"mintId", event.mint_id},
              {"idempotencyKey", event.idempotency_key.empty() ? json(nullptr) : json(event.idempotency_key)},
              {"blockchainId", event.blockchain_id},
              {"statusUrl", "/abci/contracts/mints/" + event.mint_id}};
    switch (event.type) {
    case store::EventType::mint_submitted:
    case store::EventType::mint_reorged: data["transactionHash"] = event.transaction_hash; break;
    case store::EventType::mint_confirmed: data["result"] = result_view(event.answer); break;
    case store::EventType::mint_failed: {
        // {kind, message} of what is stored, whatever else a version of the stored form adds.
        const auto stored = json::parse(event.answer, nullptr, false);
        if (!stored.is_object() || !stored.contains("kind") || !stored["kind"].is_string() ||
            !stored.contains("message") || !stored["message"].is_string())
            throw Error(ErrorKind::internal, "a failed mint's stored error is unreadable");
        data["error"] = {{"kind", stored["kind"]}, {"message", stored["message"]}};
        break;
    }
    default: throw Error(ErrorKind::internal, std::string("no mint event is called ") + to_string(event.type));
    }
    json body{{"type", to_string(event.type)}, {"timestamp", util::format_iso8601_utc(event.at)}, {"data", data}};
    std::string bytes = body.dump();
    if (bytes.size() >= kMaxEventBody && body["data"].contains("result")) {
        body["data"].erase("result");
        body["data"]["resultOmitted"] = true;
        bytes = body.dump();
    }
    return bytes;
}

std::string event_body(const store::RoleRequestEvent& event) {
    return json{{"type", to_string(event.type)},
                {"timestamp", util::format_iso8601_utc(event.at)},
                {"data",
                 {{"id", event.id},
                  {"walletAddress", event.wallet_address},
                  {"roleType", event.role_type},
                  {"blockchainId", event.blockchain_id},
                  {"status", event.status}}}}
        .dump();
}

std::string event_body(const store::CertificateEvent& event, const CertificateView& view) {
    json data = view(event.certificate);
    data["mintId"] = event.mint_id.empty() ? json(nullptr) : json(event.mint_id);
    json body{{"type", to_string(event.type)}, {"timestamp", util::format_iso8601_utc(event.at)}, {"data", data}};
    std::string bytes = body.dump();
    // A description of control characters, escaped six bytes each, is the one field that can outgrow a body.
    if (bytes.size() >= kMaxEventBody) {
        body["data"].erase("description");
        body["data"]["descriptionOmitted"] = true;
        bytes = body.dump();
    }
    return bytes;
}

std::string event_body(const store::LaneEvent& event) {
    const auto slash = event.lane.rfind('/');
    if (slash == std::string::npos) throw Error(ErrorKind::internal, "a lane event names no lane: " + event.lane);
    return json{{"type", to_string(event.type)},
                {"timestamp", util::format_iso8601_utc(event.at)},
                {"data",
                 {{"lane", event.lane},
                  {"blockchainId", event.lane.substr(0, slash)},
                  {"signerAddress", event.lane.substr(slash + 1)},
                  {"previousOwner", event.previous_owner.empty() ? json(nullptr) : json(event.previous_owner)},
                  {"owner", event.owner},
                  {"epoch", event.epoch}}}}
        .dump();
}

std::string event_body(const store::SignerBalanceEvent& event) {
    const auto& r = event.reading;
    return json{{"type", to_string(event.type)},
                {"timestamp", util::format_iso8601_utc(event.at)},
                {"data",
                 {{"blockchainId", r.blockchain_id},
                  {"address", r.address},
                  {"balance", r.balance},
                  {"minimumBalance", r.minimum_balance},
                  {"estimatedMints", r.estimated_mints}}}}
        .dump();
}

std::string event_body(const store::StoredEvent& event, const EventViews& views) {
    return std::visit(
        [&](const auto& e) {
            using Event = std::decay_t<decltype(e)>;
            if constexpr (std::is_same_v<Event, store::MintEvent>) return event_body(e, views.mint_result);
            else if constexpr (std::is_same_v<Event, store::CertificateEvent>) return event_body(e, views.certificate);
            else return event_body(e);
        },
        event);
}

json event_subject(const store::StoredEvent& event) {
    return std::visit(
        [](const auto& e) {
            using Event = std::decay_t<decltype(e)>;
            if constexpr (std::is_same_v<Event, store::MintEvent>) return json::array({"mintId", e.mint_id});
            else if constexpr (std::is_same_v<Event, store::RoleRequestEvent>)
                return json::array({"roleRequestId", e.id});
            else if constexpr (std::is_same_v<Event, store::CertificateEvent>)
                return json::array({"certificateId", e.certificate.id});
            else return json::array({"lane", e.lane});
        },
        event);
}

}  // namespace abci::webhooks
