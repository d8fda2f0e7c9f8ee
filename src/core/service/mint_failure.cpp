#include "core/service/mint_failure.hpp"

#include <nlohmann/json.hpp>

#include "core/util/json_members.hpp"

namespace abci::service {

std::string MintFailure::serialize() const {
    return nlohmann::json{{"version", kVersion}, {"kind", to_string(kind)}, {"message", message}}.dump();
}

MintFailure MintFailure::parse(const std::string& answer) {
    const auto parsed = nlohmann::json::parse(answer, nullptr, false);
    const util::RequiredMembers members(parsed, ErrorKind::internal, "a failed mint's stored answer cannot be read");
    (void)members.version(kVersion);  // version 1 is the only one so far
    const auto kind_name = members.text("kind");
    const auto kind = error_kind_named(kind_name);
    if (!kind) throw members.refusal("kind", "names no error kind this release knows: '" + kind_name + "'");
    return {*kind, members.text("message")};
}

}  // namespace abci::service
