#pragma once
// What every repository shares: the store's clock type and the rules its
// methods keep (store.hpp says them once).

#include <chrono>

namespace abci::store {

using TimePoint = std::chrono::system_clock::time_point;

}  // namespace abci::store
