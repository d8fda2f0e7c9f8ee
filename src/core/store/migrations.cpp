#include "core/store/migrations.hpp"

#include <fmt/format.h>

#include <array>

#include "core/error.hpp"
#include "core/store/sqlite/numbered_migrations.hpp"

namespace abci::store::sqlite {
namespace {

// Conventions: times are integer milliseconds since the Unix epoch (UTC);
// e-mails are stored lower-cased by the store, so a plain UNIQUE index is
// case-insensitive for ASCII; tables are STRICT so a mistyped bind fails
// instead of storing the wrong type; "oldest first" orders by rowid, the
// insertion order.
constexpr const char* kInitialSchema = R"sql(
CREATE TABLE users (
    id         TEXT PRIMARY KEY NOT NULL,
    email      TEXT NOT NULL UNIQUE,
    role       TEXT NOT NULL,
    verified   INTEGER NOT NULL,
    created_at INTEGER NOT NULL
) STRICT;

CREATE TABLE password_credentials (
    user_id    TEXT PRIMARY KEY NOT NULL REFERENCES users(id),
    hash       TEXT NOT NULL,
    updated_at INTEGER NOT NULL
) STRICT;

CREATE TABLE wallets (
    address   TEXT PRIMARY KEY NOT NULL,
    user_id   TEXT NOT NULL REFERENCES users(id),
    linked_at INTEGER NOT NULL
) STRICT;
CREATE INDEX wallets_by_user ON wallets(user_id);

CREATE TABLE identities (
    issuer    TEXT NOT NULL,
    subject   TEXT NOT NULL,
    user_id   TEXT NOT NULL REFERENCES users(id),
    linked_at INTEGER NOT NULL,
    PRIMARY KEY (issuer, subject)
) STRICT;
CREATE INDEX identities_by_user ON identities(user_id);

CREATE TABLE refresh_families (
    family_id  TEXT PRIMARY KEY NOT NULL,
    user_id    TEXT NOT NULL REFERENCES users(id),
    created_at INTEGER NOT NULL,
    revoked    INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX refresh_families_by_user ON refresh_families(user_id);

CREATE TABLE refresh_tokens (
    token_hash TEXT PRIMARY KEY NOT NULL,
    family_id  TEXT NOT NULL REFERENCES refresh_families(family_id),
    user_id    TEXT NOT NULL REFERENCES users(id),
    expires_at INTEGER NOT NULL,
    used       INTEGER NOT NULL
) STRICT;
CREATE INDEX refresh_tokens_by_family ON refresh_tokens(family_id);
CREATE INDEX refresh_tokens_by_user ON refresh_tokens(user_id);

CREATE TABLE revoked_tokens (
    jti        TEXT PRIMARY KEY NOT NULL,
    expires_at INTEGER NOT NULL
) STRICT;
CREATE INDEX revoked_tokens_by_expiry ON revoked_tokens(expires_at);

CREATE TABLE tickets (
    kind       TEXT NOT NULL,
    key        TEXT NOT NULL,
    payload    TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (kind, key)
) STRICT;
CREATE INDEX tickets_by_expiry ON tickets(expires_at);

CREATE TABLE api_keys (
    id         TEXT PRIMARY KEY NOT NULL,
    name       TEXT NOT NULL,
    key_hash   TEXT NOT NULL UNIQUE,
    scopes     TEXT NOT NULL,  -- JSON array of strings
    created_by TEXT NOT NULL,  -- a user id, or '' from the command line: no foreign key
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
) STRICT;

CREATE TABLE audit_log (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    time           INTEGER NOT NULL,
    actor          TEXT NOT NULL,
    method         TEXT NOT NULL,
    path           TEXT NOT NULL,
    status         INTEGER NOT NULL,
    client_address TEXT NOT NULL,
    request_id     TEXT NOT NULL
) STRICT;
CREATE INDEX audit_log_by_time ON audit_log(time);

CREATE TABLE role_requests (
    id             TEXT PRIMARY KEY NOT NULL,
    user_id        TEXT NOT NULL REFERENCES users(id),
    role_type      TEXT NOT NULL,
    wallet_address TEXT NOT NULL,
    blockchain_id  TEXT NOT NULL,
    note           TEXT NOT NULL,
    status         TEXT NOT NULL,
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL
) STRICT;
CREATE INDEX role_requests_by_user ON role_requests(user_id);
CREATE INDEX role_requests_by_status ON role_requests(status);

CREATE TABLE practices (
    id          TEXT PRIMARY KEY NOT NULL,
    farmer_id   TEXT NOT NULL REFERENCES users(id),
    title       TEXT NOT NULL,
    description TEXT NOT NULL,
    created_at  INTEGER NOT NULL
) STRICT;
CREATE INDEX practices_by_farmer ON practices(farmer_id);

CREATE TABLE verifications (
    id          TEXT PRIMARY KEY NOT NULL,
    practice_id TEXT NOT NULL REFERENCES practices(id),
    verifier_id TEXT NOT NULL REFERENCES users(id),
    outcome     TEXT NOT NULL,
    notes       TEXT NOT NULL,
    created_at  INTEGER NOT NULL
) STRICT;
CREATE INDEX verifications_by_practice ON verifications(practice_id);
CREATE INDEX verifications_by_verifier ON verifications(verifier_id);
)sql";

// Issue 4, ABCI on chain. Integers that are uint64 in the store's interface
// (token ids, block numbers, nonces, amounts) are stored as their
// two's-complement int64; balances, which are uint256, as canonical decimal
// text (no leading zeros, "0" for zero).
constexpr const char* kChainState = R"sql(
ALTER TABLE role_requests ADD COLUMN approved_by TEXT NOT NULL DEFAULT '';
ALTER TABLE role_requests ADD COLUMN approved_at INTEGER;
ALTER TABLE role_requests ADD COLUMN tx_hash TEXT NOT NULL DEFAULT '';
ALTER TABLE role_requests ADD COLUMN block_number INTEGER NOT NULL DEFAULT 0;

CREATE TABLE token_balances (
    blockchain_id TEXT NOT NULL,
    address       TEXT NOT NULL,
    token_id      INTEGER NOT NULL,
    balance       TEXT NOT NULL,
    token_type    TEXT NOT NULL,
    category      TEXT NOT NULL,
    tx_hash       TEXT NOT NULL,
    block_number  INTEGER NOT NULL,
    minted_at     INTEGER,
    last_minted   INTEGER,
    last_updated  INTEGER NOT NULL,
    last_synced   INTEGER,
    PRIMARY KEY (blockchain_id, address, token_id)
) STRICT;

-- The mints already added to token_balances: one transaction may mint to
-- several wallets and tokens, and each is added once.
CREATE TABLE mints (
    blockchain_id TEXT NOT NULL,
    tx_hash       TEXT NOT NULL,
    address       TEXT NOT NULL,
    token_id      INTEGER NOT NULL,
    amount        TEXT NOT NULL,
    recorded_at   INTEGER NOT NULL,
    PRIMARY KEY (blockchain_id, tx_hash, address, token_id)
) STRICT;

CREATE TABLE entities (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    blockchain_id TEXT NOT NULL,
    entity_type   TEXT NOT NULL,
    entity_id     TEXT NOT NULL,
    token_id      INTEGER NOT NULL,
    recipient     TEXT NOT NULL,
    amount        INTEGER NOT NULL,
    cid           TEXT NOT NULL,
    metadata      TEXT NOT NULL,
    tx_hash       TEXT NOT NULL,
    block_number  INTEGER NOT NULL,
    created_at    INTEGER NOT NULL
) STRICT;
CREATE INDEX entities_by_token ON entities(blockchain_id, token_id, entity_id);

CREATE TABLE tx_journal (
    hash          TEXT PRIMARY KEY NOT NULL,
    blockchain_id TEXT NOT NULL,
    sender        TEXT NOT NULL,
    nonce         INTEGER NOT NULL,
    raw           TEXT NOT NULL,
    purpose       TEXT NOT NULL,
    status        TEXT NOT NULL,
    block_number  INTEGER NOT NULL,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL
) STRICT;
CREATE INDEX tx_journal_by_status ON tx_journal(blockchain_id, status);

CREATE TABLE idempotency_keys (
    actor        TEXT NOT NULL,
    route        TEXT NOT NULL,
    key          TEXT NOT NULL,
    fingerprint  TEXT NOT NULL,
    state        TEXT NOT NULL,
    status       INTEGER NOT NULL,
    response     TEXT NOT NULL,
    journal_hash TEXT NOT NULL,
    created_at   INTEGER NOT NULL,
    PRIMARY KEY (actor, route, key)
) STRICT;
CREATE INDEX idempotency_keys_by_state ON idempotency_keys(state);

CREATE TABLE certificates (
    id             TEXT PRIMARY KEY NOT NULL,
    user_id        TEXT NOT NULL REFERENCES users(id),
    blockchain_id  TEXT NOT NULL,
    wallet_address TEXT NOT NULL,
    recipient      TEXT NOT NULL,
    title          TEXT NOT NULL,
    description    TEXT NOT NULL,
    status         TEXT NOT NULL,
    cid            TEXT NOT NULL,
    token_id       INTEGER NOT NULL,
    tx_hash        TEXT NOT NULL,
    block_number   INTEGER NOT NULL,
    token          TEXT NOT NULL,  -- JSON
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL
) STRICT;
CREATE INDEX certificates_by_user ON certificates(user_id);
)sql";

// One transaction mints one entity: recording it again (reconciliation after a
// crash between the entity row and the idempotent answer) must not add a row.
constexpr const char* kEntityPerTransaction = R"sql(
CREATE UNIQUE INDEX entities_by_tx ON entities(blockchain_id, tx_hash);
)sql";

