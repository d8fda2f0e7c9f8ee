#include "cli/progress.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "cli/context.hpp"

namespace abci::cli {

Spinner::Spinner(const Context& ctx, std::string message) {
    if (ctx.options.quiet || !::isatty(STDERR_FILENO)) return;
    thread_ = std::thread([this, message = std::move(message)] {
        static constexpr const char* kFrames[] = {"|", "/", "-", "\\"};
        const auto start = std::chrono::steady_clock::now();
        for (unsigned i = 0; !done_.load(); ++i) {
            const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - start).count();
            std::fprintf(stderr, "\r%s %s (%llds)", kFrames[i % 4], message.c_str(), static_cast<long long>(seconds));
            std::fflush(stderr);
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        std::fprintf(stderr, "\r\033[K");
        std::fflush(stderr);
    });
}

Spinner::~Spinner() {
    done_ = true;
    if (thread_.joinable()) thread_.join();
}

}  // namespace abci::cli
