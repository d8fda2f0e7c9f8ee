#pragma once
// The server's persistent state: one repository per kind of record, each an
// interface of a handful of methods, so that a second backend (PostgreSQL,
// DESIGN.md §9) is an added set of classes that proves itself by passing the
// store conformance suite (tests/store), not a rewrite.
//
// Rules every repository keeps: every method is thread-safe and atomic on its
// own; methods that check-then-write do so inside one transaction. Backends use
// prepared statements with bound parameters only and read rows by column name.
// Errors: Error(conflict) when a uniqueness rule is broken (named in the
// method's comment), Error(not_found) when a referenced row is missing,
// Error(unavailable) when the database cannot be reached or is busy for longer
// than its busy timeout. Values are stored and returned byte for byte; times
// with millisecond precision.

#include <memory>
#include <string>

#include "core/store/api_keys.hpp"
#include "core/store/audit.hpp"
#include "core/store/backlog.hpp"
#include "core/store/certificates.hpp"
#include "core/store/journal.hpp"
#include "core/store/lanes.hpp"
#include "core/store/mint_jobs.hpp"
#include "core/store/mints.hpp"
#include "core/store/notifications.hpp"
#include "core/store/practices.hpp"
#include "core/store/rate_windows.hpp"
#include "core/store/shared_secrets.hpp"
#include "core/store/role_requests.hpp"
#include "core/store/sessions.hpp"
#include "core/store/tokens.hpp"
#include "core/store/users.hpp"
#include "core/store/webhooks.hpp"

namespace abci::metrics {
class Registry;
}

namespace abci::store {

class Store {
public:
    virtual ~Store() = default;
    [[nodiscard]] virtual Users& users() = 0;
    [[nodiscard]] virtual Credentials& credentials() = 0;
    [[nodiscard]] virtual Sessions& sessions() = 0;
    [[nodiscard]] virtual Tickets& tickets() = 0;
    [[nodiscard]] virtual ApiKeys& api_keys() = 0;
    [[nodiscard]] virtual AuditLog& audit() = 0;
    [[nodiscard]] virtual RoleRequests& role_requests() = 0;
    [[nodiscard]] virtual TokenLedger& tokens() = 0;
    [[nodiscard]] virtual Entities& entities() = 0;
    [[nodiscard]] virtual Journal& journal() = 0;
    [[nodiscard]] virtual Mints& mints() = 0;
    [[nodiscard]] virtual MintJobs& mint_jobs() = 0;
    [[nodiscard]] virtual Certificates& certificates() = 0;
    [[nodiscard]] virtual Practices& practices() = 0;
    [[nodiscard]] virtual RateWindows& rate_windows() = 0;
    [[nodiscard]] virtual SharedSecrets& shared_secrets() = 0;
    [[nodiscard]] virtual Lanes& lanes() = 0;
    [[nodiscard]] virtual Webhooks& webhooks() = 0;
    [[nodiscard]] virtual BacklogCounter& backlog() = 0;
    /// This server's bids for lanes, as `owner` (its name in LaneStatus).
    [[nodiscard]] virtual std::unique_ptr<LaneElection> open_lane_election(std::string owner) = 0;
    /// A listener on `channels` (notifications.hpp), or none when no other
    /// server can share this database (SQLite: the data directory's lock
    /// keeps it to one).
    [[nodiscard]] virtual std::unique_ptr<Listener> listen(const std::vector<std::string>& channels) = 0;
    /// From now on the store records its transactions and audit rows in
    /// `registry` (store_metrics.hpp), which must outlive it. Once, at start.
    virtual void set_metrics(metrics::Registry& registry) = 0;
};

/// Opens (creating when missing, mode 0600) the SQLite database at `path`,
/// with WAL, foreign keys and a busy timeout, and applies the numbered
/// migrations it has not seen (PRAGMA user_version). Error(unavailable) when it
/// cannot be opened; Error(internal) when its user_version is newer than this
/// binary knows (a downgrade).
[[nodiscard]] std::unique_ptr<Store> open_sqlite_store(const std::string& path);

/// Where a PostgreSQL store lives ([database] in the server's config).
struct PostgresqlSettings {
    /// "postgresql://user@host:port/db?sslmode=…". Never a password: it would
    /// show wherever the URL does (ps, logs, shell history).
    std::string url;
    /// A file whose first line is the password; empty: libpq's own sources
    /// (PGPASSFILE, ~/.pgpass).
    std::string password_file;
};

/// Connects to the PostgreSQL database of `settings` and applies the schema
/// migrations it has not seen, under an advisory lock (replicas starting
/// together take turns). Error(unavailable) when it cannot connect;
/// Error(internal) when its schema is newer than this binary knows.
[[nodiscard]] std::unique_ptr<Store> open_postgresql_store(const PostgresqlSettings& settings);

}  // namespace abci::store
