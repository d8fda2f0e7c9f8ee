#include "cli/chain_list.hpp"

#include "cli/api_client.hpp"
#include "cli/context.hpp"
#include "cli/session.hpp"

namespace abci::cli {
namespace {

constexpr auto kChainCacheTtl = std::chrono::minutes(5);

std::string age(std::chrono::system_clock::duration elapsed) {
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(elapsed).count();
    return seconds < 120 ? std::to_string(seconds) + " s" : std::to_string(seconds / 60) + " min";
}

}  // namespace

ChainList chain_list(Context& ctx, bool refresh) {
    StateDb state(StateDb::default_path());
    auto client = authenticated_client(ctx.options, state);
    const auto now = std::chrono::system_clock::now();
    const auto cached = refresh ? std::nullopt : state.cached_chains(client->base_url());
    if (cached && now - cached->fetched_at < kChainCacheTtl) {
        const std::string when = "cached " + age(now - cached->fetched_at) + " ago";
        // A cheap question says whether the server restarted since (a new devnet may have other chains and URLs).
        try {
            if (client->send("GET", "/api/auth/me").instance == cached->instance)
                return {nlohmann::json::parse(cached->answer), when};
        } catch (const Error& e) {
            if (e.kind() != ErrorKind::unavailable && e.kind() != ErrorKind::timeout) throw;
            return {nlohmann::json::parse(cached->answer), when + ": the server at " + client->base_url() + " did not answer"};
        }
    }
    auto response = client->send("GET", "/abci/blockchains/list");
    if (response.status < 200 || response.status >= 300) throw error_from_response(response);
    state.cache_chains(client->base_url(), {response.body.dump(), now, response.instance});
    return {std::move(response.body), ""};
}

std::string block_explorer(Context& ctx, const std::string& blockchain_id) {
    const auto list = chain_list(ctx, false);
    for (const auto& chain : list.answer.at("data")) {
        if (chain.value("id", "") != blockchain_id || !chain.contains("blockExplorer") || !chain["blockExplorer"].is_string())
            continue;
        std::string url = chain["blockExplorer"].get<std::string>();
        while (!url.empty() && url.back() == '/') url.pop_back();
        return url;
    }
    return {};
}

}  // namespace abci::cli
