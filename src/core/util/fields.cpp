#include "core/util/fields.hpp"

#include "core/error.hpp"

namespace abci::util {

std::string Fields::required_string(const std::string& key, std::size_t max_length) {
    const auto it = body_.find(key);
    if (it == body_.end() || it->is_null()) {
        problems_.push_back(key + " is required");
        return {};
    }
    if (!it->is_string()) {
        problems_.push_back(key + " must be a string");
        return {};
    }
    auto value = it->get<std::string>();
    if (value.empty()) problems_.push_back(key + " must not be empty");
    if (value.size() > max_length) problems_.push_back(key + " must be at most " + std::to_string(max_length) + " bytes");
    return value;
}

std::optional<std::string> Fields::optional_string(const std::string& key, std::size_t max_length) {
    const auto it = body_.find(key);
    if (it == body_.end() || it->is_null()) return std::nullopt;
    return required_string(key, max_length);
}

void Fields::check(bool ok, const std::string& problem) {
    if (!ok) problems_.push_back(problem);
}

void Fields::done() const {
    if (!problems_.empty()) throw Error(ErrorKind::invalid_input, "invalid request", problems_);
}

}  // namespace abci::util
