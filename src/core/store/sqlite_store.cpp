// The SQLite backend of Store. Every method leases a pooled connection, runs
// prepared statements with bound parameters, and maps SQLite's failures to
// abci::Error in one place (run()).

#include <SQLiteCpp/SQLiteCpp.h>
#include <SQLiteCpp/Savepoint.h>
#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>
#include <array>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/crypto/encoding.hpp"
#include "core/error.hpp"
#include "core/eth/u256.hpp"
#include "core/os/private_file.hpp"
#include "core/store/connection_pool.hpp"
#include "core/util/batch_writer.hpp"
#include "core/util/combiner.hpp"
#include "core/store/migrations.hpp"
#include "core/store/store.hpp"

namespace abci::store {
namespace {

using Database = sqlite::Connection;
using SQLite::Statement;
using std::chrono::milliseconds;

// Enough for the server's worker threads to rarely wait on each other, few
// enough that file descriptors and page caches stay small.
constexpr std::size_t kPoolCapacity = 16;

std::int64_t to_millis(TimePoint t) {
    return std::chrono::duration_cast<milliseconds>(t.time_since_epoch()).count();
}

TimePoint from_millis(std::int64_t ms) { return TimePoint(milliseconds(ms)); }

// The stored precision, so that what a create_* returns equals what a later read returns.
TimePoint now_millis() { return from_millis(to_millis(std::chrono::system_clock::now())); }

/// A stored uint256 balance or amount in its canonical decimal form, so that
/// equal values are equal strings. Error(invalid_input) when `text` is not a number.
std::string canonical_decimal(const std::string& text) { return eth::U256::parse(text).to_dec(); }

// ASCII only: SQLite's own case folding is ASCII only too, and folding other
// scripts needs locale data the server does not want to depend on.
std::string lower_ascii(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c); });
    return text;
}

std::string scopes_to_json(const std::vector<std::string>& scopes) {
    try {
        return nlohmann::json(scopes).dump();
    } catch (const nlohmann::json::exception&) {
        throw Error(ErrorKind::invalid_input, "API key scopes must be valid UTF-8");
    }
}

std::vector<std::string> scopes_from_json(const std::string& text) {
    try {
        return nlohmann::json::parse(text).get<std::vector<std::string>>();
    } catch (const nlohmann::json::exception& e) {
        throw Error(ErrorKind::internal, fmt::format("stored API key scopes are corrupt: {}", e.what()));
    }
}

// --- statements --------------------------------------------------------------

void bind_value(Statement& s, int i, const std::string& v) { s.bind(i, v); }
void bind_value(Statement& s, int i, std::int64_t v) { s.bind(i, v); }
// uint64 columns hold the two's-complement int64 (read back by unsigned_integer()).
void bind_value(Statement& s, int i, std::uint64_t v) { s.bind(i, static_cast<std::int64_t>(v)); }
void bind_value(Statement& s, int i, int v) { s.bind(i, v); }
void bind_value(Statement& s, int i, bool v) { s.bind(i, v ? 1 : 0); }
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

std::string text(const Statement& s, int column) { return s.getColumn(column).getString(); }
std::int64_t integer(const Statement& s, int column) { return s.getColumn(column).getInt64(); }
std::uint64_t unsigned_integer(const Statement& s, int column) {
    return static_cast<std::uint64_t>(integer(s, column));
}
TimePoint time_at(const Statement& s, int column) { return from_millis(integer(s, column)); }
std::optional<TimePoint> optional_time_at(const Statement& s, int column) {
    return s.getColumn(column).isNull() ? std::nullopt : std::optional(time_at(s, column));
}

/// "SELECT <columns> <rest>": one column list per reader, shared by its queries.
std::string select_columns(const char* columns, std::string_view rest) {
    return fmt::format("SELECT {} {}", columns, rest);
}

// Readers, one per row type; each matches the column list of its SELECTs.

/// Columns id, email, role, verified, created_at, from column `first` on.
User read_user_from(const Statement& s, int first) {
    return User{text(s, first), text(s, first + 1), text(s, first + 2), integer(s, first + 3) != 0,
                time_at(s, first + 4)};
}
User read_user(const Statement& s) { return read_user_from(s, 0); }

ApiKey read_api_key(const Statement& s) {  // id, name, scopes, created_by, created_at, revoked_at
    return ApiKey{text(s, 0), text(s, 1), scopes_from_json(text(s, 2)), text(s, 3), time_at(s, 4),
                  optional_time_at(s, 5)};
}

constexpr const char* kAuditColumns =
    "id, time, actor, method, path, status, client_address, request_id, refused_window, count, last_time";
AuditEntry read_audit(const Statement& s) {
    return AuditEntry{integer(s, 0), time_at(s, 1), text(s, 2), text(s, 3), text(s, 4),
                      static_cast<int>(integer(s, 5)), text(s, 6), text(s, 7), !s.isColumnNull(8), integer(s, 9),
                      optional_time_at(s, 10)};
}

constexpr const char* kRoleRequestColumns =
    "id, user_id, role_type, wallet_address, blockchain_id, note, status, created_at, updated_at, approved_by, "
    "approved_at, tx_hash, block_number";
RoleRequest read_role_request(const Statement& s) {
    return RoleRequest{text(s, 0), text(s, 1), text(s, 2),    text(s, 3),    text(s, 4),
                       text(s, 5), text(s, 6), time_at(s, 7), time_at(s, 8), text(s, 9),
                       optional_time_at(s, 10), text(s, 11), unsigned_integer(s, 12)};
}

constexpr const char* kTokenBalanceColumns =
    "blockchain_id, address, token_id, balance, token_type, category, tx_hash, block_number, minted_at, "
    "last_minted, last_updated, last_synced";
TokenBalance read_token_balance(const Statement& s) {
    return TokenBalance{text(s, 0), text(s, 1), unsigned_integer(s, 2), text(s, 3),
                        text(s, 4), text(s, 5), text(s, 6), unsigned_integer(s, 7),
                        optional_time_at(s, 8), optional_time_at(s, 9), time_at(s, 10), optional_time_at(s, 11)};
}

