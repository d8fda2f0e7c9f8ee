// The SQLite connection pool on a real WAL database file: concurrent writers
// all get the lock (its busy handler waits for the pool's commits), its WAL
// hook keeps checkpointing, and a lock held from outside the pool is waited
// for up to kBusyTimeoutMs, then reported as SQLITE_BUSY.

#include <SQLiteCpp/SQLiteCpp.h>
#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <future>
#include <latch>

#include "core/store/connection_pool.hpp"
#include "support/store_helpers.hpp"

using namespace std::chrono_literals;

// Everything in a namespace of its own: the suite is built as one translation unit.
namespace connection_pool_test {

using abci::store::sqlite::ConnectionPool;
using Clock = std::chrono::steady_clock;

// A WAL database with one table, created and closed (so checkpointed, its
// WAL removed) before the pool opens it; the pool opens existing files only.
struct Database {
    abci::test::TempDir dir;
    std::string path = dir / "pool.db";

    Database() {
        SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
        db.exec("PRAGMA journal_mode = WAL");
        db.exec("CREATE TABLE rows (id INTEGER PRIMARY KEY, writer INTEGER NOT NULL, pad BLOB NOT NULL)");
    }
    [[nodiscard]] std::uintmax_t size(const std::string& suffix = "") const {
        std::error_code ec;
        const auto n = std::filesystem::file_size(path + suffix, ec);
        return ec ? 0 : n;
    }
};

void insert_row(ConnectionPool& pool, int writer) {
    auto lease = pool.acquire();
    (*lease).exec("INSERT INTO rows (writer, pad) VALUES (" + std::to_string(writer) + ", randomblob(200))");
}

std::int64_t count_rows(ConnectionPool& pool) {
    auto lease = pool.acquire();
    return (*lease).execAndGet("SELECT count(*) FROM rows").getInt64();
}

// Runs `f`, which must throw SQLite::Exception, and returns its error code.
template <class F>
int sqlite_error_code(F&& f) {
    try {
        f();
    } catch (const SQLite::Exception& e) {
        return e.getErrorCode();
    }
    FAIL("expected a SQLite::Exception, none was thrown");
    return SQLITE_OK;
}

// A connection of its own, outside the pool (as another process would be),
// holding the write lock from construction until release() commits (closing
// it unreleased rolls back).
class OutsideWriter {
public:
    explicit OutsideWriter(const std::string& path) : db_(path, SQLite::OPEN_READWRITE) {
        db_.exec("BEGIN IMMEDIATE");
        db_.exec("INSERT INTO rows (writer, pad) VALUES (-1, x'00')");
    }
    OutsideWriter(const OutsideWriter&) = delete;
    OutsideWriter& operator=(const OutsideWriter&) = delete;

    void release() {
        if (sqlite3_get_autocommit(db_.getHandle()) == 0) db_.exec("COMMIT");
    }

private:
    SQLite::Database db_;
};

using abci::store::testing::on_threads;

TEST_CASE("connection pool: 16 threads x 200 inserts through 8 connections all commit, the WAL checkpointed",
          "[store][connection_pool]") {
    Database db;
    const auto main_before = db.size();
    constexpr int kThreads = 16;
    constexpr int kInsertsEach = 200;
    {
        ConnectionPool pool(db.path, 8);
        on_threads(kThreads, [&](int t) {
            for (int i = 0; i < kInsertsEach; ++i) insert_row(pool, t);
        });
        CHECK(count_rows(pool) == kThreads * kInsertsEach);

        // The pool's connections all stay open, so only the WAL hook's
        // automatic checkpoints can have moved pages into the main file.
        CHECK(db.size() > main_before);

        // While writers keep coming, each begins before the last checkpoint
        // is done and the WAL rarely starts over (its file then grows past
        // the 1000 pages, as with SQLite's own hook); once writes pause, it
        // does. Two lone commits: the first checkpoints what is left of a
        // WAL past 1000 pages, the second starts the WAL over. Without the
        // hook's checkpoints the WAL would hold a frame per commit, 3200 or more.
        insert_row(pool, kThreads);
        insert_row(pool, kThreads);
        auto lease = pool.acquire();
        SQLite::Statement checkpoint(*lease, "PRAGMA wal_checkpoint(PASSIVE)");
        REQUIRE(checkpoint.executeStep());
        CHECK(checkpoint.getColumn(1).getInt() < 1000 + 10);  // frames in the WAL
    }
    // Every row reached the file, as a connection outside the pool sees it.
    SQLite::Database check(db.path, SQLite::OPEN_READWRITE);
    CHECK(check.execAndGet("SELECT count(*) FROM rows").getInt() == kThreads * kInsertsEach + 2);
}

TEST_CASE("connection pool: a writer waits for a lock held outside the pool, then commits", "[store][connection_pool]") {
    Database db;
    ConnectionPool pool(db.path, 2);
    insert_row(pool, 0);  // the connection is open and configured before the lock is taken

    std::latch locked(1);
    std::jthread outside([&] {
        OutsideWriter writer(db.path);
        locked.count_down();
        std::this_thread::sleep_for(200ms);  // how long the lock is held: what the writer must wait out
        writer.release();
    });
    locked.wait();
    const auto start = Clock::now();
    insert_row(pool, 1);
    const auto waited = Clock::now() - start;
    outside.join();
    CHECK(waited >= 100ms);  // it did wait for the lock (most of the 200 ms)…
    CHECK(waited < 2s);      // …and took it promptly once free
    CHECK(count_rows(pool) == 3);
}

TEST_CASE("connection pool: a lock held outside the pool beyond kBusyTimeoutMs fails the writer with SQLITE_BUSY",
          "[store][connection_pool]") {
    Database db;
    ConnectionPool pool(db.path, 2);
    insert_row(pool, 0);

    std::latch locked(1);
    std::promise<void> writer_done;
    std::jthread outside([&, done = writer_done.get_future()] {
        OutsideWriter writer(db.path);
        locked.count_down();
        (void)done.wait_for(std::chrono::milliseconds(abci::store::sqlite::kBusyTimeoutMs) + 10s);
        writer.release();
    });
    locked.wait();
    const auto start = Clock::now();
    const int code = sqlite_error_code([&] { insert_row(pool, 1); });
    const auto waited = Clock::now() - start;
    writer_done.set_value();
    outside.join();
    CHECK(code == SQLITE_BUSY);
    CHECK(waited >= std::chrono::milliseconds(abci::store::sqlite::kBusyTimeoutMs));
    CHECK(waited < std::chrono::milliseconds(abci::store::sqlite::kBusyTimeoutMs) + 3s);
    // The failed statement left no transaction open: the connection is reused and writes again.
    insert_row(pool, 2);
    CHECK(count_rows(pool) == 3);
}

}  // namespace connection_pool_test
