#pragma once
// Lanes: one (chain, signer) pair each, for which exactly one server sends
// (DESIGN.md §9). A lane's row says which server owns it and until when
// (its lease, renewed about every half second), and its epoch: each new owner
// bumps it, and every journal write of an owner names the epoch it holds
// (Journal::add), so a server that lost its lane (frozen, cut off) cannot
// write anything once another took over, whatever it believes.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/store/records.hpp"

namespace abci::store {

/// A transaction its lane's owner found unmined at the fee cap.
struct StuckTransaction {
    std::uint64_t nonce = 0;
    std::string hash;  // 0x + 64 hex
    TimePoint since;   // first accepted by the node

    friend bool operator==(const StuckTransaction&, const StuckTransaction&) = default;
};

struct LaneStatus {
    std::string lane;  // "<blockchain id>/<signer address>"
    std::int64_t epoch = 0;
    std::string owner;  // the owning server's name (host:port and pid)
    TimePoint lease_until;
    std::string halted;  // why the lane stopped, or "" while it runs
    /// The signer's chain nonce the lane took as its start when first taken
    /// or resumed; nothing until then (the next owner takes the chain's).
    std::optional<std::uint64_t> accepted_nonce;
    /// As the owner last reported them (report_stuck), so that every server's
    /// health tells, not only the owner's.
    std::vector<StuckTransaction> stuck;
    /// The hash of the chain's block 0 as the owner's sender last saw it
    /// (0x + 64 hex), or "" before any did: which chain the lane's
    /// transactions were sent to, so that another node's word about them
    /// can be checked (`admin journal abandon`).
    std::string genesis;
};

/// The signer's balance as the lane's owner read it, against the floor its
/// health check holds it to (service/health.cpp).
struct SignerBalance {
    std::string blockchain_id;
    std::string address;          // checksummed
    std::string balance;          // wei, decimal
    std::string minimum_balance;  // wei, decimal
    std::uint64_t estimated_mints = 0;  // what the balance pays for at the current fee
    bool low = false;                   // balance < minimum_balance
};

/// A server's claim on a lane: the epoch it writes under.
struct LaneFence {
    std::string lane;
    std::int64_t epoch = 0;
};

/// A write refused because the lane moved on to a newer epoch (another
/// server owns it now): final for that fence, unlike a database that is
/// only unreachable.
class FencedOut : public Error {
public:
    using Error::Error;
};

class Lanes {
public:
    virtual ~Lanes() = default;
    [[nodiscard]] virtual std::vector<LaneStatus> list() = 0;
    [[nodiscard]] virtual std::optional<LaneStatus> find(const std::string& lane) = 0;
    /// Stops the lane (e.g. its signer's nonce moved on without us): no owner
    /// sends for it until an operator clears it. Under `fence`: a no-op for a
    /// server that no longer owns it.
    virtual void halt(const LaneFence& fence, const std::string& why) = 0;
    /// Clears a halt (an operator checked the signer's transactions): the
    /// next owner takes the chain's nonce as the lane's start. False, and
    /// nothing changed, when the lane is not halted.
    [[nodiscard]] virtual bool resume(const std::string& lane) = 0;
    /// Records the chain nonce the lane starts from, under `fence`.
    virtual void accept_nonce(const LaneFence& fence, std::uint64_t nonce) = 0;
    /// Replaces the lane's stuck transactions with `stuck`, under `fence`.
    virtual void report_stuck(const LaneFence& fence, const std::vector<StuckTransaction>& stuck) = 0;
    /// Records the hash of the chain's block 0 the lane sends to, under `fence`.
    virtual void record_genesis(const LaneFence& fence, const std::string& genesis) = 0;
    /// Records whether the signer's balance is below its floor, under
    /// `fence`. The lane's row remembers it, so that a balance going low
    /// writes signer.balance_low once (in the same transaction), and again
    /// only after it recovered: not once per reading, per restart or per
    /// replica. True when this reading crossed below.
    virtual bool record_signer_balance(const LaneFence& fence, const SignerBalance& reading) = 0;
};

/// One server's bids for lanes. Not thread-safe: one thread of the server
/// drives it (about every half second per lane).
class LaneElection {
public:
    virtual ~LaneElection() = default;
    /// Takes `lane` when free, or renews this server's hold on it: the fence
    /// to write under while this server owns it; nothing while another does,
    /// or when the hold was lost (the database unreachable, or a newer epoch:
    /// stop sending at once).
    [[nodiscard]] virtual std::optional<LaneFence> hold(const std::string& lane) = 0;
    /// Gives the lane up (a stopping server), so another takes it at once.
    virtual void release(const std::string& lane) = 0;
};

/// How long a lease lasts past its last renewal: a server that has not
/// renewed for this long is taken to be frozen or cut off, and is replaced.
inline constexpr std::chrono::milliseconds kLaneLease{3000};

}  // namespace abci::store