// Every mint gets a record of its own, whether or not it carries an
// Idempotency-Key, so its outcome can be asked for by id; a key now only
// points at its mint. The transactions signed for a mint are linked when
// they are journaled (before broadcast), in the same SQLite transaction.
constexpr const char* kMintRecords = R"sql(
CREATE TABLE mint_requests (
    id              TEXT PRIMARY KEY NOT NULL,
    actor           TEXT NOT NULL,
    route           TEXT NOT NULL,
    blockchain_id   TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    fingerprint     TEXT NOT NULL,
    state           TEXT NOT NULL,
    answer          TEXT NOT NULL,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL
) STRICT;
CREATE INDEX mint_requests_by_state ON mint_requests(state);

CREATE TABLE mint_transactions (
    mint_id TEXT NOT NULL,
    hash    TEXT NOT NULL,
    PRIMARY KEY (mint_id, hash)
) STRICT, WITHOUT ROWID;

ALTER TABLE idempotency_keys ADD COLUMN mint_id TEXT NOT NULL DEFAULT '';
UPDATE idempotency_keys SET mint_id = lower(hex(randomblob(16)));
INSERT INTO mint_requests (id, actor, route, blockchain_id, idempotency_key, fingerprint, state, answer, created_at, updated_at)
    SELECT mint_id, actor, route, '', key, fingerprint, state, response, created_at, created_at FROM idempotency_keys;
