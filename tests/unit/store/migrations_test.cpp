// Opening the database file: its schema version, its modes, and the files it
// refuses.

#include <catch2/catch.hpp>

#include <SQLiteCpp/SQLiteCpp.h>
#include <sys/stat.h>

#include <filesystem>
#include <tuple>

#include "core/store/migrations.hpp"
#include "support/error_kind.hpp"
#include "support/scoped_umask.hpp"
#include "support/store_helpers.hpp"

using namespace abci;
using namespace abci::store;
using namespace abci::store::testing;

namespace abci::store::testing {

std::int64_t user_version(const std::string& path) {
    SQLite::Database db(path, SQLite::OPEN_READONLY);
    return db.execAndGet("PRAGMA user_version").getInt64();
}

unsigned file_mode(const std::string& path) {
    struct stat st {};
    REQUIRE(::stat(path.c_str(), &st) == 0);
    return st.st_mode & 07777;
}

}  // namespace abci::store::testing

TEST_CASE("store: a new database is at the latest schema version, in WAL mode", "[store]") {
    test::TempDir dir;
    const std::string path = dir / "abci.db";
    (void)open_sqlite_store(path);
    CHECK(sqlite::migrations().size() >= 1);
    CHECK(user_version(path) == static_cast<std::int64_t>(sqlite::migrations().size()));
    SQLite::Database db(path, SQLite::OPEN_READONLY);
    CHECK(db.execAndGet("PRAGMA journal_mode").getString() == "wal");
}

TEST_CASE("store: reopening keeps the data and applies nothing again", "[store]") {
    test::TempDir dir;
    const std::string path = dir / "abci.db";
    std::string id;
    {
        auto store = open_sqlite_store(path);
        id = add_user(*store, "keep@example.org").id;
    }
    auto store = open_sqlite_store(path);  // re-running script 1 would fail: its tables exist
    CHECK(user_version(path) == static_cast<std::int64_t>(sqlite::migrations().size()));
    REQUIRE(store->users().find_by_id(id));
    CHECK(store->users().count() == 1);
}

TEST_CASE("store: a database from a newer abcictl is refused, not downgraded", "[store]") {
    test::TempDir dir;
    const std::string path = dir / "abci.db";
    (void)open_sqlite_store(path);
    const auto newer = static_cast<std::int64_t>(sqlite::migrations().size()) + 1;
    {
        SQLite::Database db(path, SQLite::OPEN_READWRITE);
        db.exec("PRAGMA user_version = " + std::to_string(newer));
    }
    CHECK(test::error_kind([&] { (void)open_sqlite_store(path); }) == ErrorKind::internal);
    CHECK(user_version(path) == newer);
}

TEST_CASE("store: the database and its -wal and -shm files are private, whatever the umask", "[store]") {
    test::TempDir dir;
    const std::string path = dir / "abci.db";
    std::unique_ptr<Store> store;
    {
        const test::ScopedUmask permissive(0);
        store = open_sqlite_store(path);
    }
    (void)add_user(*store, "mode@example.org");  // a write, so the WAL exists
    CHECK(file_mode(path) == 0600);
    CHECK(file_mode(path + "-wal") == 0600);
    CHECK(file_mode(path + "-shm") == 0600);
}

TEST_CASE("store: an unusable path is unavailable", "[store]") {
    test::TempDir dir;
    CHECK(test::error_kind([&] { (void)open_sqlite_store(dir / "missing/abci.db"); }) == ErrorKind::unavailable);
    CHECK_FALSE(std::filesystem::exists(dir / "missing"));

    std::filesystem::create_directory(dir / "a-directory");
    CHECK(test::error_kind([&] { (void)open_sqlite_store(dir / "a-directory"); }) == ErrorKind::unavailable);

    const std::string garbage = dir.write("garbage.db", std::string(4096, 'x'));
    CHECK(test::error_kind([&] { (void)open_sqlite_store(garbage); }) == ErrorKind::unavailable);
}

TEST_CASE("store: a database at schema version 1 upgrades to the latest, keeping its rows", "[store]") {
    test::TempDir dir;
    const std::string path = dir / "abci.db";
    {
        // What an abcictl of issue 3 left behind: script 1 only, with a user and a role request.
        SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
        db.exec(sqlite::migrations()[0]);
        db.exec("PRAGMA user_version = 1");
        db.exec("INSERT INTO users (id, email, role, verified, created_at) "
                "VALUES ('u1', 'old@example.org', 'farmer', 1, 1000)");
        db.exec("INSERT INTO role_requests (id, user_id, role_type, wallet_address, blockchain_id, note, status, "
                "created_at, updated_at) "
                "VALUES ('r1', 'u1', 'producer', '0x11', '31337', 'old', 'pending', 1000, 2000)");
    }
    auto store = open_sqlite_store(path);
    CHECK(user_version(path) == static_cast<std::int64_t>(sqlite::migrations().size()));
    REQUIRE(store->users().find_by_email("old@example.org"));
    const auto request = store->role_requests().find("r1");
    REQUIRE(request);
    CHECK(request->user_id == "u1");
    CHECK(request->note == "old");
    CHECK(request->updated_at == TimePoint(std::chrono::milliseconds(2000)));
    CHECK(request->approved_by.empty());
    CHECK_FALSE(request->approved_at);
    CHECK(request->tx_hash.empty());
    CHECK(request->block_number == 0);
    CHECK(store->role_requests().list(std::nullopt).size() == 1);

    // The old row takes part in the new workflow, and the new tables work.
    CHECK(store->role_requests().transition("r1", RoleRequestStatus::pending, RoleRequestStatus::approved, "u1"));
    store->role_requests().set_minted("r1", "0xaa", 3);
    CHECK(store->role_requests().find("r1")->status == RoleRequestStatus::minted);
    CHECK_FALSE(store->mints().begin(mint_request("u1", MintKind::role, "k", "fp")));
    CHECK(store->certificates().create(NewCertificate{"u1", "31337", "0x11", "0x11", "t", "d", "c"}).status ==
          CertificateStatus::pending);
}

