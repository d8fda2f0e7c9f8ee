#include "core/webhooks/events.hpp"

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

std::string event_body(const store::StoredEvent& event, const MintResultView& result_view) {
    if (const auto* mint = std::get_if<store::MintEvent>(&event)) return event_body(*mint, result_view);
    return event_body(std::get<store::RoleRequestEvent>(event));
}

json event_subject(const store::StoredEvent& event) {
    if (const auto* mint = std::get_if<store::MintEvent>(&event)) return json::array({"mintId", mint->mint_id});
    return json::array({"roleRequestId", std::get<store::RoleRequestEvent>(event).id});
}

}  // namespace abci::webhooks
