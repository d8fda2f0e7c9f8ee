#pragma once
// A spinner on stderr while a command waits (a mint for its receipt): only
// when stderr is a terminal and -q was not given; cleared when it ends.

#include <atomic>
#include <string>
#include <thread>

namespace abci::cli {

class Context;

class Spinner {
public:
    Spinner(const Context& ctx, std::string message);
    ~Spinner();
    Spinner(const Spinner&) = delete;
    Spinner& operator=(const Spinner&) = delete;

private:
    std::atomic<bool> done_{false};
    std::thread thread_;
};

}  // namespace abci::cli