constexpr const char* kEntityColumns =
    "id, blockchain_id, entity_type, entity_id, token_id, recipient, amount, cid, metadata, tx_hash, block_number, "
    "created_at";
Entity read_entity(const Statement& s) {
    return Entity{integer(s, 0), text(s, 1), text(s, 2), text(s, 3), unsigned_integer(s, 4), text(s, 5),
                  unsigned_integer(s, 6), text(s, 7), text(s, 8), text(s, 9), unsigned_integer(s, 10),
                  time_at(s, 11)};
}

constexpr const char* kJournalColumns =
    "hash, blockchain_id, sender, nonce, raw, purpose, status, block_number, created_at, updated_at";
JournalEntry read_journal(const Statement& s) {
    return JournalEntry{text(s, 0), text(s, 1), text(s, 2), unsigned_integer(s, 3), text(s, 4),
                        text(s, 5), text(s, 6), unsigned_integer(s, 7), time_at(s, 8), time_at(s, 9), {}};
}

constexpr const char* kMintColumns =
    "id, actor, route, blockchain_id, idempotency_key, fingerprint, state, answer, created_at, updated_at";
MintRequest read_mint(const Statement& s) {
    return MintRequest{text(s, 0), text(s, 1), text(s, 2), text(s, 3), text(s, 4),
                      text(s, 5), text(s, 6), text(s, 7), time_at(s, 8), time_at(s, 9)};
}

constexpr const char* kCertificateColumns =
    "id, user_id, blockchain_id, wallet_address, recipient, title, description, status, cid, token_id, tx_hash, "
    "block_number, token, created_at, updated_at";
Certificate read_certificate(const Statement& s) {
    return Certificate{text(s, 0), text(s, 1), text(s, 2), text(s, 3), text(s, 4),
                       text(s, 5), text(s, 6), text(s, 7), text(s, 8), unsigned_integer(s, 9),
                       text(s, 10), unsigned_integer(s, 11), text(s, 12), time_at(s, 13), time_at(s, 14)};
}

Practice read_practice(const Statement& s) {  // id, farmer_id, title, description, created_at
    return Practice{text(s, 0), text(s, 1), text(s, 2), text(s, 3), time_at(s, 4)};
}

Verification read_verification(const Statement& s) {  // id, practice_id, verifier_id, outcome, notes, created_at
    return Verification{text(s, 0), text(s, 1), text(s, 2), text(s, 3), text(s, 4), time_at(s, 5)};
}

/// Claims a key for `user_id`: `insert_sql` (parameters: the key's columns,
/// then user_id, then the time; ON CONFLICT DO NOTHING) adds the row unless
/// the key is taken; `owner_sql` (parameters: the key's columns) then names the
/// owner. Same owner: done (idempotent). Rows are never reassigned, so the two
/// statements need no transaction.
template <class... Key>
void claim(Database& db, const char* insert_sql, const char* owner_sql, const char* taken_message,
           const std::string& user_id, const Key&... key) {
    execute(db, insert_sql, key..., user_id, to_millis(now_millis()));
    const auto owner = query_one(db, owner_sql, [](const Statement& s) { return text(s, 0); }, key...);
    if (owner != user_id) throw Error(ErrorKind::conflict, taken_message);
}

// --- errors --------------------------------------------------------------------

/// What a method's constraint violations mean, in its own words.
struct Meaning {
    const char* conflict = "the record already exists";
    const char* not_found = "a referenced record does not exist";
};

Error translate(const SQLite::Exception& e, const Meaning& meaning) {
    switch (e.getErrorCode() & 0xff) {
    case SQLITE_CONSTRAINT:
        switch (e.getExtendedErrorCode()) {
        case SQLITE_CONSTRAINT_UNIQUE:
        case SQLITE_CONSTRAINT_PRIMARYKEY:
            return Error(ErrorKind::conflict, meaning.conflict);
        case SQLITE_CONSTRAINT_FOREIGNKEY:
            return Error(ErrorKind::not_found, meaning.not_found);
        default:
            return Error(ErrorKind::internal, fmt::format("database constraint failed: {}", e.what()));
        }
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return Error(ErrorKind::unavailable, fmt::format("the database is busy: {}", e.what()));
    case SQLITE_CANTOPEN:
    case SQLITE_IOERR:
    case SQLITE_FULL:
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
    case SQLITE_PROTOCOL:
        return Error(ErrorKind::unavailable, fmt::format("the database cannot be used: {}", e.what()));
    default:
        return Error(ErrorKind::internal, fmt::format("database error: {}", e.what()));
    }
}

// --- the store -------------------------------------------------------------------

