#pragma once
// The server's persistent state, behind an interface so that a second backend
// (PostgreSQL, DESIGN.md §9) is an added class, not a rewrite. Every method is
// thread-safe and atomic on its own; methods that check-then-write do so inside
// one transaction. Backends use prepared statements with bound parameters only.
//
// Errors: Error(conflict) when a uniqueness rule is broken (named in the
// method's comment), Error(not_found) when a referenced row is missing,
// Error(unavailable) when the database cannot be reached or is busy for longer
// than its busy timeout. Values are stored and returned byte for byte.

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace abci::store {

using TimePoint = std::chrono::system_clock::time_point;

struct User {
    std::string id;     // UUID v4, assigned by the store
    std::string email;  // stored lower-cased; unique
    std::string role;   // farmer | verifier | admin | developer (checked by auth, not here)
    bool verified = false;
    TimePoint created_at;
};

struct NewUser {
    std::string email;
    std::string role;
    bool verified = false;
};

/// A user to create together with the wallets that sign it in.
struct NewAccount {
    NewUser user;
    std::vector<std::string> wallets;  // lower-case 0x addresses
};

struct RefreshToken {
    std::string token_hash;  // SHA-256 of the opaque token, hex
    std::string family_id;
    std::string user_id;
    TimePoint expires_at;
    bool used = false;            // already exchanged once
    bool family_revoked = false;  // the whole family was revoked (logout or reuse)
};

struct ApiKey {
    std::string id;  // UUID v4
    std::string name;
    std::vector<std::string> scopes;  // e.g. "abci:read", "abci:health"
    std::string created_by;           // user id or "" when created from the command line
    TimePoint created_at;
    std::optional<TimePoint> revoked_at;
};

struct NewApiKey {
    std::string name;
    std::string key_hash;  // SHA-256 of the key, hex; unique
    std::vector<std::string> scopes;
    std::string created_by;
};

struct AuditEntry {
    std::int64_t id = 0;  // assigned by the store, increasing
    TimePoint time;
    std::string actor;       // user id, "apikey:<id>", or "" when unauthenticated
    std::string method;
    std::string path;
    int status = 0;
    std::string client_address;
    std::string request_id;
    /// Refused before the request was let in (no valid caller, or over the
    /// rate limit): the client chose the volume, so such requests are
    /// counted into one row per client address, actor, method, path and
    /// status per minute (kRefusedAuditWindow) instead of a row each. The
    /// row's time is the first request's; `count` and `last_time` grow.
    bool refused = false;
    std::int64_t count = 1;              // requests this row stands for
    std::optional<TimePoint> last_time{};  // refused rows: the latest request counted
};

/// Which audit entries to list (query_audit): each filter left empty matches all.
struct AuditQuery {
    std::optional<TimePoint> since;  // at or after
    std::size_t limit = 1000;
    bool newest_first = true;  // and the limit keeps the newest; else the oldest
    std::string actor;         // exactly this actor (a user id, "apikey:<id>")
    int status_from = 0, status_to = 999;  // status within [from, to]
    std::string path_prefix;
};

/// The window of a refused-requests audit row.
inline constexpr std::chrono::minutes kRefusedAuditWindow{1};

struct RoleRequest {
    std::string id;  // UUID v4
    std::string user_id;
    std::string role_type;       // producer | verifier | valuator | certifier
    std::string wallet_address;  // lower-case 0x address
    std::string blockchain_id;
    std::string note;
    std::string status;  // pending | approved | minted | rejected
    TimePoint created_at;
    TimePoint updated_at;
    // Set by the approval workflow.
    std::string approved_by;  // admin's user id
    std::optional<TimePoint> approved_at;
    std::string tx_hash;  // the role mint, once mined
    std::uint64_t block_number = 0;
};

struct NewRoleRequest {
    std::string user_id;
    std::string role_type;
    std::string wallet_address;
    std::string blockchain_id;
    std::string note;
};

struct Practice {
    std::string id;  // UUID v4
    std::string farmer_id;
    std::string title;
    std::string description;
    TimePoint created_at;
};

struct NewPractice {
    std::string farmer_id;
    std::string title;
    std::string description;
};

struct Verification {
    std::string id;  // UUID v4
    std::string practice_id;
    std::string verifier_id;
    std::string outcome;  // approved | rejected
    std::string notes;
    TimePoint created_at;
};

struct NewVerification {
    std::string practice_id;
    std::string verifier_id;
    std::string outcome;
    std::string notes;
};

/// One wallet's holding of one token on one network, as the service knows it:
/// written by its own mints, reconciled with the chain by balanceOfBatch.
struct TokenBalance {
    std::string blockchain_id;
    std::string address;  // lower-case 0x address
    std::uint64_t token_id = 0;
    std::string balance;     // decimal
    std::string token_type;  // role | entity
    std::string category;    // role name or entity category
    std::string tx_hash;     // latest mint by this service ("" when only seen on chain)
    std::uint64_t block_number = 0;
    std::optional<TimePoint> minted_at;    // first mint by this service
    std::optional<TimePoint> last_minted;  // latest mint by this service
    TimePoint last_updated;                // last change of `balance`
    std::optional<TimePoint> last_synced;  // last reconciliation with the chain
};

struct MintRecord {
    std::string blockchain_id;
    std::string address;  // lower-case
    std::uint64_t token_id = 0;
    std::string amount;  // decimal, added to the balance
    std::string token_type;
    std::string category;
    std::string tx_hash;
    std::uint64_t block_number = 0;
    TimePoint time;
};

/// A balance read from the chain for reconciliation.
struct ChainBalance {
    std::uint64_t token_id = 0;
    std::string balance;  // decimal
    std::string token_type;
    std::string category;
};

/// A minted entity token: which platform entity it stands for and where its metadata lives.
struct Entity {
    std::int64_t id = 0;  // assigned by the store, increasing
    std::string blockchain_id;
    std::string entity_type;  // report | verification | valuation | certificate
    std::string entity_id;    // the platform's identifier
    std::uint64_t token_id = 0;
    std::string recipient;  // lower-case address
    std::uint64_t amount = 0;
    std::string cid;       // metadata CID
    std::string metadata;  // the metadata JSON exactly as stored in content storage
    std::string tx_hash;
    std::uint64_t block_number = 0;
    TimePoint created_at;
};

/// A signed transaction, written before it is broadcast (DESIGN.md §4, durability).
struct JournalEntry {
    std::string hash;  // 0x + 64 hex; unique
    std::string blockchain_id;
    std::string sender;  // lower-case address
    std::uint64_t nonce = 0;
    std::string raw;      // 0x-hex signed bytes
    std::string purpose;  // JSON written by the service: what the transaction is for
    std::string status;   // chain::TxStatus's name (core/chain/tx_state.hpp)
    std::uint64_t block_number = 0;
    TimePoint created_at;
    TimePoint updated_at;
    std::vector<std::string> mint_ids;  // the mints it carries, linked when it is journaled (not read back)
};

/// A journaled transaction's fate.
struct JournalSettlement {
    std::string hash;
    std::string status;  // a final chain::TxStatus's name
    std::uint64_t block_number = 0;
};

/// One mint request the service accepted (docs/api.md, "Mint status"): its
/// state and, once final, its answer; the transactions signed for it are
/// linked through the journal (JournalEntry::mint_ids).
struct MintRequest {
    std::string id;               // UUID v4, chosen by the service
    std::string actor;            // user id or apikey:<id>
    std::string route;            // e.g. "POST /abci/contracts/mint-role-token"
    std::string blockchain_id;
    std::string idempotency_key;  // the header's value; "" without one
    std::string fingerprint;      // SHA-256 hex of the request body
    std::string state;            // pending | done | failed
    std::string answer;           // done: the answer's body; failed: {"kind", "message"} of the error
    TimePoint created_at;
    TimePoint updated_at;
};

struct Certificate {
    std::string id;  // UUID v4, assigned by the store
    std::string user_id;
    std::string blockchain_id;
    std::string wallet_address;  // lower-case: the certifier's wallet
    std::string recipient;       // lower-case: who receives the entity token
    std::string title;
    std::string description;
    std::string status;  // pending (metadata stored, not yet minted) | minted
    std::string cid;
    std::uint64_t token_id = 0;
    std::string tx_hash;
    std::uint64_t block_number = 0;
    std::string token;  // JSON: the mint's token details as returned to the caller
    TimePoint created_at;
    TimePoint updated_at;
};

struct NewCertificate {
    std::string user_id;
    std::string blockchain_id;
    std::string wallet_address;
    std::string recipient;
    std::string title;
    std::string description;
    std::string cid;
};

class Store {
public:
    virtual ~Store() = default;

    // --- users and credentials -------------------------------------------------
    /// Creates a user. Error(conflict) when the e-mail (case-insensitive) exists.
    [[nodiscard]] virtual User create_user(const NewUser& user) = 0;
    /// Creates the users and links their wallets in ONE transaction (bulk
    /// onboarding: a transaction per user is a thousand fsyncs): all of them
    /// or, on any error, none. Returns the users in the order given.
    /// Error(conflict) when an e-mail exists or a wallet is linked already,
    /// in the store or earlier in `accounts`.
    [[nodiscard]] virtual std::vector<User> create_accounts(const std::vector<NewAccount>& accounts) = 0;
    [[nodiscard]] virtual std::optional<User> find_user_by_id(const std::string& id) = 0;
    /// Case-insensitive lookup.
    [[nodiscard]] virtual std::optional<User> find_user_by_email(const std::string& email) = 0;
    /// All users, oldest first.
    [[nodiscard]] virtual std::vector<User> list_users() = 0;
    [[nodiscard]] virtual std::size_t count_users() = 0;
    /// Error(not_found) when the user does not exist.
    virtual void set_user_role(const std::string& user_id, const std::string& role) = 0;
    /// Sets or replaces the user's password hash (an encoded scrypt string).
    virtual void set_password_hash(const std::string& user_id, const std::string& encoded_hash) = 0;
    [[nodiscard]] virtual std::optional<std::string> password_hash(const std::string& user_id) = 0;

    /// Links a wallet (lower-case 0x address) to a user. Linking the same pair
    /// again is a no-op; Error(conflict) when the wallet belongs to another user.
    virtual void link_wallet(const std::string& user_id, const std::string& address) = 0;
    [[nodiscard]] virtual std::optional<User> find_user_by_wallet(const std::string& address) = 0;
    /// The user's wallets, in the order they were linked.
    [[nodiscard]] virtual std::vector<std::string> wallets_of(const std::string& user_id) = 0;

    /// Links an external identity (OIDC issuer + subject) to a user; idempotent;
    /// Error(conflict) when it belongs to another user.
    virtual void link_identity(const std::string& user_id, const std::string& issuer,
                               const std::string& subject) = 0;
    [[nodiscard]] virtual std::optional<User> find_user_by_identity(const std::string& issuer,
                                                                    const std::string& subject) = 0;

    // --- sessions --------------------------------------------------------------
    /// Stores a refresh token (its hash) in `family_id`. Error(conflict) on a duplicate hash.
    virtual void add_refresh_token(const RefreshToken& token) = 0;
    [[nodiscard]] virtual std::optional<RefreshToken> find_refresh_token(const std::string& token_hash) = 0;
    /// Marks the token used; true only for the one caller that flipped it from
    /// unused to used (so two concurrent refreshes cannot both succeed).
    [[nodiscard]] virtual bool mark_refresh_token_used(const std::string& token_hash) = 0;
    /// Revokes every token of the family; idempotent.
    virtual void revoke_refresh_family(const std::string& family_id) = 0;

    /// Records a revoked access-token id until `expires_at` (after which the
    /// token is dead anyway and the row may be purged).
    virtual void revoke_token_id(const std::string& jti, TimePoint expires_at) = 0;

    /// What an access token's standing depends on, read in one query (it is
    /// asked on every authenticated request).
    struct TokenStanding {
        bool token_revoked = false;  // `jti` was passed to revoke_token_id()
        /// The refresh family was revoked (logout, or reuse of a spent
        /// token): the access tokens of that login session are dead too.
        bool session_revoked = false;
        std::optional<User> user;  // as find_user_by_id(user_id)
    };
    [[nodiscard]] virtual TokenStanding token_standing(const std::string& jti, const std::string& family_id,
                                                       const std::string& user_id) = 0;

    /// Single-use values with an expiry: SIWE nonces, OIDC login states, the
    /// one-time codes of the IdP redirect. `kind` separates their namespaces.
    /// Error(conflict) when (kind, key) exists.
    virtual void put_ticket(const std::string& kind, const std::string& key, const std::string& payload,
                            TimePoint expires_at) = 0;
    /// Removes and returns the ticket's payload when it exists and has not
    /// expired at `now`; each ticket is returned at most once, even to
    /// concurrent callers. Expired tickets are purged on the way.
    [[nodiscard]] virtual std::optional<std::string> take_ticket(const std::string& kind, const std::string& key,
                                                                 TimePoint now) = 0;
    /// How many tickets of `kind` have not expired at `now`.
    [[nodiscard]] virtual std::size_t count_tickets(const std::string& kind, TimePoint now) = 0;

    // --- API keys --------------------------------------------------------------
    /// Error(conflict) when the hash exists.
    [[nodiscard]] virtual ApiKey create_api_key(const NewApiKey& key) = 0;
    /// The key with this hash, revoked or not (the caller checks revoked_at).
    [[nodiscard]] virtual std::optional<ApiKey> find_api_key_by_hash(const std::string& key_hash) = 0;
    [[nodiscard]] virtual std::vector<ApiKey> list_api_keys() = 0;
    /// Revokes the key; false when no unrevoked key has this id.
    [[nodiscard]] virtual bool revoke_api_key(const std::string& id) = 0;

    // --- audit log (append-only) -----------------------------------------------
    /// Queues the entry and returns without waiting for the disk: entries are
    /// committed in batches by a writer of their own, within a few
    /// milliseconds, and at the latest when the store is destroyed. A failed
    /// commit is retried (and reported to the audit error handler); only a
    /// crash can lose the entries of the last few milliseconds, as with any
    /// commit under synchronous=NORMAL.
    virtual void append_audit(const AuditEntry& entry) = 0;
    /// Who hears of a failed audit commit (the server logs it). Called on the
    /// writer's thread; must not throw. Until set, failures are only retried.
    virtual void set_audit_error_handler(std::function<void(const std::string& error)> handler) = 0;
    /// Entries at or after `since` (all when empty), oldest first, at most
    /// `limit`; entries this store queued before the call are included.
    [[nodiscard]] std::vector<AuditEntry> list_audit(std::optional<TimePoint> since, std::size_t limit) {
        AuditQuery oldest_first;
        oldest_first.since = since;
        oldest_first.limit = limit;
        oldest_first.newest_first = false;
        return query_audit(oldest_first);
    }

    /// The entries `query` selects, in its order; entries this store queued before the call are included.
    [[nodiscard]] virtual std::vector<AuditEntry> query_audit(const AuditQuery& query) = 0;
    /// When each API key was last used: the time of its newest audit entry, by key id.
    [[nodiscard]] virtual std::map<std::string, TimePoint> api_keys_last_used() = 0;

    // --- role-gated resources ----------------------------------------------------
    /// Error(not_found) when the user does not exist.
    [[nodiscard]] virtual RoleRequest create_role_request(const NewRoleRequest& request) = 0;
    /// All role requests, oldest first; only those with `status` when given.
    [[nodiscard]] virtual std::vector<RoleRequest> list_role_requests(std::optional<std::string> status) = 0;
    [[nodiscard]] virtual std::optional<RoleRequest> find_role_request(const std::string& id) = 0;
    /// Moves the request from `from` to `to` status (compare-and-set); false
    /// when it is not in `from` (another approver got there first). Moving to
    /// "approved" also sets approved_by/approved_at from `actor`/now.
    [[nodiscard]] virtual bool transition_role_request(const std::string& id, const std::string& from,
                                                       const std::string& to, const std::string& actor) = 0;
    /// Records the mined role mint on the request and sets it to "minted"; idempotent.
    virtual void set_role_request_minted(const std::string& id, const std::string& tx_hash,
                                         std::uint64_t block_number) = 0;

    // --- tokens ------------------------------------------------------------------
    /// Adds a mined mint to the wallet's balance of that token (creating the row).
    /// Idempotent per tx_hash: recording the same transaction twice changes nothing.
    virtual void record_mint(const MintRecord& mint) = 0;
    [[nodiscard]] virtual std::optional<TokenBalance> find_token_balance(const std::string& blockchain_id,
                                                                         const std::string& address,
                                                                         std::uint64_t token_id) = 0;
    /// The wallet's rows on that network with a non-zero balance, by token id.
    [[nodiscard]] virtual std::vector<TokenBalance> token_balances_of(const std::string& blockchain_id,
                                                                      const std::string& address) = 0;
    /// Sets the wallet's balances to what the chain says (one transaction):
    /// rows whose balance differs get it and last_updated = now; rows missing
    /// with a non-zero chain balance are created (no mint times); every row
    /// named gets last_synced = now.
    virtual void sync_token_balances(const std::string& blockchain_id, const std::string& address,
                                     const std::vector<ChainBalance>& balances, TimePoint now) = 0;

    /// Records a minted entity token; the store assigns id and created_at.
    /// Idempotent per (blockchain_id, tx_hash): recording the same mint again
    /// returns the first record unchanged.
    [[nodiscard]] virtual Entity record_entity(const Entity& entity) = 0;
    /// The latest minted entity of this token id on that network, or the one
    /// with this platform `entity_id` when given.
    [[nodiscard]] virtual std::optional<Entity> find_entity(const std::string& blockchain_id, std::uint64_t token_id,
                                                            const std::optional<std::string>& entity_id) = 0;

    // --- transaction journal -----------------------------------------------------
    /// Writes signed transactions, all in one transaction, status "pending",
    /// each linked to its mints. Error(conflict) when a hash is already
    /// journaled, unless as refused: the same bytes signed again (the nonce was
    /// given back) are pending again.
    virtual void journal_add(const std::vector<JournalEntry>& entries) = 0;
    /// Sets each entry's status and block number, all in one transaction
    /// (a block's worth of mined mints costs one commit). Error(not_found),
    /// and nothing settled, when a hash is not journaled.
    virtual void journal_settle(const std::vector<JournalSettlement>& settlements) = 0;
    /// A mined or reverted entry back to pending (a reorg deeper than the
    /// confirmations); anything else is left as it is.
    virtual void journal_reopen(const std::string& hash) = 0;
    [[nodiscard]] virtual std::optional<JournalEntry> journal_find(const std::string& hash) = 0;
    /// Entries still pending on that network, by nonce then creation.
    [[nodiscard]] virtual std::vector<JournalEntry> journal_pending(const std::string& blockchain_id) = 0;
    /// Entries on that network ("" for all) with one of `statuses` (all when
    /// empty), newest first, at most `limit`.
    [[nodiscard]] virtual std::vector<JournalEntry> journal_list(const std::string& blockchain_id,
                                                                 const std::vector<std::string>& statuses,
                                                                 std::size_t limit) = 0;
    /// Gives up a pending entry: status "abandoned" (`abcictl admin journal
    /// abandon`, after the chain's proof or the operator's word). True when it
    /// was pending; false, and nothing changed, when it is final already.
    /// Error(not_found) when the hash is not journaled.
    [[nodiscard]] virtual bool journal_abandon(const std::string& hash) = 0;

    // --- mints and idempotency keys -------------------------------------------------
    /// Records a new pending mint and, when it carries an idempotency key,
    /// claims (actor, route, key) for it. Returns nothing, or, when the key
    /// is claimed already, that key's mint unchanged (pending or final) and
    /// records nothing. Atomic: of two concurrent claims exactly one wins.
    [[nodiscard]] virtual std::optional<MintRequest> begin_mint(const MintRequest& mint) = 0;
    /// Makes a pending mint final (state done or failed, with its answer); a
    /// final mint is left as it is. Error(not_found) for an unknown id.
    virtual void finish_mint(const std::string& id, const std::string& state, const std::string& answer) = 0;
    /// Makes a pending mint failed and frees its idempotency key, so that a
    /// retry with the key runs again: for a mint of which nothing was
    /// signed, or nothing can be mined any more. A final mint is left as it is.
    virtual void release_mint(const std::string& id, const std::string& answer) = 0;
    [[nodiscard]] virtual std::optional<MintRequest> find_mint(const std::string& id) = 0;
    /// The mint an idempotency key of (actor, route) names.
    [[nodiscard]] virtual std::optional<MintRequest> find_mint_by_key(const std::string& actor, const std::string& route,
                                                                      const std::string& key) = 0;
    /// The transactions journaled for a mint, oldest first.
    [[nodiscard]] virtual std::vector<JournalEntry> mint_transactions(const std::string& id) = 0;
    /// Mints still pending (for reconciliation at start), oldest first.
    [[nodiscard]] virtual std::vector<MintRequest> pending_mints() = 0;

    // --- certificates ------------------------------------------------------------
    /// Error(not_found) when the user does not exist. Status "pending".
    [[nodiscard]] virtual Certificate create_certificate(const NewCertificate& certificate) = 0;
    [[nodiscard]] virtual std::optional<Certificate> find_certificate(const std::string& id) = 0;
    /// The user's certificates, oldest first.
    [[nodiscard]] virtual std::vector<Certificate> certificates_of(const std::string& user_id) = 0;
    /// Stores the mined token details and sets status "minted"; idempotent.
    virtual void set_certificate_minted(const std::string& id, std::uint64_t token_id, const std::string& tx_hash,
                                        std::uint64_t block_number, const std::string& token) = 0;

    /// Error(not_found) when the farmer does not exist.
    [[nodiscard]] virtual Practice create_practice(const NewPractice& practice) = 0;
    [[nodiscard]] virtual std::optional<Practice> find_practice(const std::string& id) = 0;
    /// The farmer's practices, oldest first.
    [[nodiscard]] virtual std::vector<Practice> practices_of(const std::string& farmer_id) = 0;

    /// Error(not_found) when the practice or the verifier does not exist.
    [[nodiscard]] virtual Verification create_verification(const NewVerification& verification) = 0;
    /// Verifications of one practice, oldest first.
    [[nodiscard]] virtual std::vector<Verification> verifications_of(const std::string& practice_id) = 0;
};

/// Opens (creating when missing, mode 0600) the SQLite database at `path`,
/// with WAL, foreign keys and a busy timeout, and applies the numbered
/// migrations it has not seen (PRAGMA user_version). Error(unavailable) when it
/// cannot be opened; Error(internal) when its user_version is newer than this
/// binary knows (a downgrade).
[[nodiscard]] std::unique_ptr<Store> open_sqlite_store(const std::string& path);

}  // namespace abci::store