INSERT INTO mint_transactions (mint_id, hash) SELECT mint_id, journal_hash FROM idempotency_keys WHERE journal_hash != '';
DROP INDEX idempotency_keys_by_state;
ALTER TABLE idempotency_keys DROP COLUMN fingerprint;
ALTER TABLE idempotency_keys DROP COLUMN state;
ALTER TABLE idempotency_keys DROP COLUMN status;
ALTER TABLE idempotency_keys DROP COLUMN response;
ALTER TABLE idempotency_keys DROP COLUMN journal_hash;
CREATE UNIQUE INDEX idempotency_keys_by_mint ON idempotency_keys(mint_id);
)sql";

// The audit log by actor: `admin audit --actor` and each API key's last use.
constexpr const char* kAuditByActor = R"sql(
CREATE INDEX audit_log_by_actor ON audit_log(actor, time);
)sql";

// Refused /abci requests are counted into one row per client, actor, method,
// path and status per window (store.hpp AuditEntry::refused): the unique
// index over the window's rows is what the counting upsert conflicts on.
constexpr const char* kRefusedAuditRows = R"sql(
ALTER TABLE audit_log ADD COLUMN refused_window INTEGER;
ALTER TABLE audit_log ADD COLUMN count INTEGER NOT NULL DEFAULT 1;
ALTER TABLE audit_log ADD COLUMN last_time INTEGER;
CREATE UNIQUE INDEX audit_log_refused ON audit_log(refused_window, client_address, actor, method, path, status)
    WHERE refused_window IS NOT NULL;
)sql";

// What the servers on one database share: request counts (rate_windows.hpp),
// secrets (shared_secrets.hpp) and lanes (lanes.hpp).
constexpr const char* kSharedState = R"sql(
CREATE TABLE rate_windows (
    key        TEXT PRIMARY KEY NOT NULL,
    started_at INTEGER NOT NULL,
    length_ms  INTEGER NOT NULL,
    count      INTEGER NOT NULL
) STRICT;

CREATE TABLE shared_secrets (
    name       TEXT PRIMARY KEY NOT NULL,
    value      TEXT NOT NULL,
    created_at INTEGER NOT NULL
) STRICT;

