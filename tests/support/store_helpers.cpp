// The store backends the conformance suite (tests/store) can run on: a new
// backend joins by opening an empty store here and passing the suite.

#include "support/store_helpers.hpp"

#include <catch2/catch.hpp>

namespace abci::store::testing {

std::string& backend_under_test() {
    static std::string name = "sqlite";
    return name;
}

std::unique_ptr<Store> open_store_under_test(const test::TempDir& dir) {
    if (backend_under_test() == "sqlite") return open_sqlite_store(dir / "abci.db");
    FAIL("no store backend named '" << backend_under_test() << "' in this build");
    return nullptr;
}

}  // namespace abci::store::testing
