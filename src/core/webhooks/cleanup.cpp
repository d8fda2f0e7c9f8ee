#include "core/webhooks/cleanup.hpp"

#include "core/error.hpp"
#include "core/util/log.hpp"

namespace abci::webhooks {

DeliveryCleanup::DeliveryCleanup(store::Store& store, CleanupSettings settings)
    : store_(store), settings_(settings), thread_([this] { run(); }) {}

DeliveryCleanup::~DeliveryCleanup() {
    {
        const std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    stop_.notify_all();
    thread_.join();
}

void DeliveryCleanup::run() {
    for (;;) {
        remove_old();
        std::unique_lock lock(mutex_);
        if (stop_.wait_for(lock, settings_.interval, [&] { return stopping_; })) return;
    }
}

void DeliveryCleanup::remove_old() {
    const auto before = std::chrono::system_clock::now() - settings_.keep_deliveries;
    std::size_t removed = 0;
    try {
        for (;;) {
            const auto batch = store_.webhooks().remove_finished_deliveries(before, settings_.batch);
            removed += batch;
            const std::lock_guard lock(mutex_);
            if (batch < settings_.batch || stopping_) break;
        }
    } catch (const Error& e) {
        // Tried again at the next look; nothing waits on it meanwhile.
        util::log(util::LogLevel::warning, "removing old webhook deliveries failed",
                  {{"error", e.what()}, {"kind", to_string(e.kind())}});
    }
    if (removed > 0)
        util::log(util::LogLevel::info, "removed old webhook deliveries",
                  {{"deliveries", removed},
                   {"keep_deliveries_seconds", settings_.keep_deliveries.count()}});
}

}  // namespace abci::webhooks
