// `abcictl admin store copy`'s core (core/store/copy.hpp): a SQLite store
// filled through the Store API and copied into the fixture's PostgreSQL reads
// back the same through the same repository methods, lists in the same order
// (the rowids kept), and gives new rows ids past the copied ones; the copy is
// all or nothing, and only into an empty database.

#include <catch2/catch.hpp>

#include <SQLiteCpp/SQLiteCpp.h>

#include <map>
#include <nlohmann/json.hpp>

#include "core/store/copy.hpp"
#include "core/store/migrations.hpp"
#include "core/store/postgresql/connection.hpp"
#include "core/store/postgresql/migrate.hpp"
#include "core/store/postgresql/schema.hpp"
#include "core/store/store.hpp"
#include "support/error_kind.hpp"
#include "support/postgres.hpp"
#include "support/store_helpers.hpp"

namespace abci::store_copy_tests {
namespace {

using namespace std::chrono_literals;
using namespace store;
using nlohmann::json;
using postgresql::Connection;

const std::string kChain = "31337";
const std::string kWallet = "0x1111111111111111111111111111111111111111";
const std::string kOtherWallet = "0x2222222222222222222222222222222222222222";
constexpr MintKind kKind = MintKind::role;
// Above 2^63: stored as a negative BIGINT, read back unsigned.
constexpr std::uint64_t kHugeTokenId = (1ULL << 63) + 5;

json millis(TimePoint t) { return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count(); }
json millis(const std::optional<TimePoint>& t) { return t ? millis(*t) : json(nullptr); }

/// Some of every kind of record, through the Store API only.
void fill(Store& s) {
    const User ann = s.users().create(NewUser{"ann@example.org", "farmer", true});
    const User vic = s.users().create(NewUser{"vic@example.org", "verifier", false});
    const User ada = s.users().create(NewUser{"ada@example.org", "admin", true});
    // Enough users that their ids (random UUIDs) are in creation order by chance about once in 5000 runs.
    (void)s.users().create_accounts({{{"zed@example.org", "farmer", false}, {"0x3333333333333333333333333333333333333333"}},
                                     {{"bob@example.org", "developer", false}, {}},
                                     {{"eve@example.org", "farmer", true}, {}},
                                     {{"kim@example.org", "verifier", false}, {}}});

    s.credentials().set_password_hash(ann.id, "$scrypt$ln=15,r=8,p=1$c2FsdA$aGFzaA");
    s.credentials().link_wallet(ann.id, kOtherWallet);
    s.credentials().link_wallet(ann.id, kWallet);
    s.credentials().link_identity(vic.id, "https://idp.example.org", "subject-1");

    const TimePoint expiry = testing::millis_from_now(24h);
    s.sessions().add_refresh_token(RefreshToken{"hash-1", "family-A", ann.id, expiry});
    s.sessions().add_refresh_token(RefreshToken{"hash-2", "family-A", ann.id, expiry});
    REQUIRE(s.sessions().mark_refresh_token_used("hash-1"));
    s.sessions().add_refresh_token(RefreshToken{"hash-3", "family-B", vic.id, expiry});
    s.sessions().revoke_refresh_family("family-B");
    s.sessions().revoke_token_id("jti-1", expiry);
    s.tickets().put("siwe", "nonce-1", R"({"address":"0x11"})", expiry);

    const ApiKey monitoring = s.api_keys().create(NewApiKey{"monitoring", "key-hash-a", {"abci:health"}, ""});
    const ApiKey ci = s.api_keys().create(NewApiKey{"ci", "key-hash-b", {"abci:read", "abci:mint"}, ada.id});
    REQUIRE(s.api_keys().revoke(monitoring.id));

    // Within one refused-rows window, so that the two refused requests share a row.
    const auto now = std::chrono::time_point_cast<std::chrono::minutes>(std::chrono::system_clock::now());
    s.audit().append(AuditEntry{.time = now + 1s, .actor = "apikey:" + ci.id, .method = "GET", .path = "/abci/health",
                                .status = 200, .client_address = "10.0.0.1", .request_id = "req-1"});
    for (const auto at : {now + 2s, now + 3s})
        s.audit().append(AuditEntry{.time = at, .actor = "", .method = "POST", .path = "/abci/mint", .status = 401,
                                    .client_address = "10.0.0.2", .request_id = "req-refused", .refused = true});

    const RoleRequest minted = s.role_requests().create(NewRoleRequest{ann.id, "producer", kWallet, kChain, "please"});
    REQUIRE(s.role_requests().transition(minted.id, RoleRequestStatus::pending, RoleRequestStatus::approved, ada.id));
    s.role_requests().set_minted(minted.id, "0xaaaa", 12);
    (void)s.role_requests().create(NewRoleRequest{vic.id, "verifier", kOtherWallet, kChain, ""});

    const TimePoint minted_at = testing::millis_from_now(-1h);
    s.tokens().record_mint(
        MintRecord{kChain, kWallet, 1, "18446744073709551616000", "role", "producer", "0x01", 7, minted_at});
    s.tokens().record_mint(MintRecord{kChain, kWallet, kHugeTokenId, "5", "entity", "report", "0x02", 8, minted_at});
    for (const auto& [entity_id, tx] : {std::pair{"report-1", "0x02"}, std::pair{"report-2", "0x03"}})
        (void)s.entities().record(Entity{0, kChain, "report", entity_id, kHugeTokenId, kWallet, 5,
                                         "bafy-" + std::string(entity_id), R"({"name":"r"})", tx, 8, {}});

    auto keyed = testing::mint_request(ann.id, kKind, "key-1", "fingerprint-1");
    auto unkeyed = testing::mint_request("apikey:" + ci.id, kKind, "", "fingerprint-2");
    REQUIRE_FALSE(s.mints().begin(keyed));
    REQUIRE_FALSE(s.mints().begin(unkeyed));
    s.mints().finish(unkeyed.id, MintState::done, R"({"transactionHash":"0x05"})");
    s.journal().add({JournalEntry{"0x04", kChain, kWallet, 1, "0x02f8aa", R"({"kind":"mint"})", chain::TxStatus::pending, 0,
                                  {}, {}, {keyed.id}},
                     JournalEntry{"0x05", kChain, kWallet, 2, "0x02f8bb", R"({"kind":"mint"})", chain::TxStatus::pending, 0,
                                  {}, {}, {unkeyed.id}}});
    s.journal().settle({{"0x05", chain::TxStatus::mined, 99}});

    const Certificate certificate =
        s.certificates().create(NewCertificate{ann.id, kChain, kWallet, kOtherWallet, "Organic", "Since 2020", "bafy-c"});
    s.certificates().set_minted(certificate.id, 77, "0x06", 100, R"({"tokenId":"77"})", "mint-77");
    (void)s.certificates().create(NewCertificate{ann.id, kChain, kWallet, kWallet, "Pending", "", "bafy-d"});

    const Practice practice = s.practices().create(NewPractice{ann.id, "Cover crops", "Rye over winter"});
    (void)s.practices().create(NewPractice{ann.id, "No-till", ""});
    (void)s.practices().add_verification(NewVerification{practice.id, vic.id, VerificationOutcome::rejected, "no photos"});
    (void)s.practices().add_verification(NewVerification{practice.id, vic.id, VerificationOutcome::approved, "seen"});

    (void)s.rate_windows().hit("caller-1", 60s, std::chrono::system_clock::now());
}

json user_json(const User& u) { return json::array({u.id, u.email, u.role, u.verified, millis(u.created_at)}); }

json journal_json(const JournalEntry& e) {
    return json::array({e.hash, e.blockchain_id, e.sender, e.nonce, e.raw, e.purpose, chain::to_string(e.status),
                        e.block_number, millis(e.created_at), millis(e.updated_at)});
}

json mint_json(const std::optional<MintRequest>& m) {
    if (!m) return nullptr;
    return json::array({m->id, m->actor, to_string(m->kind), m->blockchain_id, m->idempotency_key, m->fingerprint,
                        to_string(m->state), m->answer, millis(m->created_at), millis(m->updated_at)});
}

json balance_json(const TokenBalance& b) {
    return json::array({b.blockchain_id, b.address, b.token_id, b.balance, b.token_type, b.category, b.tx_hash,
                        b.block_number, millis(b.minted_at), millis(b.last_minted), millis(b.last_updated),
                        millis(b.last_synced)});
}

json entity_json(const std::optional<Entity>& e) {
    if (!e) return nullptr;
    return json::array({e->id, e->blockchain_id, e->entity_type, e->entity_id, e->token_id, e->recipient, e->amount,
                        e->cid, e->metadata, e->tx_hash, e->block_number, millis(e->created_at)});
}

/// Everything fill() wrote, read back through the repositories' methods
/// that leave the store as it is, by kind of record.
std::map<std::string, json> read_back(Store& s) {
    std::map<std::string, json> out;
    for (const auto& u : s.users().list()) {
        out["users"].push_back(user_json(u));
        out["credentials"].push_back(
            json::array({s.credentials().password_hash(u.id).value_or("-"), s.credentials().wallets_of(u.id)}));
        for (const auto& c : s.certificates().of_user(u.id))
            out["certificates"].push_back(json::array({c.id, c.user_id, c.blockchain_id, c.wallet_address, c.recipient,
                                                       c.title, c.description, to_string(c.status), c.cid, c.token_id,
                                                       c.tx_hash, c.block_number, c.token, millis(c.created_at),
                                                       millis(c.updated_at)}));
        for (const auto& p : s.practices().of_farmer(u.id)) {
            out["practices"].push_back(json::array({p.id, p.farmer_id, p.title, p.description, millis(p.created_at)}));
            for (const auto& v : s.practices().verifications_of(p.id))
                out["verifications"].push_back(json::array(
                    {v.id, v.practice_id, v.verifier_id, to_string(v.outcome), v.notes, millis(v.created_at)}));
        }
    }
    out["identity"] = user_json(*s.credentials().find_user_by_identity("https://idp.example.org", "subject-1"));
    out["wallet owner"] = user_json(*s.credentials().find_user_by_wallet(kWallet));
    for (const auto* hash : {"hash-1", "hash-2", "hash-3"}) {
        const auto t = *s.sessions().find_refresh_token(hash);
        out["refresh tokens"].push_back(
            json::array({t.token_hash, t.family_id, t.user_id, millis(t.expires_at), t.used, t.family_revoked}));
    }
    const auto standing = s.sessions().token_standing("jti-1", "family-B", out["users"][1][0].get<std::string>());
    out["token standing"] = json::array({standing.token_revoked, standing.session_revoked, user_json(*standing.user)});
    out["tickets"] = s.tickets().count("siwe", std::chrono::system_clock::now());
    for (const auto& k : s.api_keys().list())
        out["api keys"].push_back(
            json::array({k.id, k.name, k.scopes, k.created_by, millis(k.created_at), millis(k.revoked_at)}));
    out["api key by hash"] = s.api_keys().find_by_hash("key-hash-b")->id;
    for (const auto& [key, used] : s.audit().api_keys_last_used()) out["api keys last used"][key] = millis(used);
    for (const auto& a : s.audit().list(std::nullopt, 100))
        out["audit"].push_back(json::array({a.id, millis(a.time), a.actor, a.method, a.path, a.status, a.client_address,
                                            a.request_id, a.refused, a.count, millis(a.last_time)}));
    for (const auto& r : s.role_requests().list(std::nullopt))
        out["role requests"].push_back(json::array({r.id, r.user_id, r.role_type, r.wallet_address, r.blockchain_id, r.note,
                                                    to_string(r.status), millis(r.created_at), millis(r.updated_at),
                                                    r.approved_by, millis(r.approved_at), r.tx_hash, r.block_number}));
    for (const auto& b : s.tokens().balances_of(kChain, kWallet)) out["balances"].push_back(balance_json(b));
    out["latest entity"] = entity_json(s.entities().find(kChain, kHugeTokenId, std::nullopt));
    out["entity by id"] = entity_json(s.entities().find(kChain, kHugeTokenId, std::string("report-1")));
    for (const auto& e : s.journal().list("", {}, 100)) out["journal"].push_back(journal_json(e));
    for (const auto& e : s.journal().pending(kChain)) out["journal pending"].push_back(journal_json(e));
    for (const auto& m : s.mints().pending()) {
        out["mints pending"].push_back(mint_json(m));
        for (const auto& e : s.journal().of_mint(m.id)) out["journal of mint"].push_back(journal_json(e));
    }
    const auto ann = out["users"][0][0].get<std::string>();
    out["mint by key"] = mint_json(s.mints().find_by_key(IdempotencyKey{ann, kKind, "key-1"}));
    return out;
}

/// Fills a SQLite store at `path` and closes it (its audit writer commits on the way).
void fill_sqlite(const std::string& path) {
    const auto sqlite = open_sqlite_store(path);
    fill(*sqlite);
}

/// Each store table of the PostgreSQL database at `url` and its rows.
std::map<std::string, std::int64_t> table_rows(const std::string& url) {
    Connection db(url);
    const auto tables = db.exec(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name <> 'schema_version'");
    std::map<std::string, std::int64_t> rows;
    for (int i = 0; i < tables.rows(); ++i) {
        const auto table = tables.text(i, "table_name");
        rows[table] = db.exec("SELECT count(*) AS n FROM \"" + table + "\"").integer(0, "n");
    }
    return rows;
}

}  // namespace

TEST_CASE("store copy: every record reads back the same from PostgreSQL, in the same order, new ids go past the "
          "copied ones, and a second copy is refused and changes nothing",
          "[postgres][store-copy]") {
    test::TempDir dir;
    const auto path = dir / "abci.db";
    fill_sqlite(path);
    test::Postgres pg;
    const PostgresqlSettings target{pg.create_database("copy"), ""};

    const auto report = copy_to_postgresql(path, target);
    std::map<std::string, std::int64_t> reported;
    for (const auto& t : report.tables) reported[t.name] = t.rows;
    // Every table of SQLite's, as many rows in PostgreSQL's.
    SQLite::Database sqlite_file(path, SQLite::OPEN_READONLY);
    SQLite::Statement tables(sqlite_file, "SELECT name FROM sqlite_master WHERE type = 'table' AND name != 'sqlite_sequence'");
    std::size_t sqlite_tables = 0;
    while (tables.executeStep()) {
        const std::string table = tables.getColumn(0).getString();
        INFO(table);
        ++sqlite_tables;
        CHECK(reported.at(table) == sqlite_file.execAndGet("SELECT count(*) FROM \"" + table + "\"").getInt64());
    }
    CHECK(reported.size() == sqlite_tables);
    const auto in_postgresql = table_rows(target.url);
    for (const auto& [table, rows] : reported) {
        INFO(table);
        CHECK(in_postgresql.at(table) == rows);
    }
    CHECK(reported.at("users") == 7);
    CHECK(reported.at("audit_log") == 2);  // the refused row counts 2 requests
    CHECK(reported.at("rate_windows") == 1);

    const auto sqlite = open_sqlite_store(path);
    const auto copied = open_postgresql_store(target);
    const auto expected = read_back(*sqlite);
    CHECK(expected.at("users").size() == 7);
    CHECK(expected.at("audit").size() == 2);
    CHECK(expected.at("audit")[1][9] == 2);
    const auto found = read_back(*copied);
    for (const auto& [kind, records] : expected) {
        INFO(kind);
        CHECK(found.at(kind) == records);
    }
    // What reading changes, last: a ticket is taken once, a rate window counts on.
    const auto now = std::chrono::system_clock::now();
    const auto ticket = sqlite->tickets().take("siwe", "nonce-1", now);
    CHECK(ticket == R"({"address":"0x11"})");
    CHECK(copied->tickets().take("siwe", "nonce-1", now) == ticket);
    const auto window = sqlite->rate_windows().hit("caller-1", 60s, now);
    const auto copied_window = copied->rate_windows().hit("caller-1", 60s, now);
    CHECK(copied_window.count == 2);
    CHECK(copied_window.count == window.count);
    CHECK(copied_window.started_at == window.started_at);

    // New rows get identities past the copied ones: listed last, ids above.
    const auto audit_id = copied->audit().list(std::nullopt, 100).back().id;
    const auto entity_id = copied->entities().find(kChain, kHugeTokenId, std::nullopt)->id;
    const User added = copied->users().create(NewUser{"new@example.org", "farmer", false});
    CHECK(copied->users().list().back().id == added.id);
    const ApiKey key = copied->api_keys().create(NewApiKey{"new", "key-hash-new", {}, ""});
    CHECK(copied->api_keys().list().back().id == key.id);
    copied->audit().append(AuditEntry{.time = now, .actor = added.id, .method = "GET", .path = "/api/me", .status = 200,
                                      .client_address = "10.0.0.3", .request_id = "req-new"});
    const auto newest = copied->audit().query(AuditQuery{});
    REQUIRE(newest.size() == 3);
    CHECK(newest.front().request_id == "req-new");
    CHECK(newest.front().id > audit_id);
    const Entity entity = copied->entities().record(
        Entity{0, kChain, "report", "report-3", kHugeTokenId, kWallet, 1, "bafy-3", "{}", "0x07", 9, {}});
    CHECK(entity.id > entity_id);

    // Into a database that holds rows: refused, nothing changed.
    const auto before = read_back(*copied);
    const auto rows_before = table_rows(target.url);
    CHECK(test::error_kind([&] { (void)copy_to_postgresql(path, target); }) == ErrorKind::conflict);
    CHECK(read_back(*copied) == before);
    CHECK(table_rows(target.url) == rows_before);
}

TEST_CASE("store copy: a copy failing on the way leaves the target empty and its identities unmoved, and what "
          "cannot be copied is refused",
          "[postgres][store-copy]") {
    test::TempDir dir;
    const auto path = dir / "abci.db";
    fill_sqlite(path);
    test::Postgres pg;
    const PostgresqlSettings target{pg.create_database("broken"), ""};
    Connection db(target.url);
    (void)postgresql::migrate(db, postgresql::schema_migrations());
    const auto all_empty = [&] {
        for (const auto& [table, rows] : table_rows(target.url)) {
            INFO(table);
            CHECK(rows == 0);
        }
    };

    // Certificates come after users, wallets, API keys…: those are copied when the first certificate fails.
    (void)db.exec("ALTER TABLE certificates ALTER COLUMN title TYPE VARCHAR(3)");
    CHECK(test::error_kind([&] { (void)copy_to_postgresql(path, target); }) == ErrorKind::internal);
    all_empty();
    // The identities restarted past the copied rows were restarted back: the next value is the first.
    CHECK(db.exec("SELECT nextval(pg_get_serial_sequence('users', 'rowid')) AS n").integer(0, "n") == 1);
    CHECK(db.exec("SELECT nextval(pg_get_serial_sequence('audit_log', 'id')) AS n").integer(0, "n") == 1);
    (void)db.exec("ALTER TABLE certificates ALTER COLUMN title TYPE TEXT");

    // A column, then a table, that PostgreSQL's schema has not: refused before anything is written.
    {
        SQLite::Database file(path, SQLite::OPEN_READWRITE);
        file.exec("ALTER TABLE practices ADD COLUMN region TEXT");
    }
    CHECK(test::error_kind([&] { (void)copy_to_postgresql(path, target); }) == ErrorKind::internal);
    {
        SQLite::Database file(path, SQLite::OPEN_READWRITE);
        file.exec("ALTER TABLE practices DROP COLUMN region");
        file.exec("CREATE TABLE notes (note TEXT NOT NULL) STRICT; INSERT INTO notes VALUES ('kept')");
    }
    CHECK(test::error_kind([&] { (void)copy_to_postgresql(path, target); }) == ErrorKind::internal);
    all_empty();

    {
        SQLite::Database file(path, SQLite::OPEN_READWRITE);
        file.exec("DROP TABLE notes");
    }

    // A schema older than this binary's: migrated by a serve first.
    {
        SQLite::Database file(path, SQLite::OPEN_READWRITE);
        file.exec("PRAGMA user_version = " + std::to_string(sqlite::migrations().size() - 1));
    }
    CHECK(test::error_kind([&] { (void)copy_to_postgresql(path, target); }) == ErrorKind::invalid_input);
    CHECK(test::error_kind([&] { (void)copy_to_postgresql(dir / "missing.db", target); }) == ErrorKind::not_found);
    all_empty();
}

TEST_CASE("store copy: text an older release stored with a NUL or bytes that are not UTF-8 is copied escaped, "
          "and counted",
          "[postgres][store-copy]") {
    test::TempDir dir;
    const auto path = dir / "abci.db";
    fill_sqlite(path);
    // As the release before text was checked wrote them: a request for
    // /abci/%FF or /abci/x%00y in the audit log, a NUL in a practice's text.
    {
        SQLite::Database file(path, SQLite::OPEN_READWRITE);
        file.exec("UPDATE practices SET description = 'before' || char(0) || 'after' WHERE title = 'No-till'");
        file.exec("INSERT INTO audit_log (time, actor, method, path, status, client_address, request_id) VALUES "
                  "(1, 'u', 'GET', CAST(x'2f616263692fff' AS TEXT), 403, '127.0.0.1', 'r-ff'), "
                  "(2, 'u', 'GET', '/abci/x' || char(0) || 'y', 403, '127.0.0.1', 'r-nul'), "
                  "(3, 'u', 'GET', CAST(x'2f616263692f25c0af' AS TEXT), 403, '127.0.0.1', 'r-overlong')");
    }
    test::Postgres pg;
    const PostgresqlSettings target{pg.create_database("escaped"), ""};

    const auto report = copy_to_postgresql(path, target);
    std::map<std::string, std::int64_t> escaped;
    for (const auto& t : report.tables) escaped[t.name] = t.escaped;
    CHECK(escaped.at("practices") == 1);
    CHECK(escaped.at("audit_log") == 3);
    CHECK(escaped.at("users") == 0);

    const auto copied = open_postgresql_store(target);
    bool found_practice = false;
    for (const auto& user : copied->users().list())
        for (const auto& practice : copied->practices().of_farmer(user.id))
            if (practice.title == "No-till") {
                found_practice = true;
                CHECK(practice.description == "before%00after");
            }
    CHECK(found_practice);
    std::map<std::string, std::string> paths;
    for (const auto& entry : copied->audit().list(std::nullopt, 100)) paths[entry.request_id] = entry.path;
    CHECK(paths.at("r-ff") == "/abci/%FF");
    CHECK(paths.at("r-nul") == "/abci/x%00y");
    CHECK(paths.at("r-overlong") == "/abci/%25%C0%AF");  // a '%' of a value that is escaped is escaped too
}

}  // namespace abci::store_copy_tests
