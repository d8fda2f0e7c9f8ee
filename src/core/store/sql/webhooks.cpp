// Webhook subscriptions, deliveries and their attempts.

#include <fmt/format.h>

#include <algorithm>

#include "core/crypto/encoding.hpp"
#include "core/store/sql/backends.hpp"
#include "core/util/log.hpp"
#include "core/util/time.hpp"

namespace abci::store::sql {
namespace {

constexpr const char* kSubscriptionColumns =
    "id, url, events, description, enabled, disabled_reason, disabled_at, failing_since, secret, previous_secret, "
    "previous_secret_until, created_at, updated_at";
constexpr auto read_subscription = [](const auto& row) {
    return WebhookSubscription{.id = row.text("id"),
                               .url = row.text("url"),
                               .events = string_list_from_json(row.text("events"), "webhook event types"),
                               .description = row.text("description"),
                               .enabled = row.boolean("enabled"),
                               .disabled_reason = row.text("disabled_reason"),
                               .disabled_at = row.optional_time_at("disabled_at"),
                               .failing_since = row.optional_time_at("failing_since"),
                               .sealed_secret = row.text("secret"),
                               .sealed_previous_secret = row.text("previous_secret"),
                               .previous_secret_until = row.optional_time_at("previous_secret_until"),
                               .created_at = row.time_at("created_at"),
                               .updated_at = row.time_at("updated_at")};
};

constexpr const char* kDeliveryColumns =
    "id, subscription_id, message_id, event_type, body, state, attempts, next_attempt_at, created_at, updated_at";
constexpr auto read_delivery = [](const auto& row) {
    return WebhookDelivery{.id = row.text("id"),
                           .subscription_id = row.text("subscription_id"),
                           .message_id = row.text("message_id"),
                           .type = row.text("event_type"),
                           .body = row.text("body"),
                           .state = row.enum_at("state", parse_delivery_state),
                           .attempts = row.integer("attempts"),
                           .next_attempt_at = row.time_at("next_attempt_at"),
                           .created_at = row.time_at("created_at"),
                           .updated_at = row.time_at("updated_at")};
};

constexpr auto read_attempt = [](const auto& row) {
    return WebhookAttempt{.attempted_at = row.time_at("attempted_at"),
                          .status = static_cast<int>(row.integer("status")),
                          .latency_ms = row.integer("latency_ms"),
                          .error = row.text("error")};
};

// A pending delivery is due at its next attempt, or when a lease on it runs out if that is later.
constexpr const char* kDueAt =
    "CASE WHEN d.lease_until > d.next_attempt_at THEN d.lease_until ELSE d.next_attempt_at END";
// A mint's delivery waits while an older one of the same mint to the same subscription is pending.
constexpr const char* kInOrder =
    "(d.ordering_key = '' OR NOT EXISTS (SELECT 1 FROM webhook_deliveries e WHERE e.subscription_id = "
    "d.subscription_id AND e.ordering_key = d.ordering_key AND e.state = 'pending' AND e.rowid < d.rowid))";
// A subscription is sent one delivery at a time, by whichever server: none
// while another of its deliveries is leased (in flight); the one in flight
// is due when its lease runs out. The subscriptions in flight are read once,
// from the pending rows: asked per candidate row, the question read every
// delivery the subscription ever had, for each of them (a burst's 1,000
// deliveries to one receiver took 70 s instead of 3).
std::string alone_in_flight(const std::string& clock) {
    return "(d.lease_until > " + clock +
           " OR d.subscription_id NOT IN (SELECT f.subscription_id FROM webhook_deliveries f WHERE f.state = "
           "'pending' AND f.lease_until > " + clock + "))";
}

// Leases to `owner` each of `due` (ids of rows of `table` that `condition`
// also holds for) whose lease has run out, and reads those it got with
// `read_one`. The lease's condition is asked again: on PostgreSQL a server
// that claimed a row since the SELECT has moved lease_until on.
template <class Db, class Connection, class ReadOne>
auto lease_each(Connection& c, const std::string& table, const std::string& condition,
                const std::vector<std::string>& due, const std::string& owner, std::chrono::milliseconds lease,
                ReadOne read_one) {
    const std::string clock = Db::clock_millis();
    std::vector<typename decltype(read_one(due.front()))::value_type> mine;
    for (const auto& id : due) {
        if (execute(c,
                    "UPDATE " + table + " SET lease_owner = ?2, lease_until = " + clock +
                        " + ?3 WHERE id = ?1 AND lease_until <= " + clock + condition,
                    id, owner, static_cast<std::int64_t>(lease.count())) != 1)
            continue;
        if (auto row = read_one(id)) mine.push_back(std::move(*row));
    }
    return mine;
}

template <class Db>
class SqlWebhooks final : public Webhooks {
public:
    explicit SqlWebhooks(Db& db) : db_(db) {}

