#include "serve/connection_limiter.hpp"

#include <sys/socket.h>

#include <algorithm>

namespace abci::serve {

void ConnectionLimiter::Closer::operator()(Slot* slot) const {
    slot->owner.release(*slot);
    delete slot;
}

ConnectionLimiter::Ticket ConnectionLimiter::admit(const std::string& address, int fd, Refusal* refusal) {
    const auto refuse = [refusal](Refusal why) {
        if (refusal) *refusal = why;
        return Ticket();
    };
    std::lock_guard lock(mutex_);
    const auto in_reserve = [this] { return open_ + limits_.reserve >= limits_.max_connections; };
    if (in_reserve()) evict_oldest_idle();
    const auto it = per_address_.find(address);
    const std::size_t held = it == per_address_.end() ? 0 : it->second;
    const bool proxy = std::find(proxies_.begin(), proxies_.end(), address) != proxies_.end();
    if (!proxy && held >= limits_.max_per_client) return refuse(Refusal::per_client);
    if (open_ >= limits_.max_connections) shed_slowest_reader(held);
    if (open_ >= limits_.max_connections || (!proxy && in_reserve() && held > 0)) return refuse(Refusal::capacity);
    ++open_;
    ++per_address_[address];
    Ticket ticket(new Slot{*this, address, fd});
    enter(*ticket, Phase::reading);
    return ticket;
}

const char* to_string(ConnectionLimiter::Refusal refusal) noexcept {
    return refusal == ConnectionLimiter::Refusal::per_client ? "per_client" : "capacity";
}

void ConnectionLimiter::idle(Slot& slot) {
    std::lock_guard lock(mutex_);
    if (slot.counted) enter(slot, Phase::idle);
}

bool ConnectionLimiter::reading(Slot& slot) {
    std::lock_guard lock(mutex_);
    if (slot.counted) enter(slot, Phase::reading);
    return slot.counted;
}

bool ConnectionLimiter::handling(Slot& slot) {
    std::lock_guard lock(mutex_);
    if (slot.counted) enter(slot, Phase::handling);
    return slot.counted;
}

void ConnectionLimiter::close_idle() {
    std::lock_guard lock(mutex_);
    while (!idle_.empty()) evict_oldest_idle();
}

std::size_t ConnectionLimiter::open() const {
    std::lock_guard lock(mutex_);
    return open_;
}

void ConnectionLimiter::evict_oldest_idle() {
    if (!idle_.empty()) shed(*idle_.front());
}

void ConnectionLimiter::shed_slowest_reader(std::size_t held) {
    const auto started_before = Clock::now() - grace_;
    for (Slot* slot : reading_) {
        // Listed in the order they began reading: the rest are younger still.
        if (slot->since > started_before) return;
        if (per_address_.at(slot->address) > held) {
            shed(*slot);
            return;
        }
    }
}

void ConnectionLimiter::shed(Slot& slot) {
    leave_list(slot);
    // The connection's thread wakes from its wait on the socket, finds itself
    // no longer counted (reading() or handling() is false, or the socket is
    // closed under it) and closes; until then its descriptor stays open, so
    // shutting it down here cannot hit another.
    ::shutdown(slot.fd, SHUT_RDWR);
    forget(slot);
}

void ConnectionLimiter::release(Slot& slot) {
    std::lock_guard lock(mutex_);
    leave_list(slot);
    forget(slot);
}

void ConnectionLimiter::enter(Slot& slot, Phase phase) {
    leave_list(slot);
    slot.phase = phase;
    slot.since = Clock::now();
    if (phase == Phase::handling) return;
    auto& list = phase == Phase::idle ? idle_ : reading_;
    slot.position = list.insert(list.end(), &slot);
    slot.listed = true;
}

void ConnectionLimiter::leave_list(Slot& slot) {
    if (!slot.listed) return;
    (slot.phase == Phase::idle ? idle_ : reading_).erase(slot.position);
    slot.listed = false;
}

void ConnectionLimiter::forget(Slot& slot) {
    if (!slot.counted) return;
    slot.counted = false;
    --open_;
    if (--per_address_[slot.address] == 0) per_address_.erase(slot.address);
}

}  // namespace abci::serve
