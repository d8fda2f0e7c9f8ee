#pragma once
// A fresh SQLite store in its own temporary directory, for the [store] tests.

#include <memory>
#include <string>

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

}  // namespace abci::store::testing
