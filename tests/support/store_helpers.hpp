#pragma once
// A fresh store of the backend under test (the store conformance suite,
// tests/store, runs once per backend: `--store-backend NAME`), and what the
// store tests share.

#include <exception>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/crypto/encoding.hpp"
#include "core/store/store.hpp"
#include "support/cli_runner.hpp"

namespace abci::store::testing {

/// The backend this run tests: catch_main's --store-backend, "sqlite" when not given.
std::string& backend_under_test();

/// An empty store of the backend under test, in (or keyed to) `dir`.
/// Fails the test for a backend this build does not know.
std::unique_ptr<Store> open_store_under_test(const test::TempDir& dir);

/// A schema version of each backend: SQLite's user_version, PostgreSQL's
/// schema_version (their numbers differ: PostgreSQL's first script is
/// SQLite's first several).
struct SchemaVersion {
    int sqlite;
    int postgresql;
};

/// A store of the backend under test as an earlier release left it: its
/// schema migrated up to `version` only, then `statements` (that schema's
/// SQL, the same text on both backends) run, then opened by this release,
/// which applies the migrations after `version`.
std::unique_ptr<Store> open_store_under_test_from(const test::TempDir& dir, SchemaVersion version,
                                                  const std::vector<std::string>& statements);

struct FreshStore {
    test::TempDir dir;
    std::unique_ptr<Store> store = open_store_under_test(dir);
};

/// A time with the store's precision (milliseconds), `offset` away from now.
inline TimePoint millis_from_now(std::chrono::milliseconds offset) {
    using namespace std::chrono;
    return time_point_cast<milliseconds>(system_clock::now()) + offset;
}

inline User add_user(Store& store, const std::string& email, const std::string& role = "farmer") {
    return store.users().create(NewUser{email, role, false});
}

/// A new mint for Mints::begin, with a fresh id ("" key: none).
inline MintRequest mint_request(const std::string& actor, MintKind kind, const std::string& key,
                                const std::string& fingerprint) {
    MintRequest mint;
    mint.id = crypto::random_uuid();
    mint.actor = actor;
    mint.kind = kind;
    mint.blockchain_id = "chain";
    mint.idempotency_key = key;
    mint.fingerprint = fingerprint;
    return mint;
}

/// Runs `work(t)` on `threads` threads at once; the first exception any of
/// them threw is rethrown here (Catch2's assertions are not thread-safe, so
/// threads only collect and the test asserts after the join).
template <class Work>
void on_threads(int threads, Work work) {
    std::vector<std::exception_ptr> errors(static_cast<std::size_t>(threads));
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
        pool.emplace_back([&, t] {
            try {
                work(t);
            } catch (...) {
                errors[static_cast<std::size_t>(t)] = std::current_exception();
            }
        });
    }
    for (auto& th : pool) th.join();
    for (const auto& e : errors) {
        if (e) std::rethrow_exception(e);
    }
}

}  // namespace abci::store::testing