    WebhookSubscription create_subscription(const NewWebhookSubscription& s) override {
        const TimePoint now = now_millis();
        WebhookSubscription created{.id = s.id,
                                    .url = s.url,
                                    .events = s.events,
                                    .description = s.description,
                                    .enabled = true,
                                    .sealed_secret = s.sealed_secret,
                                    .created_at = now,
                                    .updated_at = now};
        const std::string events = string_list_to_json(s.events, "webhook event types");
        db_.run({"webhook subscription already exists"}, [&](auto& c) {
            execute(c,
                    "INSERT INTO webhook_subscriptions (id, url, events, description, enabled, secret, created_at, "
                    "updated_at) VALUES (?, ?, ?, ?, TRUE, ?, ?, ?)",
                    created.id, created.url, events, created.description, created.sealed_secret, to_millis(now),
                    to_millis(now));
        });
        return created;
    }

    std::optional<WebhookSubscription> find_subscription(const std::string& id) override {
        return db_.run({}, [&](auto& c) { return find(c, id); });
    }

    std::vector<WebhookSubscription> list_subscriptions() override {
        return db_.run({}, [&](auto& c) {
            return query_all(c, select_columns(kSubscriptionColumns, "FROM webhook_subscriptions ORDER BY rowid"),
                             read_subscription);
        });
    }

    std::optional<WebhookSubscription> update_subscription(const std::string& id,
                                                           const WebhookSubscriptionChange& change) override {
        const std::optional<std::string> events =
            change.events ? std::optional(string_list_to_json(*change.events, "webhook event types")) : std::nullopt;
        return db_.transaction({}, [&](auto& c) -> std::optional<WebhookSubscription> {
            // COALESCE keeps a column whose new value is NULL (not given);
            // an admin's enabling clears why and since when the server
            // disabled it, and since when it failed: a fresh start.
            if (execute(c,
                        "UPDATE webhook_subscriptions SET url = COALESCE(?2, url), events = COALESCE(?3, events), "
                        "description = COALESCE(?4, description), enabled = COALESCE(CAST(?5 AS BOOLEAN), enabled), "
                        "disabled_reason = CASE WHEN CAST(?5 AS BOOLEAN) IS NULL THEN disabled_reason ELSE '' END, "
                        "disabled_at = CASE WHEN CAST(?5 AS BOOLEAN) IS NULL THEN disabled_at ELSE NULL END, "
                        "failing_since = CASE WHEN CAST(?5 AS BOOLEAN) IS NULL THEN failing_since ELSE NULL END, "
                        "updated_at = ?6 WHERE id = ?1",
                        id, change.url, events, change.description, change.enabled, to_millis(now_millis())) != 1)
                return std::nullopt;
            return find(c, id);
        });
    }

    std::optional<WebhookSubscription> rotate_secret(const std::string& id, const std::string& sealed_secret,
                                                     std::chrono::milliseconds overlap) override {
        const TimePoint now = now_millis();
        return db_.transaction({}, [&](auto& c) -> std::optional<WebhookSubscription> {
            if (execute(c,
                        "UPDATE webhook_subscriptions SET previous_secret = secret, secret = ?2, "
                        "previous_secret_until = ?3, updated_at = ?4 WHERE id = ?1",
                        id, sealed_secret, to_millis(now + overlap), to_millis(now)) != 1)
                return std::nullopt;
            return find(c, id);
        });
    }

