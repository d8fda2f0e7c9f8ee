#pragma once
// What the SQLite repositories share (internal to the store layer): one
// connection pool per database, statements with bound parameters, rows read by
// column name, and SQLite's failures mapped to abci::Error in one place (run()).

#include <SQLiteCpp/SQLiteCpp.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/error.hpp"
#include "core/store/connection_pool.hpp"
#include "core/store/store.hpp"

namespace abci::store::sqlite {

using Database = Connection;
using SQLite::Statement;

std::int64_t to_millis(TimePoint t);
TimePoint from_millis(std::int64_t ms);
/// Now, at the stored precision, so that what a create returns equals what a later read returns.
TimePoint now_millis();

// --- binding -----------------------------------------------------------------

inline void bind_value(Statement& s, int i, const std::string& v) { s.bind(i, v); }
inline void bind_value(Statement& s, int i, std::int64_t v) { s.bind(i, v); }
// uint64 columns hold the two's-complement int64 (read back by unsigned_integer()).
inline void bind_value(Statement& s, int i, std::uint64_t v) { s.bind(i, static_cast<std::int64_t>(v)); }
inline void bind_value(Statement& s, int i, int v) { s.bind(i, v); }
inline void bind_value(Statement& s, int i, bool v) { s.bind(i, v ? 1 : 0); }
inline void bind_value(Statement& s, int i, const char* v) { s.bind(i, v); }
/// A store enum (status, state, outcome) is stored by its name (its to_string).
template <class Enum>
    requires std::is_enum_v<Enum>
void bind_value(Statement& s, int i, Enum v) {
    s.bind(i, to_string(v));
}
template <class T>
void bind_value(Statement& s, int i, const std::optional<T>& v) {
    if (v) {
        bind_value(s, i, *v);
    } else {
        s.bind(i);
    }
}

/// `sql` prepared (or reused) with `args` bound to ?1, ?2, … in order.
template <class... Args>
Database::Statement prepare(Database& db, const std::string& sql, const Args&... args) {
    auto s = db.prepare(sql);
    int i = 0;
    (bind_value(*s, ++i, args), ...);
    return s;
}

/// Runs a statement that returns no rows; the number of rows it changed.
template <class... Args>
int execute(Database& db, const std::string& sql, const Args&... args) {
    return prepare(db, sql, args...)->exec();
}

/// Every row, each turned into a T by `read`.
template <class Read, class... Args>
auto query_all(Database& db, const std::string& sql, Read read, const Args&... args) {
    const auto s = prepare(db, sql, args...);
    std::vector<decltype(read(*s))> rows;
    while (s->executeStep()) rows.push_back(read(*s));
    return rows;
}

/// The first row, if any.
template <class Read, class... Args>
auto query_one(Database& db, const std::string& sql, Read read, const Args&... args) {
    const auto s = prepare(db, sql, args...);
    std::optional<decltype(read(*s))> row;
    if (s->executeStep()) row = read(*s);
    return row;
}

/// Whether `sql` finds a row.
template <class... Args>
bool exists(Database& db, const std::string& sql, const Args&... args) {
    return query_one(db, sql, [](const Statement&) { return true; }, args...).has_value();
}

// --- reading columns by name -------------------------------------------------------

inline std::string text(const Statement& s, const char* column) { return s.getColumn(column).getString(); }
inline std::int64_t integer(const Statement& s, const char* column) { return s.getColumn(column).getInt64(); }
inline std::uint64_t unsigned_integer(const Statement& s, const char* column) {
    return static_cast<std::uint64_t>(integer(s, column));
}
inline bool boolean(const Statement& s, const char* column) { return integer(s, column) != 0; }
inline bool is_null(const Statement& s, const char* column) { return s.getColumn(column).isNull(); }
inline TimePoint time_at(const Statement& s, const char* column) { return from_millis(integer(s, column)); }
inline std::optional<TimePoint> optional_time_at(const Statement& s, const char* column) {
    return is_null(s, column) ? std::nullopt : std::optional(time_at(s, column));
}
/// A column holding one of a store enum's names; Error(internal) for a name this binary does not know.
template <class Parse>
auto enum_at(const Statement& s, const char* column, Parse parse) {
    const std::string name = text(s, column);
    if (auto value = parse(name)) return *value;
    throw Error(ErrorKind::internal, "stored " + std::string(column) + " '" + name + "' is unknown to this release");
}

/// "SELECT <columns> <rest>": one column list per reader, shared by its queries.
std::string select_columns(const char* columns, std::string_view rest);

/// ASCII only: SQLite's own case folding is ASCII only too, and folding other
/// scripts needs locale data the server does not want to depend on.
std::string lower_ascii(std::string text);

/// A stored uint256 balance or amount in its canonical decimal form, so that
/// equal values are equal strings. Error(invalid_input) when `text` is not a number.
std::string canonical_decimal(const std::string& text);

/// A user's columns (table users as u), shared by every query that returns a
/// user. Named with AS: without it SQLite leaves a column's name unspecified.
inline constexpr const char* kUserColumns =
    "u.id AS id, u.email AS email, u.role AS role, u.verified AS verified, u.created_at AS created_at";
User read_user(const Statement& s);

// --- errors --------------------------------------------------------------------

/// What a method's constraint violations mean, in its own words.
struct Meaning {
    const char* conflict = "the record already exists";
    const char* not_found = "a referenced record does not exist";
};

Error translate(const SQLite::Exception& e, const Meaning& meaning);

/// Claims a key for `user_id`: `insert_sql` (parameters: the key's columns,
/// then user_id, then the time; ON CONFLICT DO NOTHING) adds the row unless
/// the key is taken; `owner_sql` (parameters: the key's columns) then names the
/// owner. Same owner: done (idempotent). Rows are never reassigned, so the two
/// statements need no transaction.
template <class... Key>
void claim(Database& db, const char* insert_sql, const char* owner_sql, const char* taken_message,
           const std::string& user_id, const Key&... key) {
    execute(db, insert_sql, key..., user_id, to_millis(now_millis()));
    const auto owner = query_one(db, owner_sql, [](const Statement& s) { return text(s, "user_id"); }, key...);
    if (owner != user_id) throw Error(ErrorKind::conflict, taken_message);
}

/// Error(not_found, `missing`) unless `exists_sql` finds a row for `key`.
void require_row(Database& db, const char* exists_sql, const std::string& key, const std::string& missing);

/// One database: its connection pool, shared by its repositories.
class Db {
public:
    explicit Db(const std::string& path);

