#include "cli/api_call.hpp"

#include "cli/context.hpp"
#include "cli/session.hpp"
#include "core/service/tokens.hpp"

namespace abci::cli {

nlohmann::json api_call(Context& ctx, const std::string& method, const std::string& path, const QueryParams& query,
                        const std::optional<nlohmann::json>& body,
                        const std::vector<std::pair<std::string, std::string>>& headers) {
    StateDb state(StateDb::default_path());
    auto client = authenticated_client(ctx.options, state);
    return client->call(method, path, query, body, headers);
}

nlohmann::json data_and_metadata(const nlohmann::json& envelope) {
    return {{"data", envelope.value("data", nlohmann::json(nullptr))},
            {"metadata", envelope.value("metadata", nlohmann::json(nullptr))}};
}

std::string token_id_argument(const std::string& text) {
    if (const auto kind = service::role_token(text)) return std::to_string(kind->id);
    if (const auto kind = service::entity_token(text)) return std::to_string(kind->id);
    return text;
}

std::string cell(const nlohmann::json& value) {
    if (value.is_null()) return "-";
    if (value.is_string()) return value.get<std::string>();
    return value.dump();
}

}  // namespace abci::cli
