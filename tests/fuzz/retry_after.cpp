// The Retry-After header of a node's HTTP 429 (core/rpc/client), which the
// node or any proxy in front of it controls: delta-seconds or an HTTP-date.
// Unreadable is nullopt; anything read is a wait of at most a day, so that
// no header makes the client wait longer than its own cap allows.
// fuzz-max-len: 256

#include <chrono>
#include <string>

#include "core/rpc/retry_after.hpp"
#include "fuzz.hpp"

using namespace abci;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto wait = rpc::parse_retry_after(std::string(fuzz::text(data, size)));
    fuzz::require(!wait || (wait->count() >= 0 && *wait <= std::chrono::hours(24)), "a wait between 0 and a day");
    return 0;
}
