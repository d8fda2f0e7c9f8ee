#include "core/store/postgresql/schema.hpp"

#include <array>

namespace abci::store::postgresql {
namespace {

// Conventions, as SQLite's: times are BIGINT milliseconds since the Unix epoch
// (UTC); e-mails are stored lower-cased by the store; uint64 values (token
// ids, block numbers, nonces) as their two's-complement BIGINT, so "in
// unsigned order" is ORDER BY x < 0, x; uint256 balances as decimal text.
// Where the repositories list rows "oldest first" by SQLite's rowid, a table
// has an identity column named `rowid`, so that the same SQL orders the same
// on both backends (core/store/sql/sql.hpp).
const std::array kSchema{
    Migration{1,
              {
                  R"sql(CREATE TABLE users (
    rowid      BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    id         TEXT PRIMARY KEY,
    email      TEXT NOT NULL UNIQUE,
    role       TEXT NOT NULL,
    verified   BOOLEAN NOT NULL,
    created_at BIGINT NOT NULL))sql",
                  R"sql(CREATE TABLE password_credentials (
    user_id    TEXT PRIMARY KEY REFERENCES users(id),
    hash       TEXT NOT NULL,
    updated_at BIGINT NOT NULL))sql",
                  R"sql(CREATE TABLE wallets (
    rowid     BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    address   TEXT PRIMARY KEY,
    user_id   TEXT NOT NULL REFERENCES users(id),
    linked_at BIGINT NOT NULL))sql",
                  "CREATE INDEX wallets_by_user ON wallets(user_id)",
                  R"sql(CREATE TABLE identities (
    issuer    TEXT NOT NULL,
    subject   TEXT NOT NULL,
    user_id   TEXT NOT NULL REFERENCES users(id),
    linked_at BIGINT NOT NULL,
    PRIMARY KEY (issuer, subject)))sql",
                  "CREATE INDEX identities_by_user ON identities(user_id)",
                  R"sql(CREATE TABLE refresh_families (
    family_id  TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users(id),
    created_at BIGINT NOT NULL,
    revoked    BOOLEAN NOT NULL DEFAULT false))sql",
                  "CREATE INDEX refresh_families_by_user ON refresh_families(user_id)",
                  R"sql(CREATE TABLE refresh_tokens (
    token_hash TEXT PRIMARY KEY,
    family_id  TEXT NOT NULL REFERENCES refresh_families(family_id),
    user_id    TEXT NOT NULL REFERENCES users(id),
    expires_at BIGINT NOT NULL,
    used       BOOLEAN NOT NULL))sql",
                  "CREATE INDEX refresh_tokens_by_family ON refresh_tokens(family_id)",
                  "CREATE INDEX refresh_tokens_by_user ON refresh_tokens(user_id)",
                  R"sql(CREATE TABLE revoked_tokens (
    jti        TEXT PRIMARY KEY,
    expires_at BIGINT NOT NULL))sql",
                  "CREATE INDEX revoked_tokens_by_expiry ON revoked_tokens(expires_at)",
                  R"sql(CREATE TABLE tickets (
    kind       TEXT NOT NULL,
    key        TEXT NOT NULL,
    payload    TEXT NOT NULL,
    expires_at BIGINT NOT NULL,
    PRIMARY KEY (kind, key)))sql",
                  "CREATE INDEX tickets_by_expiry ON tickets(expires_at)",
                  R"sql(CREATE TABLE api_keys (
    rowid      BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    key_hash   TEXT NOT NULL UNIQUE,
    scopes     TEXT NOT NULL,
    created_by TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    revoked_at BIGINT))sql",
                  R"sql(CREATE TABLE audit_log (
    id             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    time           BIGINT NOT NULL,
    actor          TEXT NOT NULL,
    method         TEXT NOT NULL,
    path           TEXT NOT NULL,
    status         INTEGER NOT NULL,
    client_address TEXT NOT NULL,
    request_id     TEXT NOT NULL,
    refused_window BIGINT,
    count          BIGINT NOT NULL DEFAULT 1,
    last_time      BIGINT))sql",
                  "CREATE INDEX audit_log_by_time ON audit_log(time)",
                  "CREATE INDEX audit_log_by_actor ON audit_log(actor, time)",
                  // What the counting upsert of refused requests conflicts on.
                  "CREATE UNIQUE INDEX audit_log_refused ON audit_log(refused_window, client_address, actor, method, "
                  "path, status) WHERE refused_window IS NOT NULL",
                  R"sql(CREATE TABLE role_requests (
    rowid          BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    id             TEXT PRIMARY KEY,
    user_id        TEXT NOT NULL REFERENCES users(id),
    role_type      TEXT NOT NULL,
    wallet_address TEXT NOT NULL,
    blockchain_id  TEXT NOT NULL,
    note           TEXT NOT NULL,
    status         TEXT NOT NULL,
    created_at     BIGINT NOT NULL,
    updated_at     BIGINT NOT NULL,
    approved_by    TEXT NOT NULL DEFAULT '',
    approved_at    BIGINT,
    tx_hash        TEXT NOT NULL DEFAULT '',
    block_number   BIGINT NOT NULL DEFAULT 0))sql",
                  "CREATE INDEX role_requests_by_user ON role_requests(user_id)",
                  "CREATE INDEX role_requests_by_status ON role_requests(status)",
                  R"sql(CREATE TABLE practices (
    rowid       BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    id          TEXT PRIMARY KEY,
    farmer_id   TEXT NOT NULL REFERENCES users(id),
    title       TEXT NOT NULL,
    description TEXT NOT NULL,
    created_at  BIGINT NOT NULL))sql",
                  "CREATE INDEX practices_by_farmer ON practices(farmer_id)",
                  R"sql(CREATE TABLE verifications (
    rowid       BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    id          TEXT PRIMARY KEY,
    practice_id TEXT NOT NULL REFERENCES practices(id),
    verifier_id TEXT NOT NULL REFERENCES users(id),
    outcome     TEXT NOT NULL,
    notes       TEXT NOT NULL,
    created_at  BIGINT NOT NULL))sql",
                  "CREATE INDEX verifications_by_practice ON verifications(practice_id)",
                  "CREATE INDEX verifications_by_verifier ON verifications(verifier_id)",
                  R"sql(CREATE TABLE token_balances (
    blockchain_id TEXT NOT NULL,
    address       TEXT NOT NULL,
    token_id      BIGINT NOT NULL,
    balance       TEXT NOT NULL,
    token_type    TEXT NOT NULL,
    category      TEXT NOT NULL,
    tx_hash       TEXT NOT NULL,
    block_number  BIGINT NOT NULL,
    minted_at     BIGINT,
    last_minted   BIGINT,
    last_updated  BIGINT NOT NULL,
    last_synced   BIGINT,
    PRIMARY KEY (blockchain_id, address, token_id)))sql",
                  // The mints already added to token_balances: each once.
                  R"sql(CREATE TABLE mints (
    blockchain_id TEXT NOT NULL,
    tx_hash       TEXT NOT NULL,
    address       TEXT NOT NULL,
    token_id      BIGINT NOT NULL,
    amount        TEXT NOT NULL,
    recorded_at   BIGINT NOT NULL,
    PRIMARY KEY (blockchain_id, tx_hash, address, token_id)))sql",
                  R"sql(CREATE TABLE entities (
    id            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    blockchain_id TEXT NOT NULL,
    entity_type   TEXT NOT NULL,
    entity_id     TEXT NOT NULL,
    token_id      BIGINT NOT NULL,
    recipient     TEXT NOT NULL,
    amount        BIGINT NOT NULL,
    cid           TEXT NOT NULL,
    metadata      TEXT NOT NULL,
    tx_hash       TEXT NOT NULL,
    block_number  BIGINT NOT NULL,
    created_at    BIGINT NOT NULL))sql",
                  "CREATE INDEX entities_by_token ON entities(blockchain_id, token_id, entity_id)",
                  // One transaction mints one entity.
                  "CREATE UNIQUE INDEX entities_by_tx ON entities(blockchain_id, tx_hash)",
                  R"sql(CREATE TABLE tx_journal (
    rowid         BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    hash          TEXT PRIMARY KEY,
    blockchain_id TEXT NOT NULL,
    sender        TEXT NOT NULL,
    nonce         BIGINT NOT NULL,
    raw           TEXT NOT NULL,
    purpose       TEXT NOT NULL,
    status        TEXT NOT NULL,
    block_number  BIGINT NOT NULL,
    created_at    BIGINT NOT NULL,
    updated_at    BIGINT NOT NULL))sql",
                  "CREATE INDEX tx_journal_by_status ON tx_journal(blockchain_id, status)",
                  R"sql(CREATE TABLE mint_requests (
    rowid           BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    id              TEXT PRIMARY KEY,
    actor           TEXT NOT NULL,
    route           TEXT NOT NULL,
    blockchain_id   TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    fingerprint     TEXT NOT NULL,
    state           TEXT NOT NULL,
    answer          TEXT NOT NULL,
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL))sql",
                  "CREATE INDEX mint_requests_by_state ON mint_requests(state)",
                  R"sql(CREATE TABLE mint_transactions (
    mint_id TEXT NOT NULL,
    hash    TEXT NOT NULL,
    PRIMARY KEY (mint_id, hash)))sql",
                  R"sql(CREATE TABLE idempotency_keys (
    actor      TEXT NOT NULL,
    route      TEXT NOT NULL,
    key        TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    mint_id    TEXT NOT NULL UNIQUE,
    PRIMARY KEY (actor, route, key)))sql",
                  R"sql(CREATE TABLE certificates (
    rowid          BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    id             TEXT PRIMARY KEY,
    user_id        TEXT NOT NULL REFERENCES users(id),
    blockchain_id  TEXT NOT NULL,
    wallet_address TEXT NOT NULL,
    recipient      TEXT NOT NULL,
    title          TEXT NOT NULL,
    description    TEXT NOT NULL,
    status         TEXT NOT NULL,
    cid            TEXT NOT NULL,
    token_id       BIGINT NOT NULL,
    tx_hash        TEXT NOT NULL,
    block_number   BIGINT NOT NULL,
    token          TEXT NOT NULL,
    created_at     BIGINT NOT NULL,
    updated_at     BIGINT NOT NULL))sql",
                  "CREATE INDEX certificates_by_user ON certificates(user_id)",
              }},
    // What the replicas share beyond the records: request counts
    // (rate_windows.hpp; UNLOGGED: a crash of the server empties it, which
    // forgives a minute's counts, and in exchange a hit writes no WAL),
    // secrets (shared_secrets.hpp) and lanes (lanes.hpp).
    Migration{2,
              {
                  R"sql(CREATE UNLOGGED TABLE rate_windows (
    key        TEXT PRIMARY KEY,
    started_at BIGINT NOT NULL,
    length_ms  BIGINT NOT NULL,
    count      BIGINT NOT NULL))sql",
                  R"sql(CREATE TABLE shared_secrets (
    name       TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    created_at BIGINT NOT NULL))sql",
                  R"sql(CREATE TABLE lanes (
    lane        TEXT PRIMARY KEY,
    epoch       BIGINT NOT NULL,
    owner       TEXT NOT NULL,
    lease_until BIGINT NOT NULL,
    halted      TEXT NOT NULL))sql",
              }},
    // Mints queued for the server that sends for their chain (mint_jobs.hpp),
    // and the chain nonce each lane accepted as its start (lanes.hpp).
    Migration{3,
              {
                  "ALTER TABLE lanes ADD COLUMN accepted_nonce BIGINT",
                  R"sql(CREATE TABLE mint_jobs (
    rowid         BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    mint_id       TEXT PRIMARY KEY,
    blockchain_id TEXT NOT NULL,
    record        TEXT NOT NULL,
    content       TEXT NOT NULL,
    created_at    BIGINT NOT NULL))sql",
                  "CREATE INDEX mint_jobs_by_chain ON mint_jobs(blockchain_id, rowid)",
              }},
    // What each lane's owner finds stuck at the fee cap, for every server's health (lanes.hpp).
    Migration{4, {"ALTER TABLE lanes ADD COLUMN stuck TEXT NOT NULL DEFAULT '[]'"}},
    // The chain each lane sends to, by its block 0 (lanes.hpp): what `admin
    // journal abandon` checks a node against.
    Migration{5, {"ALTER TABLE lanes ADD COLUMN genesis TEXT NOT NULL DEFAULT ''"}},
    // Role requests: at most one pending per wallet, role and chain (older
    // pending twins kept, later ones rejected), and a failed approval's
    // reason and retries (role_requests.hpp; SQLite's kRoleRequestFailures).
    Migration{6,
              {
                  "ALTER TABLE role_requests ADD COLUMN failure TEXT NOT NULL DEFAULT ''",
                  "ALTER TABLE role_requests ADD COLUMN attempt BIGINT NOT NULL DEFAULT 0",
                  R"sql(UPDATE role_requests
   SET status = 'rejected', failure = 'a duplicate of an older pending request for the same wallet, role and chain',
       updated_at = CAST(floor(extract(epoch FROM now()) * 1000) AS BIGINT)
 WHERE status = 'pending' AND EXISTS (
       SELECT 1 FROM role_requests AS older
        WHERE older.status = 'pending' AND older.wallet_address = role_requests.wallet_address
          AND older.role_type = role_requests.role_type AND older.blockchain_id = role_requests.blockchain_id
          AND older.rowid < role_requests.rowid))sql",
                  "CREATE UNIQUE INDEX role_requests_pending ON role_requests(wallet_address, role_type, blockchain_id) "
                  "WHERE status = 'pending'",
              }},
    // Webhooks: subscriptions, deliveries with their lease, attempts and the
    // outbox (webhooks.hpp; SQLite's kWebhooks).
    Migration{7,
              {
                  R"sql(CREATE TABLE webhook_subscriptions (
    rowid                 BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    id                    TEXT PRIMARY KEY,
    url                   TEXT NOT NULL,
    events                TEXT NOT NULL,
    description           TEXT NOT NULL,
    enabled               BOOLEAN NOT NULL,
    disabled_reason       TEXT NOT NULL DEFAULT '',
    secret                TEXT NOT NULL,
    previous_secret       TEXT NOT NULL DEFAULT '',
    previous_secret_until BIGINT,
    created_at            BIGINT NOT NULL,
    updated_at            BIGINT NOT NULL))sql",
                  R"sql(CREATE TABLE webhook_deliveries (
    rowid           BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    id              TEXT PRIMARY KEY,
    subscription_id TEXT NOT NULL REFERENCES webhook_subscriptions(id),
    message_id      TEXT NOT NULL,
    event_type      TEXT NOT NULL,
    body            TEXT NOT NULL,
    state           TEXT NOT NULL,
    attempts        BIGINT NOT NULL,
    next_attempt_at BIGINT NOT NULL,
    lease_owner     TEXT NOT NULL DEFAULT '',
    lease_until     BIGINT NOT NULL DEFAULT 0,
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL))sql",
                  "CREATE INDEX webhook_deliveries_by_subscription ON webhook_deliveries(subscription_id)",
                  "CREATE INDEX webhook_deliveries_due ON webhook_deliveries(state, next_attempt_at)",
                  R"sql(CREATE TABLE webhook_attempts (
    rowid        BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    delivery_id  TEXT NOT NULL REFERENCES webhook_deliveries(id),
    attempted_at BIGINT NOT NULL,
    status       BIGINT NOT NULL,
    latency_ms   BIGINT NOT NULL,
    error        TEXT NOT NULL))sql",
                  "CREATE INDEX webhook_attempts_by_delivery ON webhook_attempts(delivery_id)",
                  R"sql(CREATE TABLE webhook_outbox (
    rowid        BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    id           TEXT PRIMARY KEY,
    event_type   TEXT NOT NULL,
    ordering_key TEXT NOT NULL,
    body         TEXT NOT NULL,
    created_at   BIGINT NOT NULL,
    lease_owner  TEXT NOT NULL DEFAULT '',
    lease_until  BIGINT NOT NULL DEFAULT 0))sql",
              }},
    // A mint's events in order: SQLite's kWebhookOrdering.
    Migration{8,
              {
                  "ALTER TABLE webhook_deliveries ADD COLUMN ordering_key TEXT NOT NULL DEFAULT ''",
                  "CREATE INDEX webhook_deliveries_in_order ON webhook_deliveries(subscription_id, ordering_key, state)",
                  "CREATE INDEX webhook_outbox_in_order ON webhook_outbox(ordering_key)",
              }},
    // A lane's signer below its floor: SQLite's kSignerBalanceLow.
    Migration{9, {"ALTER TABLE lanes ADD COLUMN balance_low BOOLEAN NOT NULL DEFAULT FALSE"}},
    // A failing subscription disabled, finished deliveries removed: SQLite's kWebhookFailing.
    Migration{10,
              {
                  "ALTER TABLE webhook_subscriptions ADD COLUMN failing_since BIGINT",
                  "ALTER TABLE webhook_subscriptions ADD COLUMN disabled_at BIGINT",
                  "CREATE INDEX webhook_deliveries_finished ON webhook_deliveries(state, updated_at)",
              }},
    // A mint's kind by its name: SQLite's kMintKinds.
    Migration{11,
              {
                  "ALTER TABLE mint_requests RENAME COLUMN route TO kind",
                  "ALTER TABLE idempotency_keys RENAME COLUMN route TO kind",
                  R"sql(UPDATE mint_requests SET kind = CASE
    WHEN kind = 'POST /abci/contracts/mint-role-token' AND actor = 'workflow:role-request' THEN 'workflow-role'
    WHEN kind = 'POST /abci/contracts/mint-role-token' THEN 'role'
    WHEN kind = 'POST /abci/contracts/mint-entity-token' AND substr(idempotency_key, 1, 12) = 'certificate:' THEN 'certificate'
    WHEN kind = 'POST /abci/contracts/mint-entity-token' THEN 'entity'
    ELSE kind END)sql",
                  "UPDATE idempotency_keys SET kind = coalesce((SELECT m.kind FROM mint_requests m WHERE m.id = "
                  "idempotency_keys.mint_id), kind)",
              }},
};

}  // namespace

std::span<const Migration> schema_migrations() { return kSchema; }

}  // namespace abci::store::postgresql
