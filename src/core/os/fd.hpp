#pragma once
// An owned POSIX file descriptor: closed exactly once, when its owner goes away.

#include <unistd.h>

namespace abci::os {

class UniqueFd {
public:
    UniqueFd() noexcept = default;
    /// Takes ownership of `fd` (a negative value means "none", e.g. a failed open()).
    explicit UniqueFd(int fd) noexcept : fd_(fd) {}
    UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
    UniqueFd& operator=(UniqueFd&& other) noexcept {
        if (this != &other) {
            reset();
            fd_ = other.release();
        }
        return *this;
    }
    UniqueFd(const UniqueFd&) = delete;
    UniqueFd& operator=(const UniqueFd&) = delete;
    ~UniqueFd() { reset(); }

    [[nodiscard]] int get() const noexcept { return fd_; }
    [[nodiscard]] bool valid() const noexcept { return fd_ >= 0; }
    /// Gives up ownership without closing; returns the descriptor.
    [[nodiscard]] int release() noexcept {
        const int fd = fd_;
        fd_ = -1;
        return fd;
    }
    /// Closes now (if open), ignoring errors.
    void reset() noexcept {
        if (fd_ >= 0) ::close(fd_);
        fd_ = -1;
    }
    /// Closes now and reports whether close() succeeded: after writes, a
    /// failed close can mean lost data.
    [[nodiscard]] bool close() noexcept { return ::close(release()) == 0; }

private:
    int fd_ = -1;
};

}  // namespace abci::os
