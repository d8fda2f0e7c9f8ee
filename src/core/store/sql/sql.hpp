#pragma once
// The store's repositories, written once for both backends (internal to the
// store layer). Each repository (the files beside this one) is a template over
// a backend's Db, instantiated for SQLite (core/store/sqlite) and PostgreSQL
// (core/store/postgresql), so both run the same SQL and the same logic, and
// the conformance suite (tests/store) holds them to the same contract.
//
// A backend offers, found by argument-dependent lookup on its Connection:
//   Db::run(meaning, work)          work(Connection&) on a pooled connection,
//                                   the database's errors as abci::Error
//                                   (constraint violations worded by `meaning`)
//   Db::transaction(meaning, work)  the same inside a write transaction that
//                                   behaves as if run alone (SQLite: IMMEDIATE;
//                                   PostgreSQL: SERIALIZABLE, retried on a
//                                   serialization failure, so `work` may run
//                                   more than once and must only touch the
//                                   database and its own locals)
//   Db::json_array_values(param)    "SELECT … FROM …(param)": the values of a
//                                   JSON array bound as one parameter
//   Db::clock_millis()              the time now in stored milliseconds, as SQL
//   notify(c, channel, payload)     a wake-up for the other servers when the
//                                   transaction commits (notifications.hpp)
//   execute(c, sql, args...)        rows changed
//   query_one(c, sql, read, args...) / query_all(...) / exists(...)
//   savepoint(c, work)              work in a savepoint: its error (undone
//                                   alone) as an exception_ptr; what dooms the
//                                   whole transaction is thrown
// The SQL is the common dialect of SQLite 3.40 and PostgreSQL 15: parameters
// ?N (or ?) bound in order, TRUE/FALSE for flags, ON CONFLICT for upserts,
// CAST where PostgreSQL cannot infer a parameter's type, and `rowid` for
// insertion order (PostgreSQL's tables have an identity column of that name).
// Rows are read by column name through a Row (RowReader below).

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "core/store/store.hpp"
#include "core/store/store_metrics.hpp"