TEST_CASE("store: pending twins filed before the rule keep the oldest, the others rejected, on upgrade", "[store]") {
    test::TempDir dir;
    const std::string path = dir / "abci.db";
    {
        SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
        db.exec(sqlite::migrations()[0]);
        db.exec("PRAGMA user_version = 1");
        db.exec("INSERT INTO users (id, email, role, verified, created_at) VALUES ('u1', 'u@example.org', 'farmer', 1, 1)");
        // r1–r3 the same ask, all pending; r4 the same but approved; r5 another role.
        for (const auto& [id, role, status] : {std::tuple{"r1", "producer", "pending"}, {"r2", "producer", "pending"},
                                               {"r3", "producer", "pending"}, {"r4", "producer", "approved"},
                                               {"r5", "verifier", "pending"}})
            db.exec(std::string("INSERT INTO role_requests (id, user_id, role_type, wallet_address, blockchain_id, note, "
                                "status, created_at, updated_at) VALUES ('") +
                    id + "', 'u1', '" + role + "', '0x11', '31337', '', '" + status + "', 1000, 1000)");
    }
    auto store = open_sqlite_store(path);
    auto& requests = store->role_requests();
    CHECK(requests.find("r1")->status == RoleRequestStatus::pending);
    for (const char* twin : {"r2", "r3"}) {
        const auto rejected = requests.find(twin);
        CHECK(rejected->status == RoleRequestStatus::rejected);
        CHECK(rejected->failure.find("duplicate") != std::string::npos);
        CHECK(rejected->updated_at > TimePoint(std::chrono::milliseconds(1000)));
    }
    CHECK(requests.find("r4")->status == RoleRequestStatus::approved);
    CHECK(requests.find("r5")->status == RoleRequestStatus::pending);
    CHECK(test::error_kind([&] { (void)requests.create(NewRoleRequest{"u1", "producer", "0x11", "31337", ""}); }) ==
          ErrorKind::conflict);
}

TEST_CASE("store: idempotency keys of schema version 3 become mints, with their answers and transactions", "[store]") {
    test::TempDir dir;
    const std::string path = dir / "abci.db";
    {
        // What an abcictl before mint records left: a key answered, and one
        // whose transaction was journaled when it stopped.
        SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
        for (std::size_t i = 0; i < 3; ++i) db.exec(sqlite::migrations()[i]);
        db.exec("PRAGMA user_version = 3");
        db.exec("INSERT INTO idempotency_keys (actor, route, key, fingerprint, state, status, response, journal_hash, "
                "created_at) VALUES ('u1', 'POST /abci/contracts/mint-role-token', 'done-key', 'fp1', 'done', 200, '{\"success\":true}', '0xaa', 1000)");
        db.exec("INSERT INTO idempotency_keys (actor, route, key, fingerprint, state, status, response, journal_hash, "
                "created_at) VALUES ('u1', 'POST /abci/contracts/mint-role-token', 'sent-key', 'fp2', 'pending', 0, '', '0xbb', 2000)");
        db.exec("INSERT INTO tx_journal (hash, blockchain_id, sender, nonce, raw, purpose, status, block_number, "
                "created_at, updated_at) VALUES ('0xbb', 'c', '0x11', 5, '0x02', '{}', 'pending', 0, 2000, 2000)");
    }
    auto store = open_sqlite_store(path);
    const auto done = store->mints().find_by_key({"u1", MintKind::role, "done-key"});
    REQUIRE(done);
    CHECK(done->state == store::MintState::done);
    CHECK(done->answer == R"({"success":true})");
    CHECK(done->fingerprint == "fp1");
    const auto sent = store->mints().find_by_key({"u1", MintKind::role, "sent-key"});
    REQUIRE(sent);
    CHECK(sent->state == store::MintState::pending);
    REQUIRE(store->journal().of_mint(sent->id).size() == 1);
    CHECK(store->journal().of_mint(sent->id)[0].nonce == 5);
    CHECK(store->mints().pending().size() == 1);
    // The keys still guard their mints.
    CHECK(store->mints().begin(mint_request("u1", MintKind::role, "sent-key", "fp2"))->id == sent->id);
}

TEST_CASE("store: a mint whose stored kind this release does not know is refused, naming it", "[store]") {
    test::TempDir dir;
    const std::string path = dir / "abci.db";
    auto store = open_sqlite_store(path);
    const auto mint = mint_request("u1", MintKind::entity, "k", "fp");
    REQUIRE_FALSE(store->mints().begin(mint));
    CHECK(store->mints().find(mint.id)->kind == MintKind::entity);
    {
        // As a later release with a kind of its own might have left it.
        SQLite::Database db(path, SQLite::OPEN_READWRITE);
        db.exec("UPDATE mint_requests SET kind = 'batch'");
    }
    try {
        (void)store->mints().find(mint.id);
        FAIL("read a mint of an unknown kind");
    } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::internal);
        CHECK_THAT(e.what(), Catch::Contains("'batch' is unknown to this release"));
    }
}