    bool remove_subscription(const std::string& id) override {
        return db_.transaction({}, [&](auto& c) {
            execute(c,
                    "DELETE FROM webhook_attempts WHERE delivery_id IN "
                    "(SELECT id FROM webhook_deliveries WHERE subscription_id = ?)",
                    id);
            execute(c, "DELETE FROM webhook_deliveries WHERE subscription_id = ?", id);
            return execute(c, "DELETE FROM webhook_subscriptions WHERE id = ?", id) == 1;
        });
    }

    WebhookDelivery enqueue(const std::string& subscription_id, const std::string& type,
                            const std::string& body) override {
        const std::int64_t now = to_millis(now_millis());
        const std::string id = "whd_" + crypto::random_token(16);
        // Due by the database's clock, which claim_due() compares with.
        return *db_.run({.not_found = "webhook subscription not found"}, [&](auto& c) {
            execute(c,
                    "INSERT INTO webhook_deliveries (id, subscription_id, message_id, event_type, body, state, "
                    "attempts, next_attempt_at, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, 'pending', 0, " +
                        Db::clock_millis() + ", ?6, ?6)",
                    id, subscription_id, "msg_" + crypto::random_token(16), type, body, now);
            return query_one(c, select_columns(kDeliveryColumns, "FROM webhook_deliveries WHERE id = ?"),
                             read_delivery, id);
        });
    }

    std::optional<WebhookDelivery> find_delivery(const std::string& id) override {
        return db_.run({}, [&](auto& c) {
            return query_one(c, select_columns(kDeliveryColumns, "FROM webhook_deliveries WHERE id = ?"),
                             read_delivery, id);
        });
    }

    std::vector<WebhookDelivery> deliveries(const std::string& subscription_id, std::size_t limit) override {
        return db_.run({}, [&](auto& c) {
            return query_all(c,
                             select_columns(kDeliveryColumns,
                                            "FROM webhook_deliveries WHERE subscription_id = ? "
                                            "ORDER BY rowid DESC LIMIT ?"),
                             read_delivery, subscription_id, static_cast<std::int64_t>(limit));
        });
    }

    std::vector<WebhookAttempt> attempts(const std::string& delivery_id) override {
        return db_.run({}, [&](auto& c) {
            return query_all(c,
                             "SELECT attempted_at, status, latency_ms, error FROM webhook_attempts "
                             "WHERE delivery_id = ? ORDER BY rowid",
                             read_attempt, delivery_id);
        });
    }

    std::vector<OutboxEvent> claim_events(const std::string& owner, std::chrono::milliseconds lease,
                                          std::size_t limit) override {
        const std::string clock = Db::clock_millis();
        return db_.transaction({}, [&](auto& c) {
            const auto due = query_all(
                c,
                "SELECT o.id AS id FROM webhook_outbox o WHERE o.lease_until <= " + clock +
                    " AND NOT EXISTS (SELECT 1 FROM webhook_outbox p WHERE p.ordering_key = o.ordering_key AND "
                    "p.rowid < o.rowid) ORDER BY o.rowid LIMIT ?",
                [](const auto& row) { return row.text("id"); }, static_cast<std::int64_t>(limit));
            return lease_each<Db>(c, "webhook_outbox", "", due, owner, lease, [&](const std::string& id) {
                return query_one(c, "SELECT id, body FROM webhook_outbox WHERE id = ?", [](const auto& row) {
                    return OutboxEvent{.id = row.text("id"), .event = parse_stored_event(row.text("body"))};
                }, id);
            });
        });
    }