namespace abci::store::sql {

std::int64_t to_millis(TimePoint t);
TimePoint from_millis(std::int64_t ms);
/// Now, at the stored precision, so that what a create returns equals what a later read returns.
TimePoint now_millis();

/// `value`, to be bound as a statement's text: Error(invalid_input) unless it
/// is text (util::is_text). Both backends bind text through this, so that they
/// store the same or neither does: SQLite keeps any bytes, PostgreSQL cuts a
/// value at its first NUL without a word (libpq's parameters are C strings)
/// and refuses invalid UTF-8 with an error that says nothing of the caller.
const std::string& bound_text(const std::string& value);
const char* bound_text(const char* value);

/// `value` as it is when it is text, else escaped (util::escape_text): for
/// what is recorded rather than looked up (the audit log), and for what an
/// older release stored before text was checked, so that no value makes a row
/// unwritable or unreadable. Text is never escaped twice.
std::string recordable_text(std::string_view value);

/// "SELECT <columns> <rest>": one column list per reader, shared by its queries.
std::string select_columns(const char* columns, std::string_view rest);

/// ASCII only: SQLite's own case folding is ASCII only too, and folding other
/// scripts needs locale data the server does not want to depend on.
std::string lower_ascii(std::string text);

/// A stored uint256 balance or amount in its canonical decimal form, so that
/// equal values are equal strings. Error(invalid_input) when `text` is not a number.
std::string canonical_decimal(const std::string& text);

/// A list of strings stored as a JSON array (API key scopes, webhook event
/// types); `what` names them in errors: Error(invalid_input) when one is not
/// UTF-8, Error(internal) when the stored text is not such an array.
std::string string_list_to_json(const std::vector<std::string>& values, const char* what);
std::vector<std::string> string_list_from_json(const std::string& text, const char* what);

/// What a method's constraint violations mean, in its own words.
struct Meaning {
    const char* conflict = "the record already exists";
    const char* not_found = "a referenced record does not exist";
};

/// A backend's row gives text, integer, is_null and boolean by column name;
/// the rest is read the same way on both.
template <class Row>
class RowReader {
public:
    [[nodiscard]] std::uint64_t unsigned_integer(const char* column) const {
        // uint64 columns hold the two's-complement int64 (bound the same way).
        return static_cast<std::uint64_t>(row().integer(column));
    }
    [[nodiscard]] TimePoint time_at(const char* column) const { return from_millis(row().integer(column)); }
    [[nodiscard]] std::optional<TimePoint> optional_time_at(const char* column) const {
        return row().is_null(column) ? std::nullopt : std::optional(time_at(column));
    }
    /// A column holding one of a store enum's names; Error(internal) for a name this binary does not know.
    template <class Parse>
    [[nodiscard]] auto enum_at(const char* column, Parse parse) const {
        const std::string name = row().text(column);
        if (auto value = parse(name)) return *value;
        throw Error(ErrorKind::internal, "stored " + std::string(column) + " '" + name + "' is unknown to this release");
    }

private:
    [[nodiscard]] const Row& row() const { return static_cast<const Row&>(*this); }
};

/// A user's columns (table users as u), shared by every query that returns a
/// user. Named with AS: without it SQLite leaves a column's name unspecified.
inline constexpr const char* kUserColumns =
    "u.id AS id, u.email AS email, u.role AS role, u.verified AS verified, u.created_at AS created_at";
inline constexpr auto read_user = [](const auto& row) {
    return User{.id = row.text("id"),
                .email = row.text("email"),
                .role = row.text("role"),
                .verified = row.boolean("verified"),
                .created_at = row.time_at("created_at")};
};

/// Error(not_found, `missing`) unless `exists_sql` finds a row for `key`.
template <class Connection>
void require_row(Connection& c, const char* exists_sql, const std::string& key, const std::string& missing) {
    if (!exists(c, exists_sql, key)) throw Error(ErrorKind::not_found, missing);
}

/// Claims a key for `user_id`: `insert_sql` (parameters: the key's columns,
/// then user_id, then the time; ON CONFLICT DO NOTHING) adds the row unless
/// the key is taken; `owner_sql` (parameters: the key's columns) then names the
/// owner. Same owner: done (idempotent). Rows are never reassigned, so the two
/// statements need no transaction.
template <class Connection, class... Key>
void claim(Connection& c, const char* insert_sql, const char* owner_sql, const char* taken_message,
           const std::string& user_id, const Key&... key) {
    execute(c, insert_sql, key..., user_id, to_millis(now_millis()));
    const auto owner = query_one(c, owner_sql, [](const auto& row) { return row.text("user_id"); }, key...);
    if (owner != user_id) throw Error(ErrorKind::conflict, taken_message);
}

/// Runs `update_sql` (parameter ?1: the row's id), which changes nothing when
/// the row already holds the values, so that repeating it is a no-op that
/// keeps updated_at; Error(not_found, `missing`) when `exists_sql` finds no
/// row with that id.
template <class Db, class... Args>
void update_existing(Db& db, const char* missing, const char* exists_sql, const char* update_sql,
                     const std::string& id, const Args&... args) {
    const bool found = db.run({}, [&](auto& c) { return execute(c, update_sql, id, args...) == 1 || exists(c, exists_sql, id); });
    if (!found) throw Error(ErrorKind::not_found, missing);
}

// One repository each (the files beside this one), for a backend's Db.
template <class Db> std::unique_ptr<Users> make_users(Db& db);
template <class Db> std::unique_ptr<Credentials> make_credentials(Db& db);
template <class Db> std::unique_ptr<Sessions> make_sessions(Db& db);
template <class Db> std::unique_ptr<Tickets> make_tickets(Db& db);
template <class Db> std::unique_ptr<ApiKeys> make_api_keys(Db& db);
template <class Db> std::unique_ptr<AuditLog> make_audit_log(Db& db);
template <class Db> std::unique_ptr<RoleRequests> make_role_requests(Db& db);
template <class Db> std::unique_ptr<TokenLedger> make_token_ledger(Db& db);
template <class Db> std::unique_ptr<Entities> make_entities(Db& db);
template <class Db> std::unique_ptr<Journal> make_journal(Db& db);
template <class Db> std::unique_ptr<Mints> make_mints(Db& db);
template <class Db> std::unique_ptr<MintJobs> make_mint_jobs(Db& db);
template <class Db> std::unique_ptr<Certificates> make_certificates(Db& db);
template <class Db> std::unique_ptr<Practices> make_practices(Db& db);
template <class Db> std::unique_ptr<RateWindows> make_rate_windows(Db& db);
template <class Db> std::unique_ptr<SharedSecrets> make_shared_secrets(Db& db);
template <class Db> std::unique_ptr<Lanes> make_lanes(Db& db);
template <class Db> std::unique_ptr<Webhooks> make_webhooks(Db& db);
template <class Db> std::unique_ptr<BacklogCounter> make_backlog_counter(Db& db);

/// The backend's election of lane owners (lanes.cpp), found by overload.
template <class Db>
std::unique_ptr<LaneElection> make_lane_election(Db& db, std::string owner);

/// The backend's listener (notifications.hpp), or none (listener.cpp).
template <class Db>
std::unique_ptr<Listener> make_listener(Db& db, const std::vector<std::string>& channels);

/// The store of a backend's Db: every repository over the same database.
template <class Db>
class SqlStore final : public Store {
public:
    template <class... Args>
    explicit SqlStore(Args&&... args) : db_(std::forward<Args>(args)...) {}

