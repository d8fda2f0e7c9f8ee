#pragma once
// abcictl_mints_total of one chain (docs/metrics.md): a mint counted once,
// when this server's write makes its request final (store::Mints::finish or
// release returned true). A receipt read twice, a reorg's re-broadcast mined
// again, or another replica settling the same mint finds it final already
// and counts nothing, which is why the count follows the mint's row and not
// the journal's transactions (a reorg takes those back to pending).

#include <cstdint>
#include <string>

#include "core/metrics/registry.hpp"

namespace abci::service {

enum class MintOutcome {
    confirmed,  // the chain holds the token with its confirmations
    failed,     // the chain or the node refused it: reverted, or refused before it was mined
    abandoned,  // nothing signed for it can be mined any more: dropped, replaced by a filler, lost in a reset
};

class MintMetrics {
public:
    MintMetrics(metrics::Registry& registry, const std::string& chain);
    /// One mint of token `token_id` made final with `outcome` (an unknown token id counts nowhere).
    void count(std::uint64_t token_id, MintOutcome outcome);

private:
    metrics::Counter* counters_[2][3];  // by TokenFamily, then MintOutcome
};

}  // namespace abci::service
