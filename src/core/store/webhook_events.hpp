#pragma once
// The events the store writes to the webhook outbox (issue 34 items 3, 5), in
// the same transaction as the state change that causes each: a mint's first
// transaction journaled (mint.submitted), its outcome (mint.confirmed,
// mint.failed), its block leaving the chain (mint.reorged); a role request
// filed or decided; a certificate minted (certificate.issued); a lane taken
// by a new owner (lane.owner_changed); a lane's signer falling below its
// floor (signer.balance_low). What is stored is
// the event's facts, not the body a receiver gets: the body's `result` is the
// mint's 200 answer as the API renders it, which the front end knows and the
// store does not, so the delivery worker renders the body when it fans the
// event out (core/webhooks/delivery.hpp).

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/store/certificates.hpp"
#include "core/store/lanes.hpp"
#include "core/store/records.hpp"

namespace abci::store {

enum class EventType {
    mint_submitted,
    mint_confirmed,
    mint_failed,
    mint_reorged,
    role_request_created,
    role_request_approved,
    role_request_rejected,
    certificate_issued,
    signer_balance_low,
    lane_owner_changed,
    webhook_test,
};
/// "mint.submitted", …: the names subscriptions ask for and bodies carry.
[[nodiscard]] const char* to_string(EventType type) noexcept;
[[nodiscard]] std::optional<EventType> parse_event_type(std::string_view name) noexcept;
/// Every type, in the order of issue 34 item 3 (webhook.test last).
[[nodiscard]] const std::vector<EventType>& all_event_types();

/// A mint's event, as the outbox holds it.
struct MintEvent {
    EventType type = EventType::mint_submitted;
    std::string mint_id;
    std::string blockchain_id;
    std::string idempotency_key;   // "" without one
    std::string transaction_hash;  // submitted and reorged: the transaction's
    /// confirmed: the mint's stored answer (MintRequest::answer, rendered as
    /// its 200 body when delivered); failed: its {"kind","message"}.
    std::string answer;
    TimePoint at;  // when it happened

    /// The outbox's stored form (JSON text).
    [[nodiscard]] std::string serialize() const;
    /// Error(internal) when `stored` is not what serialize() writes.
    [[nodiscard]] static MintEvent parse(const std::string& stored);
};

/// A role request's event (role_request.created, .approved, .rejected): the
/// request as it stood once changed, which is all its body tells.
struct RoleRequestEvent {
    EventType type = EventType::role_request_created;
    std::string id;
    std::string wallet_address;
    std::string role_type;
    std::string blockchain_id;
    std::string status;
    TimePoint at;

    [[nodiscard]] std::string serialize() const;
};

/// certificate.issued: the certificate as it stood once minted, and the mint
/// that minted it. Its body is the certificate's route view, which the front
/// end renders, as a mint's result.
struct CertificateEvent {
    EventType type = EventType::certificate_issued;
    Certificate certificate;
    std::string mint_id;  // "" when the caller did not know it
    TimePoint at;

    [[nodiscard]] std::string serialize() const;
};

/// lane.owner_changed: a server took the lane ("<blockchain id>/<signer
/// address>") under a new epoch, from `previous_owner` ("" when no server
/// held it before). Owners are named as the lanes' rows name them.
struct LaneEvent {
    EventType type = EventType::lane_owner_changed;
    std::string lane;
    std::string previous_owner;
    std::string owner;
    std::int64_t epoch = 0;
    TimePoint at;

    [[nodiscard]] std::string serialize() const;
};

/// signer.balance_low: a lane's signer fell below its floor (Lanes::record_signer_balance).
struct SignerBalanceEvent {
    EventType type = EventType::signer_balance_low;
    std::string lane;
    SignerBalance reading;
    TimePoint at;

    [[nodiscard]] std::string serialize() const;
};

/// An outbox event's stored form read back, told by its type.
/// Error(internal) when it is none of these.
using StoredEvent = std::variant<MintEvent, RoleRequestEvent, CertificateEvent, LaneEvent, SignerBalanceEvent>;
[[nodiscard]] StoredEvent parse_stored_event(const std::string& stored);
[[nodiscard]] EventType type_of(const StoredEvent& event) noexcept;

/// Calls `listener` after each commit in this process that wrote an event,
/// until the returned handle is destroyed: the delivery worker's wake-up
/// (SQLite has no NOTIFY, and on PostgreSQL the writer's own worker is the
/// quickest to hear). Another replica's events are found by its worker's
/// periodic look.
[[nodiscard]] std::shared_ptr<void> on_events_written(std::function<void()> listener);
/// Tells the listeners; the store calls it once the writing transaction committed.
void events_written() noexcept;

}  // namespace abci::store
