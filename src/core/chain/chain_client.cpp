#include "core/chain/chain_client.hpp"

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/rpc/quantity.hpp"

namespace abci::chain {
namespace {

nlohmann::json call_object(const CallRequest& request) {
    nlohmann::json tx = nlohmann::json::object();
    if (request.from) tx["from"] = request.from->checksummed();
    if (request.to) tx["to"] = request.to->checksummed();
    if (!request.value.is_zero()) tx["value"] = rpc::to_quantity(request.value);
    tx["input"] = eth::to_hex(request.data);
    return tx;
}

}  // namespace

ChainClient::ChainClient(ChainSettings settings)
    : settings_(std::move(settings)),
      rpc_(settings_.rpc_urls, settings_.rpc),
      poller_(rpc_, ReceiptPoller::Options{settings_.confirmations, settings_.poll_interval, 500}) {}

std::uint64_t ChainClient::node_chain_id() {
    return rpc::quantity_to_u64(rpc_.call("eth_chainId"), "eth_chainId result");
}

void ChainClient::verify_chain_id() {
    const std::uint64_t actual = node_chain_id();
    if (actual != settings_.chain_id)
        throw Error(ErrorKind::conflict, "the node serves chain id " + std::to_string(actual) + ", not the configured " +
                                             std::to_string(settings_.chain_id));
}

std::uint64_t ChainClient::block_number() {
    return rpc::quantity_to_u64(rpc_.call("eth_blockNumber"), "eth_blockNumber result");
}

ObservedHead ChainClient::observe_head() {
    const auto sent = std::chrono::steady_clock::now();
    ObservedHead head{0, std::chrono::system_clock::now()};
    head.number = block_number();
    std::lock_guard lock(head_mutex_);
    if (!last_head_ || sent > last_head_sent_) {
        last_head_ = head;
        last_head_sent_ = sent;
    }
    return head;
}

ObservedHead ChainClient::recent_head() {
    {
        std::lock_guard lock(head_mutex_);
        if (last_head_ && std::chrono::steady_clock::now() - last_head_sent_ < settings_.head_max_age) return *last_head_;
    }
    return heads_.submit({});
}

FeeTiers ChainClient::fee_tiers() {
    const auto now = std::chrono::steady_clock::now();
    {
        std::lock_guard lock(fee_mutex_);
        if (fee_cache_ && now - fee_cache_time_ < settings_.fee_cache_ttl) return *fee_cache_;
    }
    auto outcomes = rpc_.batch({
        {"eth_feeHistory", {"0x14", "latest", {kFeePercentiles[0], kFeePercentiles[1], kFeePercentiles[2]}}},
        {"eth_maxPriorityFeePerGas", nlohmann::json::array()},
        {"eth_gasPrice", nlohmann::json::array()},
    });
    // A chain without EIP-1559 has no eth_maxPriorityFeePerGas; its gas price is the fallback then.
    const auto& tip_or_price = outcomes[1].ok() ? outcomes[1] : outcomes[2];
    const eth::U256 fallback = rpc::quantity_to_u256(tip_or_price.value(), "suggested fee");
    FeeTiers tiers = outcomes[0].ok() ? fee_tiers_from_history(outcomes[0].value(), fallback)
                                      : fee_tiers_from_history(nlohmann::json::object(), fallback);
    if (!tiers.eip1559) {
        const eth::U256 price = rpc::quantity_to_u256(outcomes[2].value(), "eth_gasPrice result");
        tiers.low = tiers.standard = tiers.fast = Fees{price, price};
    }
    std::lock_guard lock(fee_mutex_);
    fee_cache_ = tiers;
    fee_cache_time_ = now;
    return tiers;
}

std::uint64_t ChainClient::estimate_gas(const CallRequest& request) {
    constexpr auto kForgetAfter = std::chrono::seconds(60);
    std::string shape;
    if (request.to && request.data.size() >= 4)
        shape = request.to->lower() + eth::to_hex(eth::ByteView(request.data).first(4), false) + "/" +
                std::to_string(request.data.size());
    std::optional<std::uint64_t> known;
    if (!shape.empty()) {
        std::lock_guard lock(gas_mutex_);
        if (const auto it = known_gas_.find(shape);
            it != known_gas_.end() && std::chrono::steady_clock::now() - it->second.learned < kForgetAfter)
            known = it->second.gas;
    }
    if (known) {
        auto call = call_object(request);
        call["gas"] = rpc::to_quantity(*known);
        try {
            (void)estimates_.call("eth_call", {call, "latest"});
            return *known;
        } catch (const Error&) {
            // A revert, or too little gas (a receiver contract, say): the estimate decides.
        }
    }
    const std::uint64_t estimate =
        rpc::quantity_to_u64(estimates_.call("eth_estimateGas", {call_object(request), "latest"}), "eth_estimateGas result");
    const std::uint64_t gas = estimate + estimate * settings_.gas_headroom_percent / 100;
    if (!shape.empty()) {
        std::lock_guard lock(gas_mutex_);
        if (known_gas_.size() >= 1024) known_gas_.clear();  // shapes are few; this only bounds the map
        known_gas_[shape] = KnownGas{gas, std::chrono::steady_clock::now()};
    }
    return gas;
}

eth::Bytes ChainClient::call(const CallRequest& request) {
    const auto result = rpc_.call("eth_call", {call_object(request), "latest"});
    if (!result.is_string()) throw Error(ErrorKind::unavailable, "eth_call: the node returned no data string");
    return eth::from_hex(result.get<std::string>(), "eth_call result");
}

eth::Bytes ChainClient::code_at(const eth::Address& address) {
    const auto result = rpc_.call("eth_getCode", {address.checksummed(), "latest"});
    if (!result.is_string()) throw Error(ErrorKind::unavailable, "eth_getCode: the node returned no data string");
    return eth::from_hex(result.get<std::string>(), "eth_getCode result");
}

namespace {

std::uint64_t transaction_count(rpc::Client& rpc, const eth::Address& address, const char* block) {
    return rpc::quantity_to_u64(rpc.call("eth_getTransactionCount", {address.checksummed(), block}),
                                "eth_getTransactionCount result");
}

}  // namespace

std::uint64_t ChainClient::pending_nonce(const eth::Address& address) { return transaction_count(rpc_, address, "pending"); }

std::uint64_t ChainClient::latest_nonce(const eth::Address& address) { return transaction_count(rpc_, address, "latest"); }

eth::U256 ChainClient::balance(const eth::Address& address) {
    return rpc::quantity_to_u256(rpc_.call("eth_getBalance", {address.checksummed(), "latest"}),
                                 "eth_getBalance result");
}

BlockStamp ChainClient::block_stamp(std::optional<std::uint64_t> number) {
    const auto block = rpc_.call("eth_getBlockByNumber", {number ? rpc::to_quantity(*number) : "latest", false});
    if (!block.is_object()) throw Error(ErrorKind::unavailable, "eth_getBlockByNumber: the node returned no block");
    return {rpc::quantity_to_u64(block.value("number", nlohmann::json()), "block number"),
            rpc::quantity_to_u64(block.value("timestamp", nlohmann::json()), "block timestamp")};
}

eth::U256 ChainClient::gas_price() { return rpc::quantity_to_u256(rpc_.call("eth_gasPrice"), "eth_gasPrice result"); }

std::optional<Receipt> ChainClient::receipt(const eth::Hash32& hash) {
    const auto found = rpc_.call("eth_getTransactionReceipt", {eth::to_hex(hash)});
    if (found.is_null()) return std::nullopt;
    auto r = Receipt::from_json(found);
    r.confirm_at(block_number());
    return r;
}

}  // namespace abci::chain