class SqliteStore final : public Store {
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
            return execute(db, update_sql, id, args...) == 1 ||
                   query_one(db, exists_sql, [](const Statement&) { return true; }, id).has_value();
        });
        if (!found) throw Error(ErrorKind::not_found, missing);
    }

    /// The mint that the claim (actor, route, key) names.
    static std::optional<MintRequest> mint_by_key(Database& db, const std::string& actor, const std::string& route,
                                                  const std::string& key) {
        return query_one(db,
                         select_columns(kMintColumns,
                                        "FROM mint_requests WHERE id = (SELECT mint_id FROM idempotency_keys "
                                        "WHERE actor = ? AND route = ? AND key = ?)"),
                         read_mint, actor, route, key);
    }

    // Error(not_found, `missing`) unless `exists_sql` finds a row for `key`.
    static void require_row(Database& db, const char* exists_sql, const std::string& key, const std::string& missing) {
        if (!query_one(db, exists_sql, [](const Statement&) { return true; }, key))
            throw Error(ErrorKind::not_found, missing);
    }

    static void require_mint(Database& db, const std::string& id) {
        require_row(db, "SELECT 1 FROM mint_requests WHERE id = ?", id, "no mint " + id);
    }

    // A journal entry that a guarded update left unchanged exists (and is final), or not_found.
    static void require_journaled(Database& db, const std::string& hash) {
        require_row(db, "SELECT 1 FROM tx_journal WHERE hash = ?", hash, "transaction " + hash + " not journaled");
    }

    /// Inserts a new user with a fresh id; SQLite's exception when the e-mail is taken.
    static User insert_user(Database& db, const NewUser& user) {
        User created{crypto::random_uuid(), lower_ascii(user.email), user.role, user.verified, now_millis()};
        execute(db, "INSERT INTO users (id, email, role, verified, created_at) VALUES (?, ?, ?, ?, ?)", created.id,
                created.email, created.role, created.verified, to_millis(created.created_at));
        return created;
    }

    void write_audit(const std::vector<AuditEntry>& entries) {
        run({}, [&](Database& db) {
            SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
            constexpr auto window = std::chrono::duration_cast<std::chrono::milliseconds>(kRefusedAuditWindow).count();
            for (const auto& entry : entries) {
                const auto time = to_millis(entry.time);
                const std::optional<std::int64_t> refused_window =
                    entry.refused ? std::optional(time - time % window) : std::nullopt;
                execute(db,
                        "INSERT INTO audit_log (time, actor, method, path, status, client_address, request_id, "
                        "refused_window, count, last_time) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                        "ON CONFLICT (refused_window, client_address, actor, method, path, status) "
                        "WHERE refused_window IS NOT NULL "
                        "DO UPDATE SET count = count + excluded.count, last_time = max(last_time, excluded.last_time)",
                        time, entry.actor, entry.method, entry.path, entry.status, entry.client_address,
                        entry.request_id, refused_window, entry.count,
                        entry.refused ? std::optional(time) : std::nullopt);
            }
            tx.commit();
        });
    }

    void report_audit_failure(const std::exception& e) {
        std::lock_guard lock(audit_error_mutex_);
        if (audit_error_handler_) audit_error_handler_(e.what());
    }

    /// Adds one mint to token_balances unless its transaction was added
    /// already (a mint is recorded once per transaction, whoever retries).
    static void add_mint(Database& db, const MintRecord& mint) {
        const eth::U256 amount = eth::U256::parse(mint.amount);
        const std::int64_t time = to_millis(mint.time);
        if (execute(db,
                    "INSERT INTO mints (blockchain_id, tx_hash, address, token_id, amount, recorded_at) "
                    "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                    mint.blockchain_id, mint.tx_hash, mint.address, mint.token_id, amount.to_dec(),
                    to_millis(now_millis())) == 0) {
            return;  // already added
        }
        const auto held = query_one(
            db, "SELECT balance FROM token_balances WHERE blockchain_id = ? AND address = ? AND token_id = ?",
            [](const Statement& s) { return eth::U256::parse(text(s, 0)); }, mint.blockchain_id, mint.address,
            mint.token_id);
        const eth::U256 before = held.value_or(eth::U256{});
        const eth::U256 after = before + amount;
        if (after < before) throw Error(ErrorKind::invalid_input, "the minted balance would exceed 2^256-1");
        execute(db,
                "INSERT INTO token_balances (blockchain_id, address, token_id, balance, token_type, category, "
                "tx_hash, block_number, minted_at, last_minted, last_updated) "
                "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9, ?9) "
                "ON CONFLICT (blockchain_id, address, token_id) DO UPDATE SET balance = ?4, token_type = ?5, "
                "category = ?6, tx_hash = ?7, block_number = ?8, minted_at = coalesce(minted_at, ?9), "
                "last_minted = ?9, last_updated = ?9",
                mint.blockchain_id, mint.address, mint.token_id, after.to_dec(), mint.token_type, mint.category,
                mint.tx_hash, mint.block_number, time);
    }

    // The mints of one block are answered at once: recording them one
    // transaction each queued their requests behind each other on the write
    // lock. Concurrent ones share a transaction, each in a savepoint of its
    // own, so one that fails (its error goes to its caller) undoes only itself.
    std::vector<std::exception_ptr> write_mints(const std::vector<MintRecord>& mints) {
        std::vector<std::exception_ptr> errors(mints.size());
        run({}, [&](Database& db) {
            SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
            for (std::size_t i = 0; i < mints.size(); ++i) {
                SQLite::Savepoint savepoint(db, "mint");
                try {
                    add_mint(db, mints[i]);
                    savepoint.release();
                } catch (const SQLite::Exception& e) {
                    savepoint.rollback();
                    errors[i] = std::make_exception_ptr(translate(e, {}));
                } catch (...) {
                    savepoint.rollback();
                    errors[i] = std::current_exception();
                }
            }
            tx.commit();
        });
        return errors;
    }

    sqlite::ConnectionPool pool_;
    std::mutex audit_error_mutex_;  // guards the handler only
    std::function<void(const std::string&)> audit_error_handler_;
    // Every /abci request appends an audit row. They are committed in batches
    // at most every few milliseconds, off the request's path: each commit
    // would otherwise make every reader's page cache stale (SQLite drops a
    // connection's cache when the WAL changed), so a read route under load
    // re-read its pages from disk on nearly every request. Last member: its
    // destructor writes what is queued while the pool still exists.
    util::Combiner<MintRecord, std::exception_ptr> mint_writer_{
        [this](std::vector<MintRecord>& batch) { return write_mints(batch); }, 512};
    util::BatchWriter<AuditEntry> audit_writer_{[this](std::vector<AuditEntry>& batch) { write_audit(batch); },
                                                [this](const std::exception& e) { report_audit_failure(e); },
                                                std::chrono::milliseconds(5)};

