// The SQLite backend's shared parts (sqlite.hpp) and the store that ties its repositories together.

#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>

#include "core/eth/u256.hpp"
#include "core/os/private_file.hpp"
#include "core/store/migrations.hpp"
#include "core/store/sqlite/sqlite.hpp"

namespace abci::store::sqlite {
namespace {

// Enough for the server's worker threads to rarely wait on each other, few
// enough that file descriptors and page caches stay small.
constexpr std::size_t kPoolCapacity = 16;

class SqliteStore final : public Store {
public:
    explicit SqliteStore(const std::string& path) : db_(path) {
        db_.run({}, [](Database& db) { migrate(db); });
    }

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
    Certificates& certificates() override { return *certificates_; }
    Practices& practices() override { return *practices_; }

private:
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
    std::unique_ptr<Certificates> certificates_ = make_certificates(db_);
    std::unique_ptr<Practices> practices_ = make_practices(db_);
};

}  // namespace

std::int64_t to_millis(TimePoint t) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

TimePoint from_millis(std::int64_t ms) { return TimePoint(std::chrono::milliseconds(ms)); }

TimePoint now_millis() { return from_millis(to_millis(std::chrono::system_clock::now())); }

std::string select_columns(const char* columns, std::string_view rest) {
    return fmt::format("SELECT {} {}", columns, rest);
}

std::string lower_ascii(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c); });
    return text;
}

std::string canonical_decimal(const std::string& text) { return eth::U256::parse(text).to_dec(); }

User read_user(const Statement& s) {
    return User{.id = text(s, "id"),
                .email = text(s, "email"),
                .role = text(s, "role"),
                .verified = boolean(s, "verified"),
                .created_at = time_at(s, "created_at")};
}

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

void require_row(Database& db, const char* exists_sql, const std::string& key, const std::string& missing) {
    if (!exists(db, exists_sql, key)) throw Error(ErrorKind::not_found, missing);
}

Db::Db(const std::string& path) : pool_(path, kPoolCapacity) {}

}  // namespace abci::store::sqlite

namespace abci::store {

std::unique_ptr<Store> open_sqlite_store(const std::string& path) {
    os::create_private_file(path);
    return std::make_unique<sqlite::SqliteStore>(path);
}

}  // namespace abci::store
