#pragma once
// Asserting on the kind of abci::Error a call throws (core code throws only
// abci::Error, and tests must not match on messages).

#include <catch2/catch.hpp>

#include <string>

#include "core/error.hpp"

namespace abci::test {

/// Runs `f` and returns the kind of the abci::Error it throws. Fails the
/// current test when it throws nothing; any other exception propagates.
template <class F>
[[nodiscard]] ErrorKind error_kind(F&& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.kind();
    }
    FAIL("expected an abci::Error, but nothing was thrown");
    return ErrorKind::internal;  // not reached: FAIL throws
}

/// Runs `f`, which must throw an abci::Error of `kind`, and returns its
/// message: for a refusal whose message must name what it refused (the
/// member of a stored record that cannot be read).
template <class F>
[[nodiscard]] std::string error_message(ErrorKind kind, F&& f) {
    try {
        f();
    } catch (const Error& e) {
        CHECK(e.kind() == kind);
        return e.what();
    }
    FAIL("expected an abci::Error, but nothing was thrown");
    return {};  // not reached: FAIL throws
}

}  // namespace abci::test
