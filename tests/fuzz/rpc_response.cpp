// What a JSON-RPC node answers (core/rpc/client): the answer to a call and
// to a batch of three, checked as the client checks them, then the results
// read as the chain layer reads them: quantities, a receipt, a fee history.
// A malformed answer is a failure of the endpoint (a message, no throw); a
// node's error object is RpcError (chain_rejected); a malformed result is
// unavailable. Nothing else may escape.
// fuzz-max-len: 8192

#include <nlohmann/json.hpp>

#include "core/chain/fees.hpp"
#include "core/chain/receipt.hpp"
#include "core/rpc/client.hpp"
#include "core/rpc/quantity.hpp"
#include "fuzz.hpp"

using namespace abci;
using nlohmann::json;

namespace {

void read_result(const json& result) {
    const std::initializer_list<ErrorKind> malformed{ErrorKind::unavailable};
    (void)fuzz::accepts(malformed, [&] { (void)rpc::quantity_to_u64(result, "result"); });
    (void)fuzz::accepts(malformed, [&] { (void)rpc::quantity_to_u256(result, "result"); });
    (void)fuzz::accepts(malformed, [&] { (void)chain::Receipt::from_json(result); });
    (void)fuzz::accepts(malformed, [&] { (void)chain::fee_tiers_from_history(result, eth::U256{1'000'000'000}); });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto answer = json::parse(fuzz::text(data, size), nullptr, false);
    if (answer.is_discarded()) return 0;  // the client's own "the answer is not JSON"

    if (!rpc::check_call_answer(answer, 1)) {
        json result;
        if (fuzz::accepts({ErrorKind::chain_rejected}, [&] { result = rpc::call_result(answer, "eth_call"); }))
            read_result(result);
    }

    const std::vector<rpc::Request> requests{{"eth_blockNumber"}, {"eth_getTransactionReceipt"}, {"eth_feeHistory"}};
    if (!rpc::check_batch_answer(answer, 1, requests.size())) {
        std::vector<rpc::Outcome> outcomes;
        if (!fuzz::accepts({ErrorKind::chain_rejected},
                           [&] { outcomes = rpc::batch_outcomes(answer, 1, requests, "batch of 3"); }))
            return 0;
        fuzz::require(outcomes.size() == requests.size(), "one outcome per request");
        for (const auto& outcome : outcomes)
            if (outcome.ok()) read_result(outcome.value());
    }
    return 0;
}
