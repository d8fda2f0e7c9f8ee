// The SQLite backend of Store. Every method leases a pooled connection, runs
// prepared statements with bound parameters, and maps SQLite's failures to
// abci::Error in one place (run()).

#include <SQLiteCpp/SQLiteCpp.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/crypto/encoding.hpp"
#include "core/error.hpp"
#include "core/os/fd.hpp"
#include "core/store/connection_pool.hpp"
#include "core/store/migrations.hpp"
#include "core/store/store.hpp"

namespace abci::store {
namespace {

using SQLite::Database;
using SQLite::Statement;
using std::chrono::milliseconds;

// Enough for the server's worker threads to rarely wait on each other, few
// enough that file descriptors and page caches stay small.
constexpr std::size_t kPoolCapacity = 8;

std::int64_t to_millis(TimePoint t) {
    return std::chrono::duration_cast<milliseconds>(t.time_since_epoch()).count();
}

TimePoint from_millis(std::int64_t ms) { return TimePoint(milliseconds(ms)); }

// The stored precision, so that what a create_* returns equals what a later read returns.
TimePoint now_millis() { return from_millis(to_millis(std::chrono::system_clock::now())); }

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
void bind_value(Statement& s, int i, int v) { s.bind(i, v); }
void bind_value(Statement& s, int i, bool v) { s.bind(i, v ? 1 : 0); }
void bind_value(Statement& s, int i, const std::optional<std::string>& v) {
    if (v) {
        s.bind(i, *v);
    } else {
        s.bind(i);
    }
}

/// `sql` prepared with `args` bound to ?1, ?2, … in order.
template <class... Args>
Statement prepare(Database& db, const char* sql, const Args&... args) {
    Statement s(db, sql);
    int i = 0;
    (bind_value(s, ++i, args), ...);
    return s;
}

/// Runs a statement that returns no rows; the number of rows it changed.
template <class... Args>
int execute(Database& db, const char* sql, const Args&... args) {
    return prepare(db, sql, args...).exec();
}

/// Every row, each turned into a T by `read`.
template <class Read, class... Args>
auto query_all(Database& db, const char* sql, Read read, const Args&... args) {
    Statement s = prepare(db, sql, args...);
    std::vector<decltype(read(s))> rows;
    while (s.executeStep()) rows.push_back(read(s));
    return rows;
}

/// The first row, if any.
template <class Read, class... Args>
auto query_one(Database& db, const char* sql, Read read, const Args&... args) {
    Statement s = prepare(db, sql, args...);
    std::optional<decltype(read(s))> row;
    if (s.executeStep()) row = read(s);
    return row;
}

std::string text(const Statement& s, int column) { return s.getColumn(column).getString(); }
std::int64_t integer(const Statement& s, int column) { return s.getColumn(column).getInt64(); }
TimePoint time_at(const Statement& s, int column) { return from_millis(integer(s, column)); }

// Readers, one per row type; each matches the column list of its SELECTs.

User read_user(const Statement& s) {  // id, email, role, verified, created_at
    return User{text(s, 0), text(s, 1), text(s, 2), integer(s, 3) != 0, time_at(s, 4)};
}

ApiKey read_api_key(const Statement& s) {  // id, name, scopes, created_by, created_at, revoked_at
    ApiKey key{text(s, 0), text(s, 1), scopes_from_json(text(s, 2)), text(s, 3), time_at(s, 4), std::nullopt};
    if (!s.getColumn(5).isNull()) key.revoked_at = time_at(s, 5);
    return key;
}

AuditEntry read_audit(const Statement& s) {  // id, time, actor, method, path, status, client_address, request_id
    return AuditEntry{integer(s, 0), time_at(s, 1), text(s, 2), text(s, 3), text(s, 4),
                      static_cast<int>(integer(s, 5)), text(s, 6), text(s, 7)};
}

RoleRequest read_role_request(const Statement& s) {
    // id, user_id, role_type, wallet_address, blockchain_id, note, status, created_at, updated_at
    return RoleRequest{text(s, 0), text(s, 1), text(s, 2), text(s, 3), text(s, 4),
                       text(s, 5), text(s, 6), time_at(s, 7), time_at(s, 8)};
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

/// Creates `path` with mode exactly 0600 unless it exists. Left to SQLite, it
/// would be 0644 minus the umask; and SQLite gives the -wal and -shm files the
/// database file's mode, so they are private too.
void create_private_file(const std::string& path) {
    os::UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
    if (!fd.valid()) {
        if (errno == EEXIST) return;
        throw Error(ErrorKind::unavailable,
                    fmt::format("cannot create the database {}: {}", path, std::strerror(errno)));
    }
    // A umask such as 0277 would leave even our 0600 read-only.
    if (::fchmod(fd.get(), 0600) != 0) {
        throw Error(ErrorKind::unavailable, fmt::format("cannot set the mode of {}: {}", path, std::strerror(errno)));
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

    sqlite::ConnectionPool pool_;

public:
    explicit SqliteStore(const std::string& path) : pool_(path, kPoolCapacity) {}

    void migrate() {
        run({}, [](Database& db) { sqlite::migrate(db); });
    }

    User create_user(const NewUser& user) override {
        User created{crypto::random_uuid(), lower_ascii(user.email), user.role, user.verified, now_millis()};
        run({"e-mail already registered"}, [&](Database& db) {
            execute(db, "INSERT INTO users (id, email, role, verified, created_at) VALUES (?, ?, ?, ?, ?)",
                    created.id, created.email, created.role, created.verified, to_millis(created.created_at));
        });
        return created;
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

    bool is_refresh_family_revoked(const std::string& family_id) override {
        return run({}, [&](Database& db) {
            return query_one(db, "SELECT 1 FROM refresh_families WHERE family_id = ? AND revoked = 1",
                             [](const Statement&) { return true; }, family_id)
                .has_value();
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

    bool is_token_id_revoked(const std::string& jti) override {
        return run({}, [&](Database& db) {
            return query_one(db, "SELECT 1 FROM revoked_tokens WHERE jti = ?",
                             [](const Statement&) { return true; }, jti)
                .has_value();
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

    void append_audit(const AuditEntry& entry) override {
        run({}, [&](Database& db) {
            execute(db,
                    "INSERT INTO audit_log (time, actor, method, path, status, client_address, request_id) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    to_millis(entry.time), entry.actor, entry.method, entry.path, entry.status,
                    entry.client_address, entry.request_id);
        });
    }

    std::vector<AuditEntry> list_audit(std::optional<TimePoint> since, std::size_t limit) override {
        const std::int64_t from = since ? to_millis(*since) : std::numeric_limits<std::int64_t>::min();
        const auto max_rows =
            static_cast<std::int64_t>(std::min<std::size_t>(limit, std::numeric_limits<std::int64_t>::max()));
        return run({}, [&](Database& db) {
            return query_all(db,
                             "SELECT id, time, actor, method, path, status, client_address, request_id "
                             "FROM audit_log WHERE time >= ? ORDER BY id LIMIT ?",
                             read_audit, from, max_rows);
        });
    }

    RoleRequest create_role_request(const NewRoleRequest& request) override {
        const TimePoint now = now_millis();
        RoleRequest created{crypto::random_uuid(), request.user_id, request.role_type, request.wallet_address,
                            request.blockchain_id, request.note, "pending", now, now};
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
                             "SELECT id, user_id, role_type, wallet_address, blockchain_id, note, status, "
                             "created_at, updated_at FROM role_requests WHERE ?1 IS NULL OR status = ?1 "
                             "ORDER BY rowid",
                             read_role_request, status);
        });
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
    create_private_file(path);
    auto store = std::make_unique<SqliteStore>(path);
    store->migrate();
    return store;
}

}  // namespace abci::store