CREATE TABLE lanes (
    lane        TEXT PRIMARY KEY NOT NULL,
    epoch       INTEGER NOT NULL,
    owner       TEXT NOT NULL,
    lease_until INTEGER NOT NULL,
    halted      TEXT NOT NULL
) STRICT;
)sql";

// Mints queued for the server that sends for their chain (mint_jobs.hpp),
// and the chain nonce each lane accepted as its start (lanes.hpp).
constexpr const char* kMintJobs = R"sql(
ALTER TABLE lanes ADD COLUMN accepted_nonce INTEGER;
CREATE TABLE mint_jobs (
    mint_id       TEXT PRIMARY KEY NOT NULL,
    blockchain_id TEXT NOT NULL,
    record        TEXT NOT NULL,
    content       TEXT NOT NULL,
    created_at    INTEGER NOT NULL
) STRICT;
CREATE INDEX mint_jobs_by_chain ON mint_jobs(blockchain_id);
)sql";

// What each lane's owner finds stuck at the fee cap, for every server's health (lanes.hpp).
constexpr const char* kLaneStuck = R"sql(
ALTER TABLE lanes ADD COLUMN stuck TEXT NOT NULL DEFAULT '[]';
)sql";

// The chain each lane sends to, by its block 0 (lanes.hpp): what `admin
// journal abandon` checks a node against.
constexpr const char* kLaneGenesis = R"sql(
ALTER TABLE lanes ADD COLUMN genesis TEXT NOT NULL DEFAULT '';
)sql";

// Role requests: at most one pending request per wallet, role and chain (a
// partial unique index, which holds across servers; pending twins filed
// before it are rejected, the oldest kept), and a failed approval's reason
// and retries (role_requests.hpp).
constexpr const char* kRoleRequestFailures = R"sql(
ALTER TABLE role_requests ADD COLUMN failure TEXT NOT NULL DEFAULT '';
ALTER TABLE role_requests ADD COLUMN attempt INTEGER NOT NULL DEFAULT 0;
UPDATE role_requests
   SET status = 'rejected', failure = 'a duplicate of an older pending request for the same wallet, role and chain',
       updated_at = CAST(strftime('%s', 'now') AS INTEGER) * 1000
 WHERE status = 'pending' AND EXISTS (
       SELECT 1 FROM role_requests AS older
        WHERE older.status = 'pending' AND older.wallet_address = role_requests.wallet_address
          AND older.role_type = role_requests.role_type AND older.blockchain_id = role_requests.blockchain_id
          AND older.rowid < role_requests.rowid);
CREATE UNIQUE INDEX role_requests_pending ON role_requests(wallet_address, role_type, blockchain_id)
    WHERE status = 'pending';
)sql";

// Webhooks (webhooks.hpp): subscriptions with their sealed secrets, each
// event's delivery to a subscription with its lease (as the lanes'), every
// attempt, and the outbox that journal transitions write events to in
// their own transaction (issue 34 item 5), leased the same way.
constexpr const char* kWebhooks = R"sql(
CREATE TABLE webhook_subscriptions (
    id                    TEXT PRIMARY KEY NOT NULL,
    url                   TEXT NOT NULL,
    events                TEXT NOT NULL,
    description           TEXT NOT NULL,
    enabled               INTEGER NOT NULL,
    disabled_reason       TEXT NOT NULL DEFAULT '',
    secret                TEXT NOT NULL,
    previous_secret       TEXT NOT NULL DEFAULT '',
    previous_secret_until INTEGER,
    created_at            INTEGER NOT NULL,
    updated_at            INTEGER NOT NULL
) STRICT;
CREATE TABLE webhook_deliveries (
    id              TEXT PRIMARY KEY NOT NULL,
    subscription_id TEXT NOT NULL REFERENCES webhook_subscriptions(id),
    message_id      TEXT NOT NULL,
    event_type      TEXT NOT NULL,
    body            TEXT NOT NULL,
    state           TEXT NOT NULL,
    attempts        INTEGER NOT NULL,
    next_attempt_at INTEGER NOT NULL,
    lease_owner     TEXT NOT NULL DEFAULT '',
    lease_until     INTEGER NOT NULL DEFAULT 0,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL
) STRICT;
CREATE INDEX webhook_deliveries_by_subscription ON webhook_deliveries(subscription_id);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(state, next_attempt_at);
CREATE TABLE webhook_attempts (
    delivery_id  TEXT NOT NULL REFERENCES webhook_deliveries(id),
    attempted_at INTEGER NOT NULL,
    status       INTEGER NOT NULL,
    latency_ms   INTEGER NOT NULL,
    error        TEXT NOT NULL
) STRICT;
CREATE INDEX webhook_attempts_by_delivery ON webhook_attempts(delivery_id);
CREATE TABLE webhook_outbox (
    id           TEXT PRIMARY KEY NOT NULL,
    event_type   TEXT NOT NULL,
    ordering_key TEXT NOT NULL,
    body         TEXT NOT NULL,
    created_at   INTEGER NOT NULL,
    lease_owner  TEXT NOT NULL DEFAULT '',
    lease_until  INTEGER NOT NULL DEFAULT 0
) STRICT;
)sql";

