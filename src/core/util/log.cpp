#include "core/util/log.hpp"

#include <atomic>
#include <cstdio>
#include <string>

namespace abci::util {

namespace {

void stderr_sink(LogLevel level, std::string_view message, const nlohmann::json& fields) {
    std::string line = std::string(to_string(level)) + ": " + std::string(message);
    if (!fields.empty()) line += " " + fields.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    line += '\n';
    std::fwrite(line.data(), 1, line.size(), stderr);
}

std::atomic<LogSink> g_sink{&stderr_sink};

}  // namespace

void set_log_sink(LogSink sink) noexcept { g_sink.store(sink ? sink : &stderr_sink); }

void log(LogLevel level, std::string_view message, const nlohmann::json& fields) noexcept {
    try {
        g_sink.load()(level, message, fields);
    } catch (...) {  // NOLINT(bugprone-empty-catch): a log line is never worth the caller's failure
    }
}

const char* to_string(LogLevel level) noexcept {
    switch (level) {
    case LogLevel::info: return "info";
    case LogLevel::warning: return "warning";
    case LogLevel::error: return "error";
    }
    return "error";
}

}  // namespace abci::util
