#pragma once
// A fresh SQLite store in its own temporary directory, for the [store] tests.

#include <exception>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/crypto/encoding.hpp"
#include "core/store/store.hpp"
#include "support/cli_runner.hpp"

namespace abci::store::testing {

struct FreshStore {
    test::TempDir dir;
    std::string path = dir / "abci.db";
    std::unique_ptr<Store> store = open_sqlite_store(path);
};

/// A time with the store's precision (milliseconds), `offset` away from now.
inline TimePoint millis_from_now(std::chrono::milliseconds offset) {
    using namespace std::chrono;
    return time_point_cast<milliseconds>(system_clock::now()) + offset;
}

inline User add_user(Store& store, const std::string& email, const std::string& role = "farmer") {
    return store.create_user(NewUser{email, role, false});
}

/// A new mint for begin_mint, with a fresh id ("" key: none).
inline MintRequest mint_request(const std::string& actor, const std::string& route, const std::string& key,
                                const std::string& fingerprint) {
    MintRequest mint;
    mint.id = crypto::random_uuid();
    mint.actor = actor;
    mint.route = route;
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