    std::optional<std::size_t> fan_out(const std::string& event_id, const std::string& owner,
                                       const std::string& body) override {
        const std::int64_t now = to_millis(now_millis());
        return db_.transaction({}, [&](auto& c) -> std::optional<std::size_t> {
            const auto event = query_one(
                c, "SELECT event_type, ordering_key FROM webhook_outbox WHERE id = ? AND lease_owner = ?",
                [](const auto& row) { return std::pair(row.text("event_type"), row.text("ordering_key")); }, event_id,
                owner);
            if (!event) return std::nullopt;
            const auto& [type, ordering_key] = *event;
            const auto subscriptions = query_all(
                c,
                "SELECT id FROM webhook_subscriptions s WHERE s.enabled = TRUE AND CAST(? AS TEXT) IN (" +
                    Db::json_array_values("s.events") + ") ORDER BY rowid",
                [](const auto& row) { return row.text("id"); }, type);
            for (const auto& subscription_id : subscriptions)
                execute(c,
                        "INSERT INTO webhook_deliveries (id, subscription_id, message_id, event_type, body, state, "
                        "attempts, next_attempt_at, ordering_key, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, "
                        "'pending', 0, " + Db::clock_millis() + ", ?6, ?7, ?7)",
                        "whd_" + crypto::random_token(16), subscription_id, event_id, type, body, ordering_key, now);
            execute(c, "DELETE FROM webhook_outbox WHERE id = ?", event_id);
            return subscriptions.size();
        });
    }

    std::vector<WebhookDelivery> claim_due(const std::string& owner, std::chrono::milliseconds lease,
                                           std::size_t limit) override {
        const std::string clock = Db::clock_millis();
        auto claimed = db_.transaction({}, [&](auto& c) {
            // The oldest due of each subscription: its others wait until that one is recorded.
            const auto due = query_all(
                c,
                "SELECT id FROM (SELECT d.id AS id, d.next_attempt_at AS due_at, d.rowid AS seq, ROW_NUMBER() OVER "
                "(PARTITION BY d.subscription_id ORDER BY d.next_attempt_at, d.rowid) AS n FROM webhook_deliveries d "
                "JOIN webhook_subscriptions s ON s.id = d.subscription_id WHERE d.state = 'pending' AND s.enabled = "
                "TRUE AND " + std::string(kDueAt) + " <= " + clock + " AND " + kInOrder + " AND " +
                    alone_in_flight(clock) + ") oldest WHERE n = 1 ORDER BY due_at, seq LIMIT ?",
                [](const auto& row) { return row.text("id"); }, static_cast<std::int64_t>(limit));
            return lease_each<Db>(c, "webhook_deliveries", " AND state = 'pending'", due, owner, lease,
                                  [&](const std::string& id) {
                                      return query_one(c,
                                                       select_columns(kDeliveryColumns,
                                                                      "FROM webhook_deliveries WHERE id = ?"),
                                                       read_delivery, id);
                                  });
        });
        return claimed;
    }

    bool record_attempt(const std::string& delivery_id, const std::string& owner,
                        const AttemptOutcome& outcome) override {
        const std::string clock = Db::clock_millis();
        const auto& a = outcome.attempt;
        std::string disabled;  // the subscription, when this attempt disabled it
        std::string reason;
        const bool recorded = db_.transaction({}, [&](auto& c) {
            disabled.clear();
            reason.clear();
            if (execute(c,
                        "UPDATE webhook_deliveries SET attempts = attempts + 1, state = ?3, next_attempt_at = " +
                            clock + " + ?4, lease_owner = '', lease_until = 0, updated_at = ?5 "
                                    "WHERE id = ?1 AND lease_owner = ?2 AND state = 'pending'",
                        delivery_id, owner, outcome.state, static_cast<std::int64_t>(outcome.retry_in.count()),
                        to_millis(now_millis())) != 1)
                return false;
            execute(c,
                    "INSERT INTO webhook_attempts (delivery_id, attempted_at, status, latency_ms, error) "
                    "VALUES (?, ?, ?, ?, ?)",
                    delivery_id, to_millis(a.attempted_at), a.status, a.latency_ms, recordable_text(a.error));
            const auto subscription = *query_one(
                c, "SELECT subscription_id FROM webhook_deliveries WHERE id = ?",
                [](const auto& row) { return row.text("subscription_id"); }, delivery_id);
            if (outcome.state == DeliveryState::succeeded) {
                execute(c,
                        "UPDATE webhook_subscriptions SET failing_since = NULL WHERE id = ? AND failing_since IS NOT NULL",
                        subscription);
                return true;
            }
            const auto failing_since = *query_one(
                c,
                "UPDATE webhook_subscriptions SET failing_since = COALESCE(failing_since, ?2) WHERE id = ?1 "
                "RETURNING failing_since",
                [](const auto& row) { return row.time_at("failing_since"); }, subscription, to_millis(a.attempted_at));
            reason = outcome.disable_reason;
            if (reason.empty() && a.attempted_at - failing_since >= outcome.disable_after)
                reason = fmt::format("failing since {}: no attempt succeeded for [webhooks] disableAfter (the last: {})",
                                     util::format_iso8601_utc(failing_since), a.error);
            if (reason.empty()) return true;
            // Not one an admin disabled meanwhile: that stays the admin's, without a reason.
            if (execute(c,
                        "UPDATE webhook_subscriptions SET enabled = FALSE, disabled_reason = ?2, disabled_at = ?3, "
                        "updated_at = ?3 WHERE id = ?1 AND enabled = TRUE",
                        subscription, recordable_text(reason), to_millis(now_millis())) == 1)
                disabled = subscription;
            return true;
        });
        if (!disabled.empty())
            util::log(util::LogLevel::warning, "webhook subscription disabled: its deliveries wait until an admin enables it",
                      {{"subscription", disabled}, {"reason", reason}});
        return recorded;
    }