public:
    explicit SqliteStore(const std::string& path) : pool_(path, kPoolCapacity) {}

    void migrate() {
        run({}, [](Database& db) { sqlite::migrate(db); });
    }

    User create_user(const NewUser& user) override {
        return run({"e-mail already registered"}, [&](Database& db) { return insert_user(db, user); });
    }

    std::vector<User> create_accounts(const std::vector<NewAccount>& accounts) override {
        return run({"e-mail already registered or wallet already linked"}, [&](Database& db) {
            SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
            std::vector<User> created;
            created.reserve(accounts.size());
            for (const NewAccount& account : accounts) {
                created.push_back(insert_user(db, account.user));
                // A plain INSERT: the wallet's primary key refuses one linked to anybody already.
                for (const std::string& address : account.wallets)
                    execute(db, "INSERT INTO wallets (address, user_id, linked_at) VALUES (?, ?, ?)", address,
                            created.back().id, to_millis(created.back().created_at));
            }
            tx.commit();
            return created;
        });
    }

    std::optional<User> find_user_by_id(const std::string& id) override {
        return run({}, [&](Database& db) {
            return query_one(db, "SELECT id, email, role, verified, created_at FROM users WHERE id = ?", read_user,
                             id);
        });
    }

    std::optional<User> find_user_by_email(const std::string& email) override {
        return run({}, [&](Database& db) {
            return query_one(db, "SELECT id, email, role, verified, created_at FROM users WHERE email = ?",
                             read_user, lower_ascii(email));
        });
    }

    std::vector<User> list_users() override {
        return run({}, [&](Database& db) {
            return query_all(db, "SELECT id, email, role, verified, created_at FROM users ORDER BY rowid",
                             read_user);
        });
    }

    std::size_t count_users() override {
        return run({}, [&](Database& db) {
            return static_cast<std::size_t>(db.execAndGet("SELECT count(*) FROM users").getInt64());
        });
    }

    void set_user_role(const std::string& user_id, const std::string& role) override {
        const int changed =
            run({}, [&](Database& db) { return execute(db, "UPDATE users SET role = ? WHERE id = ?", role, user_id); });
        if (changed == 0) throw Error(ErrorKind::not_found, "user not found");
    }

    void set_password_hash(const std::string& user_id, const std::string& encoded_hash) override {
        run({.not_found = "user not found"}, [&](Database& db) {
            execute(db,
                    "INSERT INTO password_credentials (user_id, hash, updated_at) VALUES (?1, ?2, ?3) "
                    "ON CONFLICT (user_id) DO UPDATE SET hash = ?2, updated_at = ?3",
                    user_id, encoded_hash, to_millis(now_millis()));
        });
    }

    std::optional<std::string> password_hash(const std::string& user_id) override {
        return run({}, [&](Database& db) {
            return query_one(db, "SELECT hash FROM password_credentials WHERE user_id = ?",
                             [](const Statement& s) { return text(s, 0); }, user_id);
        });
    }

    void link_wallet(const std::string& user_id, const std::string& address) override {
        run({.not_found = "user not found"}, [&](Database& db) {
            claim(db,
                  "INSERT INTO wallets (address, user_id, linked_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                  "SELECT user_id FROM wallets WHERE address = ?", "wallet already linked to another user", user_id,
                  address);
        });
    }

    std::optional<User> find_user_by_wallet(const std::string& address) override {
        return run({}, [&](Database& db) {
            return query_one(db,
                             "SELECT u.id, u.email, u.role, u.verified, u.created_at FROM wallets w "
                             "JOIN users u ON u.id = w.user_id WHERE w.address = ?",
                             read_user, address);
        });
    }

    std::vector<std::string> wallets_of(const std::string& user_id) override {
        return run({}, [&](Database& db) {
            return query_all(db, "SELECT address FROM wallets WHERE user_id = ? ORDER BY linked_at, rowid",
                             [](const Statement& s) { return text(s, 0); }, user_id);
        });
    }

    void link_identity(const std::string& user_id, const std::string& issuer, const std::string& subject) override {
        run({.not_found = "user not found"}, [&](Database& db) {
            claim(db,
                  "INSERT INTO identities (issuer, subject, user_id, linked_at) VALUES (?, ?, ?, ?) "
                  "ON CONFLICT DO NOTHING",
                  "SELECT user_id FROM identities WHERE issuer = ? AND subject = ?",
                  "identity already linked to another user", user_id, issuer, subject);
        });
    }

    std::optional<User> find_user_by_identity(const std::string& issuer, const std::string& subject) override {
        return run({}, [&](Database& db) {
            return query_one(db,
                             "SELECT u.id, u.email, u.role, u.verified, u.created_at FROM identities i "
                             "JOIN users u ON u.id = i.user_id WHERE i.issuer = ? AND i.subject = ?",
                             read_user, issuer, subject);
        });
    }

    void add_refresh_token(const RefreshToken& token) override {
        run({"refresh token already exists", "user not found"}, [&](Database& db) {
            SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
            claim(db,
                  "INSERT INTO refresh_families (family_id, user_id, created_at) VALUES (?, ?, ?) "
                  "ON CONFLICT DO NOTHING",
                  "SELECT user_id FROM refresh_families WHERE family_id = ?",
                  "refresh token family belongs to another user", token.user_id, token.family_id);
            execute(db,
                    "INSERT INTO refresh_tokens (token_hash, family_id, user_id, expires_at, used) "
                    "VALUES (?, ?, ?, ?, ?)",
                    token.token_hash, token.family_id, token.user_id, to_millis(token.expires_at), token.used);
            tx.commit();
        });
    }

    std::optional<RefreshToken> find_refresh_token(const std::string& token_hash) override {
        return run({}, [&](Database& db) {
            return query_one(
                db,
                "SELECT t.token_hash, t.family_id, t.user_id, t.expires_at, t.used, f.revoked "
                "FROM refresh_tokens t JOIN refresh_families f ON f.family_id = t.family_id WHERE t.token_hash = ?",
                [](const Statement& s) {
                    return RefreshToken{text(s, 0), text(s, 1), text(s, 2), time_at(s, 3), integer(s, 4) != 0,
                                        integer(s, 5) != 0};
                },
                token_hash);
        });
    }

    bool mark_refresh_token_used(const std::string& token_hash) override {
        // One UPDATE guarded by "used = 0": SQLite runs writers one at a time,
        // so exactly one caller sees a changed row.
        return run({}, [&](Database& db) {
            return execute(db, "UPDATE refresh_tokens SET used = 1 WHERE token_hash = ? AND used = 0",
                           token_hash) == 1;
        });
    }

    void revoke_refresh_family(const std::string& family_id) override {
        run({}, [&](Database& db) {
            execute(db, "UPDATE refresh_families SET revoked = 1 WHERE family_id = ?", family_id);
        });
    }

    void revoke_token_id(const std::string& jti, TimePoint expires_at) override {
        run({}, [&](Database& db) {
            execute(db,
                    "INSERT INTO revoked_tokens (jti, expires_at) VALUES (?1, ?2) "
                    "ON CONFLICT (jti) DO UPDATE SET expires_at = max(expires_at, ?2)",
                    jti, to_millis(expires_at));
            // The list only grows with logouts; pruning here keeps it to the
            // tokens that are still alive.
            execute(db, "DELETE FROM revoked_tokens WHERE expires_at < ?", to_millis(now_millis()));
        });
    }

    TokenStanding token_standing(const std::string& jti, const std::string& family_id,
                                 const std::string& user_id) override {
        return run({}, [&](Database& db) {
            // Always exactly one row: the user's columns are NULL when there is no such user.
            const auto standing = query_one(
                db,
                "SELECT EXISTS (SELECT 1 FROM revoked_tokens WHERE jti = ?1), "
                "EXISTS (SELECT 1 FROM refresh_families WHERE family_id = ?2 AND revoked = 1), "
                "u.id, u.email, u.role, u.verified, u.created_at FROM (SELECT 1) LEFT JOIN users u ON u.id = ?3",
                [](const Statement& s) {
                    return TokenStanding{integer(s, 0) != 0, integer(s, 1) != 0,
                                         s.getColumn(2).isNull() ? std::nullopt
                                                                 : std::optional(read_user_from(s, 2))};
                },
                jti, family_id, user_id);
            return standing.value_or(TokenStanding{});
        });
    }

    void put_ticket(const std::string& kind, const std::string& key, const std::string& payload,
                    TimePoint expires_at) override {
        run({"ticket already exists"}, [&](Database& db) {
            execute(db, "INSERT INTO tickets (kind, key, payload, expires_at) VALUES (?, ?, ?, ?)", kind, key,
                    payload, to_millis(expires_at));
        });
    }

    std::optional<std::string> take_ticket(const std::string& kind, const std::string& key, TimePoint now) override {
        return run({}, [&](Database& db) {
            // DELETE … RETURNING is one write: of concurrent takers, only the
            // one whose DELETE removed the row gets the payload.
            auto payload = query_one(db,
                                     "DELETE FROM tickets WHERE kind = ? AND key = ? AND expires_at > ? "
                                     "RETURNING payload",
                                     [](const Statement& s) { return text(s, 0); }, kind, key, to_millis(now));
            execute(db, "DELETE FROM tickets WHERE expires_at <= ?", to_millis(now));
            return payload;
        });
    }

    std::size_t count_tickets(const std::string& kind, TimePoint now) override {
        return run({}, [&](Database& db) {
            const auto count = query_one(db, "SELECT count(*) FROM tickets WHERE kind = ? AND expires_at > ?",
                                         [](const Statement& s) { return integer(s, 0); }, kind, to_millis(now));
            return static_cast<std::size_t>(count.value_or(0));
        });
    }

    ApiKey create_api_key(const NewApiKey& key) override {
        ApiKey created{crypto::random_uuid(), key.name, key.scopes, key.created_by, now_millis(), std::nullopt};
        const std::string scopes = scopes_to_json(key.scopes);
        run({"API key already exists"}, [&](Database& db) {
            execute(db,
                    "INSERT INTO api_keys (id, name, key_hash, scopes, created_by, created_at) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    created.id, created.name, key.key_hash, scopes, created.created_by,
                    to_millis(created.created_at));
        });
        return created;
    }

    std::optional<ApiKey> find_api_key_by_hash(const std::string& key_hash) override {
        return run({}, [&](Database& db) {
            return query_one(db,
                             "SELECT id, name, scopes, created_by, created_at, revoked_at FROM api_keys "
                             "WHERE key_hash = ?",
                             read_api_key, key_hash);
        });
    }

    std::vector<ApiKey> list_api_keys() override {
        return run({}, [&](Database& db) {
            return query_all(db,
                             "SELECT id, name, scopes, created_by, created_at, revoked_at FROM api_keys "
                             "ORDER BY rowid",
                             read_api_key);
        });
    }

    bool revoke_api_key(const std::string& id) override {
        return run({}, [&](Database& db) {
            return execute(db, "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
                           to_millis(now_millis()), id) == 1;
        });
    }

    void append_audit(const AuditEntry& entry) override { audit_writer_.append(entry); }

    void set_audit_error_handler(std::function<void(const std::string&)> handler) override {
        std::lock_guard lock(audit_error_mutex_);
        audit_error_handler_ = std::move(handler);
    }

    std::vector<AuditEntry> query_audit(const AuditQuery& query) override {
        // Our own queued entries first, so a request's row is listed by the next request.
        (void)audit_writer_.flush(std::chrono::seconds(5));
        const std::int64_t from = query.since ? to_millis(*query.since) : std::numeric_limits<std::int64_t>::min();
        const auto max_rows =
            static_cast<std::int64_t>(std::min<std::size_t>(query.limit, std::numeric_limits<std::int64_t>::max()));
        // One statement for every combination: an empty filter compares true.
        const std::string sql = select_columns(kAuditColumns,
                                               std::string("FROM audit_log WHERE time >= ?1 AND (?2 = '' OR actor = ?2) "
                                                           "AND status BETWEEN ?3 AND ?4 AND substr(path, 1, length(?5)) "
                                                           "= ?5 ORDER BY id ") +
                                                   (query.newest_first ? "DESC" : "ASC") + " LIMIT ?6");
        return run({}, [&](Database& db) {
            return query_all(db, sql, read_audit, from, query.actor, query.status_from, query.status_to,
                             query.path_prefix, max_rows);
        });
    }

    std::map<std::string, TimePoint> api_keys_last_used() override {
        (void)audit_writer_.flush(std::chrono::seconds(5));
        // A range over audit_log_by_actor rather than LIKE: "apikey;" is the first string after every "apikey:…".
        const auto rows = run({}, [&](Database& db) {
            return query_all(db,
                             "SELECT substr(actor, 8), MAX(time) FROM audit_log "
                             "WHERE actor >= 'apikey:' AND actor < 'apikey;' GROUP BY actor",
                             [](const Statement& st) { return std::pair(text(st, 0), time_at(st, 1)); });
        });
        return {rows.begin(), rows.end()};
    }

    RoleRequest create_role_request(const NewRoleRequest& request) override {
        const TimePoint now = now_millis();
        RoleRequest created{crypto::random_uuid(), request.user_id, request.role_type, request.wallet_address,
                            request.blockchain_id, request.note, "pending", now, now, "", std::nullopt, "", 0};
        run({.not_found = "user not found"}, [&](Database& db) {
            execute(db,
                    "INSERT INTO role_requests (id, user_id, role_type, wallet_address, blockchain_id, note, status, "
                    "created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    created.id, created.user_id, created.role_type, created.wallet_address, created.blockchain_id,
                    created.note, created.status, to_millis(created.created_at), to_millis(created.updated_at));
        });
        return created;
    }

    std::vector<RoleRequest> list_role_requests(std::optional<std::string> status) override {
        return run({}, [&](Database& db) {
            return query_all(db,
                             select_columns(kRoleRequestColumns,
                                    "FROM role_requests WHERE ?1 IS NULL OR status = ?1 ORDER BY rowid"),
                             read_role_request, status);
        });
    }

    std::optional<RoleRequest> find_role_request(const std::string& id) override {
        return run({}, [&](Database& db) {
            return query_one(db, select_columns(kRoleRequestColumns, "FROM role_requests WHERE id = ?"),
                             read_role_request, id);
        });
    }

    bool transition_role_request(const std::string& id, const std::string& from, const std::string& to,
                                 const std::string& actor) override {
        // One UPDATE guarded by the expected status: writers are serialised,
        // so of two concurrent approvers exactly one sees a changed row.
        return run({}, [&](Database& db) {
            return execute(db,
                           "UPDATE role_requests SET status = ?3, updated_at = ?5, "
                           "approved_by = CASE WHEN ?3 = 'approved' THEN ?4 ELSE approved_by END, "
                           "approved_at = CASE WHEN ?3 = 'approved' THEN ?5 ELSE approved_at END "
                           "WHERE id = ?1 AND status = ?2",
                           id, from, to, actor, to_millis(now_millis())) == 1;
        });
    }

    void set_role_request_minted(const std::string& id, const std::string& tx_hash,
                                 std::uint64_t block_number) override {
        update_existing("role request not found", "SELECT 1 FROM role_requests WHERE id = ?1",
                        "UPDATE role_requests SET status = 'minted', tx_hash = ?2, block_number = ?3, updated_at = ?4 "
                        "WHERE id = ?1 AND NOT (status = 'minted' AND tx_hash = ?2 AND block_number = ?3)",
                        id, tx_hash, block_number, to_millis(now_millis()));
    }

    void record_mint(const MintRecord& mint) override {
        if (const auto error = mint_writer_.submit(mint)) std::rethrow_exception(error);
    }

    std::optional<TokenBalance> find_token_balance(const std::string& blockchain_id, const std::string& address,
                                                   std::uint64_t token_id) override {
        return run({}, [&](Database& db) {
            return query_one(db,
                             select_columns(kTokenBalanceColumns,
                                    "FROM token_balances WHERE blockchain_id = ? AND address = ? AND token_id = ?"),
                             read_token_balance, blockchain_id, address, token_id);
        });
    }

    std::vector<TokenBalance> token_balances_of(const std::string& blockchain_id,
                                                const std::string& address) override {
        // Ids of 2^63 and above are stored negative: "token_id < 0" sorts them last.
        return run({}, [&](Database& db) {
            return query_all(db,
                             select_columns(kTokenBalanceColumns,
                                    "FROM token_balances WHERE blockchain_id = ? AND address = ? AND balance <> '0' "
                                    "ORDER BY token_id < 0, token_id"),
                             read_token_balance, blockchain_id, address);
        });
    }

    void sync_token_balances(const std::string& blockchain_id, const std::string& address,
                             const std::vector<ChainBalance>& balances, TimePoint now) override {
        std::vector<std::string> on_chain;
        on_chain.reserve(balances.size());
        for (const ChainBalance& b : balances) on_chain.push_back(canonical_decimal(b.balance));
        const std::int64_t time = to_millis(now);
        run({}, [&](Database& db) {
            SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
            for (std::size_t i = 0; i < balances.size(); ++i) {
                const ChainBalance& b = balances[i];
                const auto held = query_one(
                    db, "SELECT balance FROM token_balances WHERE blockchain_id = ? AND address = ? AND token_id = ?",
                    [](const Statement& s) { return text(s, 0); }, blockchain_id, address, b.token_id);
                if (!held) {
                    if (on_chain[i] == "0") continue;
                    execute(db,
                            "INSERT INTO token_balances (blockchain_id, address, token_id, balance, token_type, "
                            "category, tx_hash, block_number, last_updated, last_synced) "
                            "VALUES (?1, ?2, ?3, ?4, ?5, ?6, '', 0, ?7, ?7)",
                            blockchain_id, address, b.token_id, on_chain[i], b.token_type, b.category, time);
                } else {
                    // Stored balances are canonical, so equal values are equal strings.
                    execute(db,
                            "UPDATE token_balances SET last_synced = ?5, "
                            "last_updated = CASE WHEN balance = ?4 THEN last_updated ELSE ?5 END, balance = ?4 "
                            "WHERE blockchain_id = ?1 AND address = ?2 AND token_id = ?3",
                            blockchain_id, address, b.token_id, on_chain[i], time);
                }
            }
            tx.commit();
        });
    }

    Entity record_entity(const Entity& entity) override {
        const auto created_at = now_millis();
        return run({}, [&](Database& db) {
            execute(db,
                    "INSERT INTO entities (blockchain_id, entity_type, entity_id, token_id, recipient, amount, cid, "
                    "metadata, tx_hash, block_number, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT (blockchain_id, tx_hash) DO NOTHING",
                    entity.blockchain_id, entity.entity_type, entity.entity_id, entity.token_id, entity.recipient,
                    entity.amount, entity.cid, entity.metadata, entity.tx_hash, entity.block_number,
                    to_millis(created_at));
            return *query_one(db, select_columns(kEntityColumns, "FROM entities WHERE blockchain_id = ? AND tx_hash = ?"),
                              read_entity, entity.blockchain_id, entity.tx_hash);
        });
    }

    std::optional<Entity> find_entity(const std::string& blockchain_id, std::uint64_t token_id,
                                      const std::optional<std::string>& entity_id) override {
        return run({}, [&](Database& db) {
            return query_one(db,
                             select_columns(kEntityColumns,
                                    "FROM entities WHERE blockchain_id = ?1 AND token_id = ?2 "
                                    "AND (?3 IS NULL OR entity_id = ?3) ORDER BY id DESC LIMIT 1"),
                             read_entity, blockchain_id, token_id, entity_id);
        });
    }

    void journal_add(const std::vector<JournalEntry>& entries) override {
        const std::int64_t now = to_millis(now_millis());
        run({"transaction already journaled"}, [&](Database& db) {
            SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
            for (const JournalEntry& e : entries) {
                // The same bytes again are the same transaction: one the node
                // refused, whose nonce was given back and signed again unchanged.
                if (execute(db,
                            "INSERT INTO tx_journal (hash, blockchain_id, sender, nonce, raw, purpose, status, "
                            "block_number, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'pending', 0, ?7, ?7) "
                            "ON CONFLICT (hash) DO UPDATE SET status = 'pending', updated_at = ?7 WHERE status = 'refused'",
                            e.hash, e.blockchain_id, e.sender, e.nonce, e.raw, e.purpose, now) == 0)
                    throw Error(ErrorKind::conflict, "transaction already journaled");
                for (const auto& mint_id : e.mint_ids)
                    execute(db, "INSERT OR IGNORE INTO mint_transactions (mint_id, hash) VALUES (?, ?)", mint_id, e.hash);
            }
            tx.commit();
        });
    }

    void journal_settle(const std::vector<JournalSettlement>& settlements) override {
        const std::int64_t now = to_millis(now_millis());
        run({}, [&](Database& db) {
            SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
            // Only pending leaves pending (core/chain/tx_state.hpp): a final entry stays as it is.
            for (const auto& s : settlements) {
                const bool settled = execute(db,
                                             "UPDATE tx_journal SET status = ?, block_number = ?, updated_at = ? "
                                             "WHERE hash = ? AND status = 'pending'",
                                             s.status, s.block_number, now, s.hash) == 1;
                if (!settled) require_journaled(db, s.hash);
            }
            tx.commit();
        });
    }

    std::vector<JournalEntry> journal_list(const std::string& blockchain_id, const std::vector<std::string>& statuses,
                                           std::size_t limit) override {
        // json_each binds the list as one parameter: the statement stays prepared, never spliced.
        nlohmann::json wanted = statuses;
        return run({}, [&](Database& db) {
            return query_all(db,
                             select_columns(kJournalColumns,
                                            "FROM tx_journal WHERE (?1 = '' OR blockchain_id = ?1) AND "
                                            "(?2 = '[]' OR status IN (SELECT value FROM json_each(?2))) "
                                            "ORDER BY created_at DESC, rowid DESC LIMIT ?3"),
                             read_journal, blockchain_id, wanted.dump(), static_cast<std::int64_t>(limit));
        });
    }

    bool journal_abandon(const std::string& hash) override {
        const std::int64_t now = to_millis(now_millis());
        return run({}, [&](Database& db) {
            SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
            const bool abandoned = execute(db,
                                           "UPDATE tx_journal SET status = 'abandoned', updated_at = ? "
                                           "WHERE hash = ? AND status = 'pending'",
                                           now, hash) == 1;
            if (!abandoned) require_journaled(db, hash);
            tx.commit();
            return abandoned;
        });
    }

    void journal_reopen(const std::string& hash) override {
        run({}, [&](Database& db) {
            execute(db,
                    "UPDATE tx_journal SET status = 'pending', block_number = 0, updated_at = ? "
                    "WHERE hash = ? AND status IN ('mined', 'reverted')",
                    to_millis(now_millis()), hash);
        });
    }

    std::optional<JournalEntry> journal_find(const std::string& hash) override {
        return run({}, [&](Database& db) {
            return query_one(db, select_columns(kJournalColumns, "FROM tx_journal WHERE hash = ?"), read_journal, hash);
        });
    }

    std::vector<JournalEntry> journal_pending(const std::string& blockchain_id) override {
        return run({}, [&](Database& db) {
            return query_all(db,
                             select_columns(kJournalColumns,
                                    "FROM tx_journal WHERE blockchain_id = ? AND status = 'pending' "
                                    "ORDER BY nonce < 0, nonce, created_at, rowid"),
                             read_journal, blockchain_id);
        });
    }

    std::optional<MintRequest> begin_mint(const MintRequest& mint) override {
        const std::int64_t now = to_millis(now_millis());
        return run({}, [&](Database& db) {
            // The claim, the read of the winner's mint and the new mint in one
            // write transaction: a release in between cannot leave us with neither.
            SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
            std::optional<MintRequest> existing;
            if (!mint.idempotency_key.empty() &&
                execute(db,
                        "INSERT INTO idempotency_keys (actor, route, key, mint_id, created_at) VALUES (?, ?, ?, ?, ?) "
                        "ON CONFLICT DO NOTHING",
                        mint.actor, mint.route, mint.idempotency_key, mint.id, now) == 0) {
                existing = mint_by_key(db, mint.actor, mint.route, mint.idempotency_key);
                if (!existing) throw Error(ErrorKind::internal, "an idempotency key names no mint");
            } else {
                execute(db,
                        "INSERT INTO mint_requests (id, actor, route, blockchain_id, idempotency_key, fingerprint, state, "
                        "answer, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'pending', '', ?7, ?7)",
                        mint.id, mint.actor, mint.route, mint.blockchain_id, mint.idempotency_key, mint.fingerprint,
                        now);
            }
            tx.commit();
            return existing;
        });
    }

    void finish_mint(const std::string& id, const std::string& state, const std::string& answer) override {
        run({}, [&](Database& db) {
            SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
            require_mint(db, id);
            execute(db, "UPDATE mint_requests SET state = ?, answer = ?, updated_at = ? WHERE id = ? AND state = 'pending'",
                    state, answer, to_millis(now_millis()), id);
            tx.commit();
        });
    }

    void release_mint(const std::string& id, const std::string& answer) override {
        run({}, [&](Database& db) {
            SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
            require_mint(db, id);
            if (execute(db, "UPDATE mint_requests SET state = 'failed', answer = ?, updated_at = ? WHERE id = ? AND state = 'pending'",
                        answer, to_millis(now_millis()), id) == 1)
                execute(db, "DELETE FROM idempotency_keys WHERE mint_id = ?", id);
            tx.commit();
        });
    }

    std::optional<MintRequest> find_mint(const std::string& id) override {
        return run({}, [&](Database& db) {
            return query_one(db, select_columns(kMintColumns, "FROM mint_requests WHERE id = ?"), read_mint, id);
        });
    }

    std::optional<MintRequest> find_mint_by_key(const std::string& actor, const std::string& route,
                                                const std::string& key) override {
        return run({}, [&](Database& db) { return mint_by_key(db, actor, route, key); });
    }

    std::vector<JournalEntry> mint_transactions(const std::string& id) override {
        return run({}, [&](Database& db) {
            return query_all(db,
                             select_columns(kJournalColumns,
                                            "FROM tx_journal WHERE hash IN (SELECT hash FROM mint_transactions "
                                            "WHERE mint_id = ?) ORDER BY created_at, rowid"),
                             read_journal, id);
        });
    }

    std::vector<MintRequest> pending_mints() override {
        return run({}, [&](Database& db) {
            return query_all(db, select_columns(kMintColumns, "FROM mint_requests WHERE state = 'pending' ORDER BY created_at, rowid"),
                             read_mint);
        });
    }

    Certificate create_certificate(const NewCertificate& certificate) override {
        const TimePoint now = now_millis();
        Certificate created{crypto::random_uuid(), certificate.user_id, certificate.blockchain_id,
                            certificate.wallet_address, certificate.recipient, certificate.title,
                            certificate.description, "pending", certificate.cid, 0, "", 0, "", now, now};
        run({.not_found = "user not found"}, [&](Database& db) {
            execute(db,
                    "INSERT INTO certificates (id, user_id, blockchain_id, wallet_address, recipient, title, "
                    "description, status, cid, token_id, tx_hash, block_number, token, created_at, updated_at) "
                    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 0, '', 0, '', ?10, ?10)",
                    created.id, created.user_id, created.blockchain_id, created.wallet_address, created.recipient,
                    created.title, created.description, created.status, created.cid, to_millis(now));
        });
        return created;
    }

    std::optional<Certificate> find_certificate(const std::string& id) override {
        return run({}, [&](Database& db) {
            return query_one(db, select_columns(kCertificateColumns, "FROM certificates WHERE id = ?"),
                             read_certificate, id);
        });
    }

    std::vector<Certificate> certificates_of(const std::string& user_id) override {
        return run({}, [&](Database& db) {
            return query_all(db,
                             select_columns(kCertificateColumns, "FROM certificates WHERE user_id = ? ORDER BY rowid"),
                             read_certificate, user_id);
        });
    }

    void set_certificate_minted(const std::string& id, std::uint64_t token_id, const std::string& tx_hash,
                                std::uint64_t block_number, const std::string& token) override {
        update_existing("certificate not found", "SELECT 1 FROM certificates WHERE id = ?1",
                        "UPDATE certificates SET status = 'minted', token_id = ?2, tx_hash = ?3, block_number = ?4, "
                        "token = ?5, updated_at = ?6 WHERE id = ?1 AND NOT (status = 'minted' AND token_id = ?2 "
                        "AND tx_hash = ?3 AND block_number = ?4 AND token = ?5)",
                        id, token_id, tx_hash, block_number, token, to_millis(now_millis()));
    }

    Practice create_practice(const NewPractice& practice) override {
        Practice created{crypto::random_uuid(), practice.farmer_id, practice.title, practice.description,
                         now_millis()};
        run({.not_found = "farmer not found"}, [&](Database& db) {
            execute(db,
                    "INSERT INTO practices (id, farmer_id, title, description, created_at) VALUES (?, ?, ?, ?, ?)",
                    created.id, created.farmer_id, created.title, created.description,
                    to_millis(created.created_at));
        });
        return created;
    }

    std::optional<Practice> find_practice(const std::string& id) override {
        return run({}, [&](Database& db) {
            return query_one(db,
                             "SELECT id, farmer_id, title, description, created_at FROM practices WHERE id = ?",
                             read_practice, id);
        });
    }

    std::vector<Practice> practices_of(const std::string& farmer_id) override {
        return run({}, [&](Database& db) {
            return query_all(db,
                             "SELECT id, farmer_id, title, description, created_at FROM practices "
                             "WHERE farmer_id = ? ORDER BY rowid",
                             read_practice, farmer_id);
        });
    }

    Verification create_verification(const NewVerification& verification) override {
        Verification created{crypto::random_uuid(), verification.practice_id, verification.verifier_id,
                             verification.outcome, verification.notes, now_millis()};
        run({.not_found = "practice or verifier not found"}, [&](Database& db) {
            execute(db,
                    "INSERT INTO verifications (id, practice_id, verifier_id, outcome, notes, created_at) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    created.id, created.practice_id, created.verifier_id, created.outcome, created.notes,
                    to_millis(created.created_at));
        });
        return created;
    }

    std::vector<Verification> verifications_of(const std::string& practice_id) override {
        return run({}, [&](Database& db) {
            return query_all(db,
                             "SELECT id, practice_id, verifier_id, outcome, notes, created_at FROM verifications "
                             "WHERE practice_id = ? ORDER BY rowid",
                             read_verification, practice_id);
        });
    }
};

}  // namespace

std::unique_ptr<Store> open_sqlite_store(const std::string& path) {
    os::create_private_file(path);
    auto store = std::make_unique<SqliteStore>(path);
    store->migrate();
    return store;
}

}  // namespace abci::store
