#pragma once
// What /readyz knows of a signer outside the process (a PKCS#11 token, a
// remote signer): a check run every few seconds on a thread of its own, so
// that asking is never a call to the backend (/readyz is anyone's, and a
// backend that hangs must not hang it). The check may also repair: a token
// reconnected, a module restarted.

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace abci::signer {

class Watch {
public:
    /// Why the signer cannot sign, or nothing when it can.
    using Check = std::function<std::optional<std::string>()>;

    /// How often a check runs: /readyz turns within about this after the backend does.
    static constexpr std::chrono::seconds kPeriod{2};

    /// `first` is what the caller found now; `check` runs every `period` from
    /// then on, until the watch is destroyed. `name` says whose in the log
    /// lines written when the answer changes.
    Watch(std::string name, std::optional<std::string> first, Check check, std::chrono::milliseconds period = kPeriod);
    ~Watch();
    Watch(const Watch&) = delete;
    Watch& operator=(const Watch&) = delete;

    /// What the last check found.
    [[nodiscard]] std::optional<std::string> last() const;

private:
    void run();

    std::string name_;
    Check check_;
    std::chrono::milliseconds period_;
    mutable std::mutex mutex_;  // guards the two below
    std::optional<std::string> last_;
    bool stopping_ = false;
    std::condition_variable wake_;
    std::thread thread_;  // last: started once the rest is
};

}  // namespace abci::signer
