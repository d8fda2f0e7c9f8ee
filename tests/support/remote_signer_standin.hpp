#pragma once
// A remote JSON-RPC signer on a free loopback port that stands in front of a
// real node (anvil, whose unlocked dev accounts answer eth_signTransaction):
// every call is forwarded, and the answer to eth_signTransaction is, as the
// test sets it, left alone or turned into what a hostile or broken signer
// could send: the transaction with another nonce, recipient, chain id, value,
// data, fee cap (a legacy transaction's gas price) or gas (signed again by the account's own key, so that only
// that field is wrong), the same transaction with its s in the upper half of
// the curve order, a signature of another key, or garbage. It can be stopped
// and started again on the same port while a server uses it.

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include <httplib.h>

namespace abci::test {

class RemoteSignerStandIn {
public:
    enum class Answer {
        honest,
        other_nonce,
        other_to,
        other_chain_id,
        other_value,
        other_data,
        other_fee_cap,
        other_gas,
        high_s,
        other_key,
        garbage,
    };

    /// Forwards to `node_url`; `account_key` is the hex secret of the account
    /// the node signs for (an anvil dev key: a test's own), used to sign the
    /// altered transactions. Starts listening at once.
    RemoteSignerStandIn(std::string node_url, std::string account_key);
    ~RemoteSignerStandIn();
    RemoteSignerStandIn(const RemoteSignerStandIn&) = delete;
    RemoteSignerStandIn& operator=(const RemoteSignerStandIn&) = delete;

    /// "http://127.0.0.1:<port>".
    [[nodiscard]] std::string url() const;
    void answer(Answer answer) noexcept { answer_ = answer; }
    /// The Authorization header of the last call ("" when it had none).
    [[nodiscard]] std::string authorization() const;
    /// eth_signTransaction calls answered so far.
    [[nodiscard]] unsigned signatures() const noexcept { return signatures_; }
    /// Stops listening (connections are refused) once `after` more signatures
    /// were answered; 0: at once.
    void stop_after(unsigned after);
    /// Stops listening now and waits for it.
    void stop();
    /// Listens again on the same port.
    void start();

private:
    void serve(const httplib::Request& request, httplib::Response& response);

    std::string node_url_;
    std::string account_key_;
    int port_ = 0;
    std::atomic<Answer> answer_{Answer::honest};
    std::atomic<unsigned> signatures_{0};
    std::atomic<unsigned> stop_at_{0};  // 0: never
    mutable std::mutex mutex_;
    std::string authorization_;
    std::unique_ptr<httplib::Server> server_;
    std::thread thread_;
};

}  // namespace abci::test
