#pragma once
// Core's one way to tell the operator something no caller is waiting to hear
// (a reconciliation that keeps failing, a chain that was reset). Front ends
// install their own sink (serve: a JSON line on stderr); without one, lines go
// to stderr as "level: message". Never pass secrets.

#include <string_view>

#include <nlohmann/json.hpp>

namespace abci::util {

enum class LogLevel { info, warning, error };

using LogSink = void (*)(LogLevel level, std::string_view message, const nlohmann::json& fields);

/// Installs `sink` (null: the default). Call once at start, before threads log.
void set_log_sink(LogSink sink) noexcept;

/// Never throws: a failing sink loses the line, not the caller's work.
void log(LogLevel level, std::string_view message, const nlohmann::json& fields = nlohmann::json::object()) noexcept;

[[nodiscard]] const char* to_string(LogLevel level) noexcept;

}  // namespace abci::util
