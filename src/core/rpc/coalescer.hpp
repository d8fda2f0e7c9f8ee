#pragma once
// Folds single JSON-RPC calls made at the same time by many threads into
// batches (util::Combiner). A burst of mint requests each needs an
// eth_estimateGas; sent one by one they cost the node a connection and a
// request each (about 3 ms apiece on anvil), folded into batches a fraction
// of that. A call alone is sent at once, so nothing waits for a window.

#include <cstddef>

#include "core/rpc/client.hpp"
#include "core/util/combiner.hpp"

namespace abci::rpc {

class Coalescer {
public:
    /// `rpc` must outlive the coalescer; at most `max_batch` calls per batch.
    explicit Coalescer(Client& rpc, std::size_t max_batch = 500)
        : combiner_([&rpc](std::vector<Request>& batch) { return rpc.batch(batch); }, max_batch) {}

    /// As Client::call: the result, RpcError when the node answered this call
    /// with an error, Error(timeout|unavailable) when the batch it went out in
    /// got no answer. Thread-safe.
    [[nodiscard]] nlohmann::json call(std::string method, nlohmann::json params) {
        return combiner_.submit({std::move(method), std::move(params)}).value();
    }

private:
    util::Combiner<Request, Outcome> combiner_;
};

}  // namespace abci::rpc
