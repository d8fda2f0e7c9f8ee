#include "core/service/mint_metrics.hpp"

#include "core/service/tokens.hpp"

namespace abci::service {

MintMetrics::MintMetrics(metrics::Registry& registry, const std::string& chain) {
    auto& family = registry.counter("abcictl_mints_total",
                                    "Mints made final by this server, by token kind and outcome (each once, when its "
                                    "request's state changes)");
    constexpr TokenFamily kinds[] = {TokenFamily::role, TokenFamily::entity};
    constexpr const char* outcomes[] = {"confirmed", "failed", "abandoned"};
    for (std::size_t k = 0; k < 2; ++k)
        for (std::size_t o = 0; o < 3; ++o)
            counters_[k][o] = &family.add({{"chain", chain}, {"kind", std::string(to_string(kinds[k]))}, {"outcome", outcomes[o]}});
}

void MintMetrics::count(std::uint64_t token_id, MintOutcome outcome) {
    const auto kind = token_kind(token_id);
    if (!kind) return;
    counters_[kind->family == TokenFamily::role ? 0 : 1][static_cast<std::size_t>(outcome)]->increment();
}

}  // namespace abci::service
