#pragma once
// Scope guard that wipes a buffer holding secret material (a decrypted key, a
// derived key, a password copy) when the scope ends, on every path out of it,
// exceptions included.

#include "core/eth/bytes.hpp"

namespace abci::eth {

/// Wipes `buffer` (any contiguous container: std::array, Bytes, std::string)
/// in its destructor; the buffer must outlive the guard.
template <class Buffer>
class WipeOnExit {
public:
    explicit WipeOnExit(Buffer& buffer) noexcept : buffer_(buffer) {}
    ~WipeOnExit() { secure_wipe(buffer_.data(), buffer_.size() * sizeof(*buffer_.data())); }
    WipeOnExit(const WipeOnExit&) = delete;
    WipeOnExit& operator=(const WipeOnExit&) = delete;

private:
    Buffer& buffer_;
};

}  // namespace abci::eth
