#include "core/chain/nonce_manager.hpp"

#include "core/error.hpp"

namespace abci::chain {

bool NonceManager::synced() const {
    std::lock_guard lock(mutex_);
    return synced_;
}

void NonceManager::sync(std::uint64_t chain_next) {
    std::lock_guard lock(mutex_);
    if (!synced_ || chain_next > next_) next_ = chain_next;
    synced_ = true;
}

std::uint64_t NonceManager::take() {
    std::lock_guard lock(mutex_);
    if (!synced_) throw Error(ErrorKind::internal, "nonce taken before the nonce manager was synced");
    return next_++;
}

bool NonceManager::give_back(std::uint64_t nonce) {
    std::lock_guard lock(mutex_);
    if (!synced_ || nonce + 1 != next_) return false;
    next_ = nonce;
    return true;
}

void NonceManager::reset(std::uint64_t chain_next) {
    std::lock_guard lock(mutex_);
    next_ = chain_next;
    synced_ = true;
}

std::uint64_t NonceManager::peek() const {
    std::lock_guard lock(mutex_);
    return next_;
}

}  // namespace abci::chain
