#include "serve/routes/abci_views.hpp"

#include "core/eth/bytes.hpp"
#include "core/util/time.hpp"

namespace abci::serve {

using nlohmann::json;

namespace {

json check_view(const service::HealthCheck& check) {
    json out = {{"healthy", check.healthy}};
    if (check.message) out["message"] = *check.message;
    if (check.chain_id) out["chainId"] = *check.chain_id;
    if (check.latest_block) out["latestBlock"] = *check.latest_block;
    if (check.latency_ms) out["latencyMs"] = *check.latency_ms;
    if (check.address) out["address"] = *check.address;
    if (check.version) out["version"] = *check.version;
    if (check.balance) out["balance"] = check.balance->to_dec();
    if (check.minimum_balance) out["minimumBalance"] = check.minimum_balance->to_dec();
    if (!check.stuck.empty()) {
        json stuck = json::array();
        for (const auto& tx : check.stuck)
            stuck.push_back({{"nonce", tx.nonce}, {"hash", eth::to_hex(tx.hash)}, {"ageSeconds", tx.age.count()}});
        out["stuck"] = std::move(stuck);
    }
    return out;
}

}  // namespace

json health_view(const service::HealthReport& report, const char* healthy_word, const char* unhealthy_word) {
    json checks = json::object();
    for (const auto& check : report.checks) checks[check.name] = check_view(check);
    return {{"status", report.healthy() ? healthy_word : unhealthy_word},
            {"checks", std::move(checks)},
            {"timestamp", util::format_iso8601_utc(report.checked_at)}};
}

int health_status(const service::HealthReport& report) { return report.healthy() ? 200 : 503; }

}  // namespace abci::serve