    std::optional<WebhookDelivery> replay(const std::string& subscription_id, const std::string& delivery_id) override {
        const std::string clock = Db::clock_millis();
        return db_.transaction({}, [&](auto& c) -> std::optional<WebhookDelivery> {
            if (execute(c,
                        "UPDATE webhook_deliveries SET state = 'pending', next_attempt_at = " + clock +
                            ", lease_owner = '', lease_until = 0, updated_at = ?3 "
                            "WHERE id = ?1 AND subscription_id = ?2",
                        delivery_id, subscription_id, to_millis(now_millis())) != 1)
                return std::nullopt;
            return query_one(c, select_columns(kDeliveryColumns, "FROM webhook_deliveries WHERE id = ?"),
                             read_delivery, delivery_id);
        });
    }

    std::optional<std::chrono::milliseconds> next_due() override {
        const auto wait = db_.run({}, [&](auto& c) {
            return query_one(c,
                             "SELECT MIN(" + std::string(kDueAt) + ") - " + Db::clock_millis() +
                                 " AS wait FROM webhook_deliveries d JOIN webhook_subscriptions s "
                                 "ON s.id = d.subscription_id WHERE d.state = 'pending' AND s.enabled = TRUE AND " +
                                 kInOrder + " AND " + alone_in_flight(Db::clock_millis()),
                             [](const auto& row) {
                                 return row.is_null("wait") ? std::optional<std::int64_t>()
                                                            : std::optional(row.integer("wait"));
                             });
        });
        if (!wait || !*wait) return std::nullopt;
        return std::chrono::milliseconds(std::max<std::int64_t>(0, **wait));
    }

    std::size_t remove_finished_deliveries(TimePoint finished_before, std::size_t limit) override {
        // The same rows twice in one transaction: the attempts first, which refer to their delivery.
        const std::string finished =
            "SELECT id FROM webhook_deliveries WHERE state <> 'pending' AND updated_at < ?1 "
            "ORDER BY updated_at, id LIMIT ?2";
        return db_.transaction({}, [&](auto& c) {
            execute(c, "DELETE FROM webhook_attempts WHERE delivery_id IN (" + finished + ")", to_millis(finished_before),
                    static_cast<std::int64_t>(limit));
            return static_cast<std::size_t>(execute(c, "DELETE FROM webhook_deliveries WHERE id IN (" + finished + ")",
                                                    to_millis(finished_before), static_cast<std::int64_t>(limit)));
        });
    }

private:
    template <class Connection>
    std::optional<WebhookSubscription> find(Connection& c, const std::string& id) {
        return query_one(c, select_columns(kSubscriptionColumns, "FROM webhook_subscriptions WHERE id = ?"),
                         read_subscription, id);
    }

    Db& db_;
};

}  // namespace

template <class Db>
std::unique_ptr<Webhooks> make_webhooks(Db& db) {
    return std::make_unique<SqlWebhooks<Db>>(db);
}

ABCI_STORE_REPOSITORY(make_webhooks, Webhooks)

}  // namespace abci::store::sql
