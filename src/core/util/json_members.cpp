#include "core/util/json_members.hpp"

namespace abci::util {

MemberError::MemberError(ErrorKind kind, const std::string& context, std::string member, const std::string& problem)
    : Error(kind, context + ": " + problem), member_(std::move(member)) {}

RequiredMembers::RequiredMembers(const nlohmann::json& object, ErrorKind kind, std::string context)
    : object_(object), kind_(kind), context_(std::move(context)) {
    if (!object_.is_object()) throw MemberError(kind_, context_, "", "it is no JSON object");
}

const nlohmann::json& RequiredMembers::any(std::string_view name) const {
    const auto it = object_.find(name);
    if (it == object_.end())
        throw MemberError(kind_, context_, std::string(name), "it has no \"" + std::string(name) + "\"");
    return *it;
}

std::string RequiredMembers::text(std::string_view name) const {
    const auto& value = any(name);
    if (!value.is_string()) throw refusal(name, "is no string");
    return value.get<std::string>();
}

std::string RequiredMembers::nonempty_text(std::string_view name) const {
    auto value = text(name);
    if (value.empty()) throw refusal(name, "is empty");
    return value;
}

std::uint64_t RequiredMembers::count(std::string_view name) const {
    const auto& value = any(name);
    // Parsed text holds a non-negative integer as unsigned, a value built in C++ may hold it as signed.
    if (!value.is_number_integer() || (!value.is_number_unsigned() && value.get<std::int64_t>() < 0))
        throw refusal(name, "is no non-negative integer");
    return value.get<std::uint64_t>();
}

std::uint64_t RequiredMembers::version(std::uint64_t newest) const {
    const std::uint64_t version = has("version") ? count("version") : 1;
    if (version > newest)
        throw Error(kind_, context_ + ": it is version " + std::to_string(version) + ", this release reads versions up to " +
                               std::to_string(newest) + ": run the release that wrote it");
    return version;
}

MemberError RequiredMembers::refusal(std::string_view name, const std::string& problem) const {
    return MemberError(kind_, context_, std::string(name), "its \"" + std::string(name) + "\" " + problem);
}

}  // namespace abci::util
