#pragma once
// A burst of mints as careful clients send them: role and entity mints, each
// to its own fresh wallet and with its own Idempotency-Key, all at once, each
// re-sent with its key until it is settled with a 200, however the server,
// the node or the network between them fails meanwhile. And the same without
// keys, where a careful client may only send again what surely was not
// signed, and learns the rest through the mint's id.

#include <chrono>
#include <cstdint>
#include <future>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/chain_server.hpp"
#include "support/random.hpp"

namespace abci::test::chaos {

struct Mint {
    std::string name;  // its Idempotency-Key, or "keyless-…" for a mint without one
    std::string route;
    nlohmann::json body;
    Headers key;  // the Idempotency-Key header; empty for a keyless mint
    std::string recipient;
    std::uint64_t token_id = 0;
    std::uint64_t amount = 0;
};

/// `n` mints for run `tag`: one in ten a role mint (its wallet linked to a
/// new user first, as the route requires), the others entity mints of 1..5
/// tokens; every recipient a random address from `random`; each with its own
/// Idempotency-Key unless `keyed` is false. `store_env` is the environment of
/// the `admin user import` that links the wallets (ABCI_DATABASE_URL for a
/// server on PostgreSQL, whose users are not in its data directory).
[[nodiscard]] std::vector<Mint> make_mints(ChainServer& chain, Random& random, const std::string& tag,
                                           std::size_t n, bool keyed = true, const Env& store_env = {});

/// How one mint ended.
struct Settled {
    HttpResponse answer;  // the 200 (for a keyless mint maybe its status's `result`), else the last answer
    std::chrono::steady_clock::duration took{};  // from the first attempt to `answer`
    std::chrono::steady_clock::time_point at{};  // when `answer` came
    int attempts = 0;     // mint requests sent
    std::map<int, int> refusals;  // the answers before the last, by status (0: none came)
    // Keyless mints only: the id of the mint whose status gave the 200, when
    // the answer came that way; and whether the outcome stayed unknown (a
    // request sent and never answered: nothing names the mint).
    std::string mint_id;
    bool unknown = false;
};

class Burst {
public:
    /// Sends every mint at once, each from its own thread, with `token` (an
    /// admin's: the server keeps its signing secret across restarts); a mint
    /// is re-sent with its key after 250 ms while there is no answer (the
    /// server is down or the connection broke), a 409 (the first attempt is
    /// still running) or a 5xx, until `deadline` has passed. With `spacing`,
    /// the mints start one after another instead, mint i at i × `spacing`
    /// (a steady load rather than a burst); `deadline` counts from the last.
    ///
    /// A keyless mint is sent as a client without a key must: again (after
    /// 250 ms) only when nothing reached the server (no connection) or the
    /// error names no mint (nothing was signed); an error naming a `mintId`
    /// is followed by `GET /abci/contracts/mints/{id}` until the mint is
    /// mined (its `result` is the answer) or failed (then it is sent anew); a
    /// request sent and never answered leaves the outcome unknown, and it is
    /// not sent again.
    Burst(const Http& http, const std::string& token, std::vector<Mint> mints, std::chrono::seconds deadline,
          std::chrono::milliseconds spacing = std::chrono::milliseconds(0));
    /// Waits for every mint to settle (or its deadline).
    [[nodiscard]] std::vector<Settled> wait();

    [[nodiscard]] const std::vector<Mint>& mints() const noexcept { return mints_; }

private:
    std::vector<Mint> mints_;
    std::vector<std::future<Settled>> running_;
};

}  // namespace abci::test::chaos
