#pragma once
// The chain as the oracle of a chaos run, read straight from anvil with cast
// (never through the server or its code): every recipient holds exactly what
// it was sent, every 200 names a successful transaction of the signer to the
// token, no transaction of the signer to the token is left unnamed, nothing
// is left in the node's pool (no nonce gap, nothing stuck), and a repeat of
// each key (or a keyless mint's status) gets its first answer.

#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

#include "chaos/burst.hpp"
#include "chaos/figures.hpp"

namespace abci::test::chaos {

/// Where a run starts on chain.
struct ChainMark {
    std::uint64_t block = 0;
    std::uint64_t nonce = 0;  // the signer's, at `block`
};
[[nodiscard]] ChainMark mark(ChainServer& chain);

/// What the chain went through that changes what it can show.
struct Circumstances {
    /// The chain was reset to genesis (and the token deployed again), done
    /// at this moment: a 200 that came before may name a transaction of the
    /// chain that is gone. Such a mint's recipient holds nothing on the new
    /// chain, or exactly its amount by the transaction the answer named (its
    /// bytes sent again); anything else is a finding.
    std::optional<std::chrono::steady_clock::time_point> chain_reset_done;
};

/// Fills `figures` (mints, answered, unknown, duplicates, lost, stray, wrong,
/// worst time) from the chain after `mints` settled as `settled`, the run
/// having started at `start`; prints each finding (what and whose) as it goes
/// and CHECKs what the counts cannot show: the signer's nonce moved by exactly
/// its transactions found in the run's blocks, and the node's pool is empty.
/// Every keyed mint is sent once more with its key and must get its first
/// answer; a keyless mint learned through its status must show it again
/// there. A keyless mint whose outcome stayed unknown may have landed once
/// or not at all, and its transaction (found by its recipient in the
/// token's TransferSingle events) is not a stray.
void judge(ChainServer& chain, const ChainMark& start, const Http& http, const std::string& token,
           const std::vector<Mint>& mints, const std::vector<Settled>& settled, Figures& figures,
           const Circumstances& circumstances = {});

/// Records `figures` and checks that the run kept the promise: every mint
/// answered, none twice, none lost, no stray transaction, no wrong answer.
void require_exactly_once(const Figures& figures);

}  // namespace abci::test::chaos
