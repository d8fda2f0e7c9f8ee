#include "serve/connection_limiter.hpp"

#include <sys/socket.h>

#include <algorithm>

namespace abci::serve {

void ConnectionLimiter::Closer::operator()(Slot* slot) const {
    slot->owner.release(*slot);
    delete slot;
}

ConnectionLimiter::Ticket ConnectionLimiter::admit(const std::string& address, int fd) {
    std::lock_guard lock(mutex_);
    const auto in_reserve = [this] { return open_ + limits_.reserve >= limits_.max_connections; };
    if (in_reserve()) evict_oldest_idle();
    const auto it = per_address_.find(address);
    const std::size_t held = it == per_address_.end() ? 0 : it->second;
    const bool proxy = std::find(proxies_.begin(), proxies_.end(), address) != proxies_.end();
    if (open_ >= limits_.max_connections || (!proxy && (held >= limits_.max_per_client || (in_reserve() && held > 0))))
        return Ticket();
    ++open_;
    ++per_address_[address];
    return Ticket(new Slot{*this, address, fd});
}

void ConnectionLimiter::idle(Slot& slot) {
    std::lock_guard lock(mutex_);
    if (!slot.counted) return;
    slot.idle = true;
    slot.idle_position = idle_.insert(idle_.end(), &slot);
}

bool ConnectionLimiter::busy(Slot& slot) {
    std::lock_guard lock(mutex_);
    leave_idle(slot);
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
    if (idle_.empty()) return;
    Slot& oldest = *idle_.front();
    leave_idle(oldest);
    // The connection's thread wakes from its wait on the socket, finds itself
    // no longer counted (busy() is false) and closes; until then its
    // descriptor stays open, so shutting it down here cannot hit another.
    ::shutdown(oldest.fd, SHUT_RDWR);
    forget(oldest);
}

void ConnectionLimiter::release(Slot& slot) {
    std::lock_guard lock(mutex_);
    leave_idle(slot);
    forget(slot);
}

void ConnectionLimiter::leave_idle(Slot& slot) {
    if (!slot.idle) return;
    idle_.erase(slot.idle_position);
    slot.idle = false;
}

void ConnectionLimiter::forget(Slot& slot) {
    if (!slot.counted) return;
    slot.counted = false;
    --open_;
    if (--per_address_[slot.address] == 0) per_address_.erase(slot.address);
}

}  // namespace abci::serve
