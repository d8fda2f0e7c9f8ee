#pragma once
// What the ABCI commands share: one authenticated call, and the part of an
// ABCI envelope that --json prints ({data, metadata}, stable for scripts).

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/api_client.hpp"

namespace abci::cli {

class Context;

/// Calls the server named by the options with the profile's credentials
/// (session refreshed when needed, or ABCICTL_TOKEN) and returns the body of a
/// 2xx answer; throws what ApiClient::call and authenticated_client throw.
[[nodiscard]] nlohmann::json api_call(Context& ctx, const std::string& method, const std::string& path,
                                      const QueryParams& query = {},
                                      const std::optional<nlohmann::json>& body = std::nullopt,
                                      const std::vector<std::pair<std::string, std::string>>& headers = {});

/// {data, metadata} of an envelope {success, data, metadata}.
[[nodiscard]] nlohmann::json data_and_metadata(const nlohmann::json& envelope);


/// A token id as typed: a role (producer…) or an entity category (report…)
/// becomes its fixed id (each names exactly one token), anything else is sent as is.
[[nodiscard]] std::string token_id_argument(const std::string& text);

/// A JSON value as table text: strings bare, null as "-", others dumped.
[[nodiscard]] std::string cell(const nlohmann::json& value);

}  // namespace abci::cli
