#pragma once
// A burst of mints as careful clients send them: role and entity mints, each
// to its own fresh wallet and with its own Idempotency-Key, all at once, each
// re-sent with its key until it is settled with a 200, however the server,
// the node or the network between them fails meanwhile.

#include <chrono>
#include <cstdint>
#include <future>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/chain_server.hpp"
#include "support/random.hpp"

namespace abci::test::chaos {

struct Mint {
    std::string route;
    nlohmann::json body;
    Headers key;  // the Idempotency-Key header
    std::string recipient;
    std::uint64_t token_id = 0;
    std::uint64_t amount = 0;
};

/// `n` mints for run `tag`: one in ten a role mint (its wallet linked to a
/// new user first, as the route requires), the others entity mints of 1..5
/// tokens; every recipient a random address from `random`.
[[nodiscard]] std::vector<Mint> make_mints(ChainServer& chain, Random& random, const std::string& tag,
                                           std::size_t n);

/// How one mint ended.
struct Settled {
    HttpResponse answer;  // the 200, else the last answer before the deadline
    std::chrono::steady_clock::duration took{};  // from the first attempt to `answer`
    int attempts = 0;
};

class Burst {
public:
    /// Sends every mint at once, each from its own thread, with `token` (an
    /// admin's: the server keeps its signing secret across restarts); a mint
    /// is re-sent with its key after 250 ms while there is no answer (the
    /// server is down or the connection broke), a 409 (the first attempt is
    /// still running) or a 5xx, until `deadline` has passed.
    Burst(const Http& http, const std::string& token, std::vector<Mint> mints, std::chrono::seconds deadline);
    /// Waits for every mint to settle (or its deadline).
    [[nodiscard]] std::vector<Settled> wait();

    [[nodiscard]] const std::vector<Mint>& mints() const noexcept { return mints_; }

private:
    std::vector<Mint> mints_;
    std::vector<std::future<Settled>> running_;
};

}  // namespace abci::test::chaos
