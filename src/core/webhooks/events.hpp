#pragma once
// The body a receiver gets for a mint's event (issue 34 item 3):
// {"type","timestamp","data"} with data.mintId and data.idempotencyKey, so
// that a receiver matches it to its request, and what the event tells:
// data.transactionHash (mint.submitted, mint.reorged), data.result (the
// mint's 200 answer, mint.confirmed), data.error ({kind,message}, mint.failed);
// and a role request's, the request as it stood once changed.

#include <cstddef>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/store/webhook_events.hpp"

namespace abci::webhooks {

/// A body stays under this (issue 34): a result that would not fit is left
/// out, and data.resultOmitted says to read it from data.statusUrl.
inline constexpr std::size_t kMaxEventBody = 20 * 1024;

/// A done mint's stored answer (MintRequest::answer) as the API's 200 body:
/// the front end's rendering, given to the delivery worker by who starts it.
using MintResultView = std::function<nlohmann::json(const std::string& answer)>;

/// The bytes sent for `event`, its timestamp the time it happened.
/// Error(internal) when a stored answer is unreadable.
[[nodiscard]] std::string event_body(const store::MintEvent& event, const MintResultView& result_view);
/// A role request's event: data is the request's id, walletAddress,
/// roleType, blockchainId and status, as its route names them.
[[nodiscard]] std::string event_body(const store::RoleRequestEvent& event);
/// Either kind, as the outbox holds it.
[[nodiscard]] std::string event_body(const store::StoredEvent& event, const MintResultView& result_view);
/// What an event is about, as one log field: ["mintId", id] or ["roleRequestId", id].
[[nodiscard]] nlohmann::json event_subject(const store::StoredEvent& event);

}  // namespace abci::webhooks
