#pragma once
// Waiting on a state that another thread or process reaches: polls `done`
// every `every` (20 ms unless a poll costs the server more than a read) until
// it holds or `limit` passes; the result says which.

#include <chrono>
#include <thread>

namespace abci::test {

template <class Done>
bool eventually(Done done, std::chrono::milliseconds limit = std::chrono::seconds(30),
                std::chrono::milliseconds every = std::chrono::milliseconds(20)) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!done()) {
        if (std::chrono::steady_clock::now() >= deadline) return done();
        std::this_thread::sleep_for(every);
    }
    return true;
}

}  // namespace abci::test
