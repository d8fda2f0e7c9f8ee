#pragma once
// A webhook receiver (tests/support/js/webhook_receiver.mjs) on a free
// loopback port: it verifies every delivery with the Standard Webhooks
// reference library and answers as a test scripts it.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/os/process.hpp"
#include "support/cli_runner.hpp"

namespace abci::test {

class WebhookReceiver {
public:
    /// Starts it and waits until it accepts connections (throws
    /// Error(unavailable) when it does not within 20 s).
    WebhookReceiver();
    ~WebhookReceiver();
    WebhookReceiver(const WebhookReceiver&) = delete;
    WebhookReceiver& operator=(const WebhookReceiver&) = delete;

    /// "http://127.0.0.1:<port>/hook".
    [[nodiscard]] std::string url() const;
    /// The secrets each delivery is verified with (newest first, say).
    void verify_with(const std::vector<std::string>& secrets) const;
    /// Statuses for the next deliveries, in order, then the policy's ("hang": no answer).
    void answer(const nlohmann::json& answers) const;
    /// How deliveries nobody scripted are answered (webhook_receiver.mjs says
    /// the fields): e.g. {"failFirstEvery": 3, "hangFirst": 5, "hangMs": 30000}.
    void policy(const nlohmann::json& policy) const;
    /// Every delivery so far (webhook_receiver.mjs says the fields).
    [[nodiscard]] nlohmann::json received() const;

private:
    TempDir dir_;  // its log
    std::uint16_t port_ = 0;
    std::optional<os::Process> process_;
};

}  // namespace abci::test