// Events of one mint are delivered in order (issue 34 item 3): a delivery
// names its event's ordering key (the mint id), and a later one waits while
// an earlier one of the same key to the same subscription is pending; the
// outbox is fanned out in the same order.
constexpr const char* kWebhookOrdering = R"sql(
ALTER TABLE webhook_deliveries ADD COLUMN ordering_key TEXT NOT NULL DEFAULT '';
CREATE INDEX webhook_deliveries_in_order ON webhook_deliveries(subscription_id, ordering_key, state);
CREATE INDEX webhook_outbox_in_order ON webhook_outbox(ordering_key);
)sql";

// Whether each lane's signer was last read below its floor, so that
// signer.balance_low is written once per fall (lanes.hpp).
constexpr const char* kSignerBalanceLow = R"sql(
ALTER TABLE lanes ADD COLUMN balance_low INTEGER NOT NULL DEFAULT FALSE;
)sql";

// A subscription failing for [webhooks] disableAfter is disabled (issue 34
// item 4): since when it fails and when the server disabled it; finished
// deliveries are removed by their last change ([webhooks] keepDeliveries).
constexpr const char* kWebhookFailing = R"sql(
ALTER TABLE webhook_subscriptions ADD COLUMN failing_since INTEGER;
ALTER TABLE webhook_subscriptions ADD COLUMN disabled_at INTEGER;
CREATE INDEX webhook_deliveries_finished ON webhook_deliveries(state, updated_at);
)sql";

// A mint's kind by its name, no longer the name of a route (issue 33 item
// 2): a role request's approval and a certificate were recorded as mints
// of the routes they never came through, known by their actor and key. A
// key takes its mint's kind.
// substr, not LIKE: LIKE ignores case in SQLite, not in PostgreSQL, whose
// schema (postgresql/schema.cpp) runs the same statements. The journal's
// version 1 mint records are read by the same rule (service::MintRecord).
constexpr const char* kMintKinds = R"sql(
ALTER TABLE mint_requests RENAME COLUMN route TO kind;
ALTER TABLE idempotency_keys RENAME COLUMN route TO kind;
UPDATE mint_requests SET kind = CASE
    WHEN kind = 'POST /abci/contracts/mint-role-token' AND actor = 'workflow:role-request' THEN 'workflow-role'
    WHEN kind = 'POST /abci/contracts/mint-role-token' THEN 'role'
    WHEN kind = 'POST /abci/contracts/mint-entity-token' AND substr(idempotency_key, 1, 12) = 'certificate:' THEN 'certificate'
    WHEN kind = 'POST /abci/contracts/mint-entity-token' THEN 'entity'
    ELSE kind END;
UPDATE idempotency_keys SET kind = coalesce((SELECT m.kind FROM mint_requests m WHERE m.id = idempotency_keys.mint_id), kind);
)sql";

constexpr std::array<const char*, 16> kMigrations = {kInitialSchema, kChainState,   kEntityPerTransaction,
                                                     kMintRecords,   kAuditByActor, kRefusedAuditRows,
                                                     kSharedState,   kMintJobs,     kLaneStuck,
                                                     kLaneGenesis,   kRoleRequestFailures, kWebhooks,
                                                     kWebhookOrdering, kSignerBalanceLow, kWebhookFailing,
                                                     kMintKinds};

}  // namespace

std::span<const char* const> migrations() noexcept { return kMigrations; }

void migrate(SQLite::Database& db) {
    apply_migrations(db, kMigrations, [](std::int64_t found, std::int64_t known) {
        return Error(ErrorKind::internal,
                     fmt::format("database schema version {} is newer than this abcictl ({})", found, known));
    });
}

}  // namespace abci::store::sqlite
