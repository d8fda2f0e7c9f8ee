#include "serve/log.hpp"

#include <cstdio>
#include <mutex>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/util/time.hpp"

namespace abci::serve {

void log_line(std::string_view level, std::string_view message, const nlohmann::json& fields) {
    nlohmann::json line{{"time", util::format_iso8601_utc(std::chrono::system_clock::now())},
                        {"level", level},
                        {"msg", message}};
    if (fields.is_object()) line.update(fields);
    const auto text = line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    static std::mutex mutex;
    std::lock_guard lock(mutex);
    std::fwrite(text.data(), 1, text.size(), stderr);
    std::fflush(stderr);
}

namespace {
thread_local nlohmann::json request_fields = nlohmann::json::object();
}

void add_request_log_field(const std::string& key, const nlohmann::json& value) { request_fields[key] = value; }

nlohmann::json take_request_log_fields() { return std::exchange(request_fields, nlohmann::json::object()); }

}  // namespace abci::serve
