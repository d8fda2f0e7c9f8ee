#pragma once
// Captures what core logs (util::log) while it lives, for tests that check a
// failure reaches the operator. One at a time: the sink is process-wide.

#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/util/log.hpp"

namespace abci::test {

class LogCapture {
public:
    struct Line {
        util::LogLevel level;
        std::string message;
        nlohmann::json fields;
    };

    LogCapture() { util::set_log_sink(&LogCapture::sink); }
    ~LogCapture() {
        util::set_log_sink(nullptr);
        std::lock_guard lock(mutex());
        lines().clear();
    }
    LogCapture(const LogCapture&) = delete;
    LogCapture& operator=(const LogCapture&) = delete;

    /// The lines logged so far whose message contains `text`.
    [[nodiscard]] std::vector<Line> containing(const std::string& text) const {
        std::lock_guard lock(mutex());
        std::vector<Line> found;
        for (const auto& line : lines())
            if (line.message.find(text) != std::string::npos) found.push_back(line);
        return found;
    }

private:
    static void sink(util::LogLevel level, std::string_view message, const nlohmann::json& fields) {
        std::lock_guard lock(mutex());
        lines().push_back({level, std::string(message), fields});
    }
    static std::mutex& mutex() {
        static std::mutex m;
        return m;
    }
    static std::vector<Line>& lines() {
        static std::vector<Line> l;
        return l;
    }
};

}  // namespace abci::test
