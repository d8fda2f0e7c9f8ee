#include "core/signer/watch.hpp"

#include <exception>
#include <utility>

#include "core/util/log.hpp"

namespace abci::signer {

Watch::Watch(std::string name, std::optional<std::string> first, Check check, std::chrono::milliseconds period)
    : name_(std::move(name)), check_(std::move(check)), period_(period), last_(std::move(first)),
      thread_([this] { run(); }) {}

Watch::~Watch() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
}

std::optional<std::string> Watch::last() const {
    std::lock_guard lock(mutex_);
    return last_;
}

void Watch::run() {
    std::unique_lock lock(mutex_);
    while (!wake_.wait_for(lock, period_, [this] { return stopping_; })) {
        lock.unlock();
        std::optional<std::string> found;
        try {
            found = check_();
        } catch (const std::exception& e) {
            // Whatever stopped the check, the signer is not known to sign: /readyz shows it.
            found = e.what();
        }
        lock.lock();
        if (found.has_value() != last_.has_value()) {
            if (found)
                util::log(util::LogLevel::warning, "the signer cannot sign: not ready until it can",
                          {{"signer", name_}, {"error", *found}});
            else
                util::log(util::LogLevel::info, "the signer can sign again", {{"signer", name_}});
        }
        last_ = std::move(found);
    }
}

}  // namespace abci::signer
