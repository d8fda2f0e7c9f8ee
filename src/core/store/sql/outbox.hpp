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

// Reads the event's subject with `select` (its id bound as ?1) only when an
// enabled subscription asks for `type`, completes the event and writes it,
// ordered by the subject. True when it wrote one.
template <class Db, class Connection, class Read>
bool write_event(Connection& c, EventType type, const std::string& subject, const std::string& select, Read read) {
    auto event = query_one(c, select + someone_asks<Db>(), read, subject, to_string(type));
    if (!event) return false;
    event->type = type;
    event->at = now_millis();
    execute(c, "INSERT INTO webhook_outbox (id, event_type, ordering_key, body, created_at) VALUES (?, ?, ?, ?, ?)",
            new_event_id(), to_string(type), subject, event->serialize(), to_millis(event->at));
    return true;
}

/// Writes `type` for mint `mint_id` to the outbox when an enabled
/// subscription asks for that type (else nothing: the row would only be
/// dropped at fan-out, and the mint path pays one indexed read instead of a
/// write). `Db` gives the backend's JSON of a column. True when it wrote one:
/// the caller then calls events_written() once its transaction committed.
template <class Db, class Connection>
bool write_mint_event(Connection& c, EventType type, const std::string& mint_id,
                      const std::string& transaction_hash = {}) {
    return write_event<Db>(c, type, mint_id,
                           "SELECT blockchain_id, idempotency_key, answer FROM mint_requests WHERE id = ?1",
                           [&](const auto& row) {
                               return MintEvent{.mint_id = mint_id,
                                                .blockchain_id = row.text("blockchain_id"),
                                                .idempotency_key = row.text("idempotency_key"),
                                                .transaction_hash = transaction_hash,
                                                .answer = row.text("answer")};
                           });
}

/// The same for role request `id` as it now stands, ordered by the request.
template <class Db, class Connection>
bool write_role_request_event(Connection& c, EventType type, const std::string& id) {
    return write_event<Db>(c, type, id,
                           "SELECT wallet_address, role_type, blockchain_id, status FROM role_requests WHERE id = ?1",
                           [&](const auto& row) {
                               return RoleRequestEvent{.id = id,
                                                       .wallet_address = row.text("wallet_address"),
                                                       .role_type = row.text("role_type"),
                                                       .blockchain_id = row.text("blockchain_id"),
                                                       .status = row.text("status")};
                           });
}

}  // namespace abci::store::sql
