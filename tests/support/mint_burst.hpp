#pragma once
// The answers of a burst of concurrent mints while their signer fails
// (a token removed, a remote signer stopped): each either minted or failed
// saying why, never anything in between.

#include <catch2/catch.hpp>

#include <future>
#include <string>
#include <vector>

#include "support/serve.hpp"

namespace abci::test {

/// Waits for every answer; checks (Catch2) that each one that is not a 200
/// is a 503 whose body contains `failure_says`; returns how many were 200.
inline int count_minted(std::vector<std::future<HttpResponse>>& answers, const std::string& failure_says) {
    int minted = 0;
    for (auto& answer : answers) {
        const auto r = answer.get();
        INFO(r.body);
        if (r.status == 200) {
            ++minted;
        } else {
            CHECK(r.status == 503);
            CHECK_THAT(r.body, Catch::Contains(failure_says));
        }
    }
    return minted;
}

}  // namespace abci::test