    /// Runs `work` on a leased connection; SQLite's exceptions leave as
    /// abci::Error, constraint violations worded by `meaning`.
    template <class Work>
    auto run(const Meaning& meaning, Work&& work) {
        try {
            auto lease = pool_.acquire();
            return work(*lease);
        } catch (const SQLite::Exception& e) {
            throw translate(e, meaning);
        }
    }

    /// Runs `update_sql` (parameter ?1: the row's id), which changes nothing
    /// when the row already holds the values, so that repeating it is a no-op
    /// that keeps updated_at; Error(not_found, `missing`) when `exists_sql`
    /// finds no row with that id.
    template <class... Args>
    void update_existing(const char* missing, const char* exists_sql, const char* update_sql, const std::string& id,
                         const Args&... args) {
        const bool found = run({}, [&](Database& db) {
            return execute(db, update_sql, id, args...) == 1 || exists(db, exists_sql, id);
        });
        if (!found) throw Error(ErrorKind::not_found, missing);
    }

private:
    ConnectionPool pool_;
};

// One repository each, over the same database (the files beside this one).
std::unique_ptr<Users> make_users(Db& db);
std::unique_ptr<Credentials> make_credentials(Db& db);
std::unique_ptr<Sessions> make_sessions(Db& db);
std::unique_ptr<Tickets> make_tickets(Db& db);
std::unique_ptr<ApiKeys> make_api_keys(Db& db);
std::unique_ptr<AuditLog> make_audit_log(Db& db);
std::unique_ptr<RoleRequests> make_role_requests(Db& db);
std::unique_ptr<TokenLedger> make_token_ledger(Db& db);
std::unique_ptr<Entities> make_entities(Db& db);
std::unique_ptr<Journal> make_journal(Db& db);
std::unique_ptr<Mints> make_mints(Db& db);
std::unique_ptr<Certificates> make_certificates(Db& db);
std::unique_ptr<Practices> make_practices(Db& db);

}  // namespace abci::store::sqlite
