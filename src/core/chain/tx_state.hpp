#pragma once
// The life of one journaled transaction (docs/decisions.md, "One state machine
// for journaled transactions"). The TxSender is the only writer of these
// states, for what it sends live and for what reconciliation hands back to it
// at start (TxSender::adopt), so both follow the same rules:
//
//   pending ──► mined | reverted      a receipt with the chain's confirmations
//      │
//      ├──────► replaced              another version with its nonce (fee bump, filler) was mined
//      ├──────► dropped               proven: the nonce is consumed on chain and none of
//      │                              the versions journaled for it has a receipt
//      ├──────► refused               the node refused it outright and its nonce was
//      │                              given back: it was never accepted, and is never sent again
//      └──────► abandoned             given up by the operator (`abcictl admin journal abandon`)
//
// Only three ways lead back from a final status, the first two noticed by the
// sender watching its mined transactions' blocks for reorg_watch_blocks:
//
//   mined | reverted ──► pending      a reorg deeper than the confirmations took it out of
//                                     its block (TxJournal::reopen): sent again, settled anew
//   mined | reverted ──► dropped      the chain it was mined on is gone (another genesis block,
//                                     or fewer blocks than it had: a reset)
//   abandoned ──► mined | reverted    the operator gave it up, yet a receipt shows it landed (the
//                                     sender's, or the chain's at a server's start): the chain's word
//
// A node's answer alone ("nonce too low", "already known", no such
// transaction) never settles anything: it only means "look again".

#include <optional>
#include <string_view>

namespace abci::chain {

enum class TxStatus { pending, mined, reverted, replaced, dropped, refused, abandoned };

/// The journal's name of a status, e.g. "replaced".
[[nodiscard]] const char* to_string(TxStatus status) noexcept;
/// The status of a journal name; nothing for an unknown one.
[[nodiscard]] std::optional<TxStatus> parse_tx_status(std::string_view name) noexcept;
/// Only pending leaves, but for the three transitions back above.
[[nodiscard]] constexpr bool is_final(TxStatus status) noexcept { return status != TxStatus::pending; }

}  // namespace abci::chain
