#pragma once
// The chain as the oracle of a chaos run, read straight from anvil with cast
// (never through the server or its code): every recipient holds exactly what
// it was sent, every 200 names a successful transaction of the signer to the
// token, no transaction of the signer to the token is left unnamed, nothing
// is left in the node's pool (no nonce gap, nothing stuck), and a repeat of
// each key gets its first answer.

#include <cstdint>
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

/// Fills `figures` (mints, answered, duplicates, lost, stray, wrong, worst
/// time) from the chain after `burst` settled as `settled`, the run having
/// started at `start`; prints each finding (what and whose) as it goes and
/// CHECKs what the counts cannot show: the signer's nonce moved by exactly its
/// transactions found in the run's blocks, and the node's pool is empty.
void judge(ChainServer& chain, const ChainMark& start, const Http& http, const std::string& token,
           const Burst& burst, const std::vector<Settled>& settled, Figures& figures);

/// Records `figures` and checks that the run kept the promise: every mint
/// answered, none twice, none lost, no stray transaction, no wrong answer.
void require_exactly_once(const Figures& figures);

}  // namespace abci::test::chaos
