#pragma once
// Writing a mint's webhook event (webhook_events.hpp) to the outbox, inside
// the caller's transaction: the journal's and the mints' state changes call
// it, so the event commits with the change or not at all (issue 34 item 5).

#include "core/store/sql/sql.hpp"
#include "core/store/webhook_events.hpp"

namespace abci::store::sql {

/// A new event's id, "msg_" + random: its deliveries' webhook-id.
[[nodiscard]] std::string new_event_id();

// " AND EXISTS (…)": an enabled subscription asks for the event type bound as ?2.
template <class Db>
std::string someone_asks() {
    return " AND EXISTS (SELECT 1 FROM webhook_subscriptions s WHERE s.enabled = TRUE AND CAST(?2 AS TEXT) IN (" +
           Db::json_array_values("s.events") + "))";
}

template <class Connection>
void insert_event(Connection& c, EventType type, const std::string& ordering_key, const std::string& body,
                  TimePoint at) {
    execute(c, "INSERT INTO webhook_outbox (id, event_type, ordering_key, body, created_at) VALUES (?, ?, ?, ?, ?)",
            new_event_id(), to_string(type), ordering_key, body, to_millis(at));
}

/// Writes `type` for mint `mint_id` to the outbox when an enabled
/// subscription asks for that type (else nothing: the row would only be
/// dropped at fan-out, and the mint path pays one indexed read instead of a
/// write). `Db` gives the backend's JSON of a column. True when it wrote one:
/// the caller then calls events_written() once its transaction committed.
template <class Db, class Connection>
bool write_mint_event(Connection& c, EventType type, const std::string& mint_id,
                      const std::string& transaction_hash = {}) {
    auto event = query_one(
        c, "SELECT blockchain_id, idempotency_key, answer FROM mint_requests WHERE id = ?1" + someone_asks<Db>(),
        [](const auto& row) {
            return MintEvent{.blockchain_id = row.text("blockchain_id"),
                             .idempotency_key = row.text("idempotency_key"),
                             .answer = row.text("answer")};
        },
        mint_id, to_string(type));
    if (!event) return false;
    event->type = type;
    event->mint_id = mint_id;
    event->transaction_hash = transaction_hash;
    event->at = now_millis();
    insert_event(c, type, mint_id, event->serialize(), event->at);
    return true;
}

/// The same for role request `id` as it now stands, ordered by the request.
template <class Db, class Connection>
bool write_role_request_event(Connection& c, EventType type, const std::string& id) {
    auto event = query_one(
        c, "SELECT wallet_address, role_type, blockchain_id, status FROM role_requests WHERE id = ?1" +
               someone_asks<Db>(),
        [](const auto& row) {
            return RoleRequestEvent{.wallet_address = row.text("wallet_address"),
                                    .role_type = row.text("role_type"),
                                    .blockchain_id = row.text("blockchain_id"),
                                    .status = row.text("status")};
        },
        id, to_string(type));
    if (!event) return false;
    event->type = type;
    event->id = id;
    event->at = now_millis();
    insert_event(c, type, id, event->serialize(), event->at);
    return true;
}

}  // namespace abci::store::sql
