#pragma once
// A real anvil node (foundry 1.7.1, from node_modules) on a free loopback
// port, for every test that touches a chain. RAII: the node is stopped and its
// temp directory removed when the fixture goes away, also when a test fails
// (then the tail of the node's log is printed first and the directory kept).

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/os/process.hpp"

namespace abci::test {

/// One of anvil's deterministic dev accounts (mnemonic "test test … junk"),
/// funded with 10000 ETH and unlocked on the node.
struct DevAccount {
    std::string address;      // EIP-55 checksummed, 0x-prefixed
    std::string private_key;  // 0x-prefixed hex; a published test key, never a real one
};

class Anvil {
public:
    struct Options {
        /// Interval mining every `block_time`; nullopt = automine (a block per transaction).
        std::optional<std::chrono::milliseconds> block_time{};
        std::uint64_t chain_id = 31337;
        unsigned accounts = 10;
        /// Keep the chain state across stop()/start(): anvil loads and dumps a
        /// state file in the fixture's temp directory (it dumps on SIGTERM).
        bool persist_state = false;
        /// Further anvil flags, e.g. {"--base-fee", "1"}.
        std::vector<std::string> extra_args{};
    };

    /// Starts the node and waits until it answers eth_chainId with the
    /// configured id. Retries on another free port if the chosen one is taken
    /// meanwhile. Throws Error(unavailable) with the log's tail when it does
    /// not come up within 20 s.
    explicit Anvil(Options options);
    Anvil() : Anvil(Options{}) {}
    ~Anvil();
    Anvil(const Anvil&) = delete;
    Anvil& operator=(const Anvil&) = delete;

    /// "http://127.0.0.1:<port>".
    [[nodiscard]] std::string url() const;
    [[nodiscard]] std::uint16_t port() const noexcept { return port_; }
    [[nodiscard]] std::uint64_t chain_id() const noexcept { return options_.chain_id; }
    [[nodiscard]] bool running() { return process_ && process_->running(); }

    /// Stops the node (SIGTERM, letting it dump its state; SIGKILL after 10 s). Idempotent.
    void stop() noexcept;
    /// Starts the node again on the same port (with its state when
    /// persist_state) and waits until it answers; a no-op when running.
    /// Throws Error(unavailable) when it does not come up (e.g. the port was taken).
    void start();

    /// json_rpc to this node.
    nlohmann::json rpc(const std::string& method, const nlohmann::json& params = nlohmann::json::array()) const;
    /// eth_blockNumber.
    [[nodiscard]] std::uint64_t block_number() const;
    /// eth_getTransactionCount of `who` at the latest block, or counting the
    /// node's pending transactions.
    [[nodiscard]] std::uint64_t nonce(const std::string& who, bool pending = false) const;

    /// The first min(accounts, 10) dev accounts, in anvil's order.
    [[nodiscard]] std::vector<DevAccount> accounts() const;
    /// All ten well-known dev accounts, whatever a fixture was started with.
    [[nodiscard]] static const std::array<DevAccount, 10>& dev_accounts();

    [[nodiscard]] const std::string& log_path() const noexcept { return log_path_; }
    /// The last `lines` lines of the node's log, for failure messages.
    [[nodiscard]] std::string log_tail(std::size_t lines = 40) const;

private:
    // One attempt to launch on port_; false when the node exited or did not answer in time.
    [[nodiscard]] bool launch();

    Options options_;
    std::string dir_;  // temp directory: log and state
    std::string log_path_;
    std::uint16_t port_ = 0;
    std::optional<os::Process> process_;
};

/// One JSON-RPC call straight to the node at `url`, by the tests' own client
/// (not core/rpc's; and a cast process per call cost a core 40 ms): its
/// result. Throws std::runtime_error naming the method when the node answers
/// an error or does not answer, so threads where Catch2's assertions may not
/// run can use it too.
nlohmann::json json_rpc(const std::string& url, const std::string& method,
                        const nlohmann::json& params = nlohmann::json::array());

}  // namespace abci::test
