#pragma once
// The body a receiver gets for a mint's event (issue 34 item 3):
// {"type","timestamp","data"} with data.mintId and data.idempotencyKey, so
// that a receiver matches it to its request, and what the event tells:
// data.transactionHash (mint.submitted, mint.reorged), data.result (the
// mint's 200 answer, mint.confirmed), data.error ({kind,message}, mint.failed);
// a role request's, the request as it stood once changed; a certificate's,
// its route view and mintId; a lane's, its chain, signer, owners and epoch;
// a signer's low balance, the balance and its floor.

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

/// A certificate as its route (GET /v1/certifiers/certificates/{id}) shows it.
using CertificateView = std::function<nlohmann::json(const store::Certificate& certificate)>;

/// The front end's renderings that bodies embed.
struct EventViews {
    MintResultView mint_result;
    CertificateView certificate;
};

/// The bytes sent for `event`, its timestamp the time it happened.
/// Error(internal) when a stored answer is unreadable.
[[nodiscard]] std::string event_body(const store::MintEvent& event, const MintResultView& result_view);
/// A role request's event: data is the request's id, walletAddress,
/// roleType, blockchainId and status, as its route names them.
[[nodiscard]] std::string event_body(const store::RoleRequestEvent& event);
/// certificate.issued: data is the certificate's view with mintId (null
/// when unknown); a description that would not fit under kMaxEventBody is
/// left out, and data.descriptionOmitted says to read it from the route.
[[nodiscard]] std::string event_body(const store::CertificateEvent& event, const CertificateView& view);
/// lane.owner_changed: data is the lane, blockchainId, signerAddress,
/// previousOwner (null when no server held it), owner and epoch.
[[nodiscard]] std::string event_body(const store::LaneEvent& event);
/// signer.balance_low: data is the blockchainId, the signer's address, its
/// balance and the minimumBalance it fell below (wei, decimal strings, as
/// wei outgrow a JSON number's exact range) and estimatedMints, how many
/// mints the balance still pays for at the current fee.
[[nodiscard]] std::string event_body(const store::SignerBalanceEvent& event);
/// Any kind, as the outbox holds it.
[[nodiscard]] std::string event_body(const store::StoredEvent& event, const EventViews& views);
/// What an event is about, as one log field: ["mintId", id], ["roleRequestId", id], ….
[[nodiscard]] nlohmann::json event_subject(const store::StoredEvent& event);

}  // namespace abci::webhooks
