// sqlite::Db::transaction on a real database file: writers that arrive
// together are committed together, each work in a savepoint, so a work that
// fails is undone alone and only its caller sees its error, every other
// caller gets its own result, and a transaction begun from inside another's
// work is refused instead of waiting for ever.

#include <catch2/catch.hpp>
#include <latch>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/os/private_file.hpp"
#include "core/store/sqlite/sqlite.hpp"
#include "support/store_helpers.hpp"

// Everything in a namespace of its own: the suite is built as one translation unit.
namespace group_commit_test {

using abci::Error;
using abci::ErrorKind;
using abci::store::sqlite::Database;
using abci::store::sqlite::Db;
using abci::store::sqlite::execute;
using abci::store::sqlite::query_one;
using abci::store::sqlite::Row;

// The path, its file created first: the store opens existing files only.
const std::string& created(const std::string& path) {
    (void)abci::os::create_private_file(path);
    return path;
}

struct Fixture {
    abci::test::TempDir dir;
    std::string path = dir / "group.db";
    Db db{created(path)};

    Fixture() {
        db.transaction({}, [](Database& c) { c.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, writer INTEGER NOT NULL)"); });
    }
    std::int64_t rows() {
        return *db.run({}, [](Database& c) {
            return query_one(c, "SELECT count(*) AS n FROM t", [](const Row& r) { return r.integer("n"); });
        });
    }
};

TEST_CASE("sqlite transactions: concurrent writers each get their own result, and a failing work is undone alone",
          "[unit][store][sqlite]") {
    Fixture f;
    constexpr int kThreads = 16;
    constexpr int kEach = 40;
    // Every fifth work inserts a row and then one that collides with it: its
    // first row must go with it, and it must not take the others down.
    std::vector<int> committed(kThreads, 0), conflicts(kThreads, 0), wrong(kThreads, 0);
    std::latch start(kThreads);
    std::vector<std::thread> threads;
    for (int w = 0; w < kThreads; ++w)
        threads.emplace_back([&, w] {
            start.arrive_and_wait();
            for (int i = 0; i < kEach; ++i) {
                const int id = w * kEach + i + 1;
                try {
                    const int got = f.db.transaction({.conflict = "the row exists"}, [&](Database& c) {
                        execute(c, "INSERT INTO t (id, writer) VALUES (?, ?)", id, w);
                        if (i % 5 == 4) execute(c, "INSERT INTO t (id, writer) VALUES (?, ?)", id, w);
                        return id;
                    });
                    if (got == id) ++committed[w]; else ++wrong[w];
                } catch (const Error& e) {
                    if (e.kind() == ErrorKind::conflict && std::string(e.what()) == "the row exists") ++conflicts[w];
                    else ++wrong[w];
                }
            }
        });
    for (auto& t : threads) t.join();
    for (int w = 0; w < kThreads; ++w) {
        CHECK(committed[w] == kEach - kEach / 5);
        CHECK(conflicts[w] == kEach / 5);
        CHECK(wrong[w] == 0);
    }
    CHECK(f.rows() == kThreads * (kEach - kEach / 5));
}

TEST_CASE("sqlite transactions: a work's own exception reaches its caller alone, its writes undone",
          "[unit][store][sqlite]") {
    Fixture f;
    CHECK_THROWS_AS(f.db.transaction({}, [](Database& c) {
        execute(c, "INSERT INTO t (id, writer) VALUES (1, 1)");
        throw std::runtime_error("the work gave up");
    }), std::runtime_error);
    f.db.transaction({}, [](Database& c) { execute(c, "INSERT INTO t (id, writer) VALUES (2, 2)"); });
    CHECK(f.rows() == 1);
}

TEST_CASE("sqlite transactions: one begun inside another's work is refused, not waited for",
          "[unit][store][sqlite]") {
    Fixture f;
    bool inner_refused = false;
    f.db.transaction({}, [&](Database& c) {
        execute(c, "INSERT INTO t (id, writer) VALUES (1, 1)");
        try {
            f.db.transaction({}, [](Database& inner) { execute(inner, "INSERT INTO t (id, writer) VALUES (2, 2)"); });
        } catch (const Error& e) {
            inner_refused = e.kind() == ErrorKind::internal;
        }
    });
    CHECK(inner_refused);
    CHECK(f.rows() == 1);
}

}  // namespace group_commit_test