    Users& users() override { return *users_; }
    Credentials& credentials() override { return *credentials_; }
    Sessions& sessions() override { return *sessions_; }
    Tickets& tickets() override { return *tickets_; }
    ApiKeys& api_keys() override { return *api_keys_; }
    AuditLog& audit() override { return *audit_; }
    RoleRequests& role_requests() override { return *role_requests_; }
    TokenLedger& tokens() override { return *tokens_; }
    Entities& entities() override { return *entities_; }
    Journal& journal() override { return *journal_; }
    Mints& mints() override { return *mints_; }
    MintJobs& mint_jobs() override { return *mint_jobs_; }
    Certificates& certificates() override { return *certificates_; }
    Practices& practices() override { return *practices_; }
    RateWindows& rate_windows() override { return *rate_windows_; }
    SharedSecrets& shared_secrets() override { return *shared_secrets_; }
    Lanes& lanes() override { return *lanes_; }
    Webhooks& webhooks() override { return *webhooks_; }
    BacklogCounter& backlog() override { return *backlog_; }
    std::unique_ptr<LaneElection> open_lane_election(std::string owner) override {
        return make_lane_election(db_, std::move(owner));
    }
    std::unique_ptr<Listener> listen(const std::vector<std::string>& channels) override {
        return make_listener(db_, channels);
    }
    void set_metrics(metrics::Registry& registry) override {
        metrics_ = std::make_unique<StoreMetrics>(registry, Db::kBackend);
        db_.set_metrics(metrics_.get());
    }

private:
    // Before the database: its batch writers still record while they write what is queued at destruction.
    std::unique_ptr<StoreMetrics> metrics_;
    // First member: the repositories' batch writers (audit, mints) write what
    // is queued when they are destroyed, while the pool still exists.
    Db db_;
    std::unique_ptr<Users> users_ = make_users(db_);
    std::unique_ptr<Credentials> credentials_ = make_credentials(db_);
    std::unique_ptr<Sessions> sessions_ = make_sessions(db_);
    std::unique_ptr<Tickets> tickets_ = make_tickets(db_);
    std::unique_ptr<ApiKeys> api_keys_ = make_api_keys(db_);
    std::unique_ptr<AuditLog> audit_ = make_audit_log(db_);
    std::unique_ptr<RoleRequests> role_requests_ = make_role_requests(db_);
    std::unique_ptr<TokenLedger> tokens_ = make_token_ledger(db_);
    std::unique_ptr<Entities> entities_ = make_entities(db_);
    std::unique_ptr<Journal> journal_ = make_journal(db_);
    std::unique_ptr<Mints> mints_ = make_mints(db_);
    std::unique_ptr<MintJobs> mint_jobs_ = make_mint_jobs(db_);
    std::unique_ptr<Certificates> certificates_ = make_certificates(db_);
    std::unique_ptr<Practices> practices_ = make_practices(db_);
    std::unique_ptr<RateWindows> rate_windows_ = make_rate_windows(db_);
    std::unique_ptr<SharedSecrets> shared_secrets_ = make_shared_secrets(db_);
    std::unique_ptr<Lanes> lanes_ = make_lanes(db_);
    std::unique_ptr<Webhooks> webhooks_ = make_webhooks(db_);
    std::unique_ptr<BacklogCounter> backlog_ = make_backlog_counter(db_);
};

}  // namespace abci::store::sql
