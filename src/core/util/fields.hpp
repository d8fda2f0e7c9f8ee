#pragma once
// Reading a JSON request body field by field while collecting every problem,
// so a 400 lists all of them at once (spec §7: details is the list of
// validation errors) instead of the first.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace abci::util {

class Fields {
public:
    explicit Fields(const nlohmann::json& body) : body_(body) {}

    /// A non-empty string of at most `max_length` bytes; records a problem otherwise.
    std::string required_string(const std::string& key, std::size_t max_length = 1024);
    /// Absent or null → nothing; otherwise as required_string.
    std::optional<std::string> optional_string(const std::string& key, std::size_t max_length = 1024);
    /// Records `problem` when `ok` is false.
    void check(bool ok, const std::string& problem);
    /// Throws Error(invalid_input, "invalid request", problems) when any were recorded.
    void done() const;

private:
    const nlohmann::json& body_;
    std::vector<std::string> problems_;
};

}  // namespace abci::util
