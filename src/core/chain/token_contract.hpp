#pragma once
// Bindings of the ABCIToken contract (contracts/ABCIToken.sol): deploy, mint,
// transfer and the reads the service needs. Reverts come back as
// Error(chain_rejected) naming the contract's custom error with its arguments,
// e.g. "mint reverted: UnknownTokenId(7)"; RoleTokenAlreadyHeld, a role the
// wallet already has, as Error(conflict).

#include <cstdint>
#include <future>
#include <string>
#include <string_view>
#include <vector>

#include "core/chain/chain_client.hpp"
#include "core/chain/tx_sender.hpp"
#include "core/eth/abi.hpp"

namespace abci::chain {

struct Deployment;

class TokenContract {
public:
    /// Binds to a contract at `address` on `chain` (which must outlive this object).
    TokenContract(ChainClient& chain, const eth::Address& address);

    /// Deploys a new token with `admin` holding the admin and minter roles and
    /// `base_uri` as the default token URI, and waits up to `timeout` for the
    /// receipt. Throws Error(chain_rejected) when the deployment reverts, and
    /// what TxSender's future throws.
    [[nodiscard]] static Deployment deploy(TxSender& sender, const eth::Address& admin, std::string_view base_uri,
                                           std::chrono::milliseconds timeout = std::chrono::seconds(120));
    /// The creation code (bytecode + constructor arguments) deploy() sends.
    [[nodiscard]] static eth::Bytes creation_code(const eth::Address& admin, std::string_view base_uri);

    [[nodiscard]] const eth::Address& address() const noexcept { return address_; }

    /// Calldata of mint(to, id, amount, data).
    [[nodiscard]] static eth::Bytes mint_calldata(const eth::Address& to, std::uint64_t id, std::uint64_t amount,
                                                  const eth::Bytes& data);
    /// Submits mint(to, id, amount, data) through `sender` (a minter), with
    /// `purpose` journaled alongside (TxRequest::purpose). A mint the contract
    /// refuses throws here, before any nonce is used, with the decoded error.
    [[nodiscard]] std::future<Receipt> mint(TxSender& sender, const eth::Address& to, std::uint64_t id,
                                            std::uint64_t amount, const eth::Bytes& data, std::string purpose = {});
    /// One mint of a mintMany call.
    struct MintItem {
        eth::Address to;
        std::uint64_t id = 0;
        std::uint64_t amount = 0;
        eth::Bytes data;
    };
    /// Submits mintMany(to[], ids[], amounts[], data[]) as mint() does: all
    /// mint or none (one refused element reverts the whole call, thrown here).
    [[nodiscard]] std::future<Receipt> mint_many(TxSender& sender, const std::vector<MintItem>& items,
                                                 std::string purpose = {});
    /// Submits safeTransferFrom(sender, to, id, amount, "") from the sender's own balance.
    [[nodiscard]] std::future<Receipt> transfer(TxSender& sender, const eth::Address& to, std::uint64_t id,
                                                std::uint64_t amount);

    /// True when code is deployed at address().
    [[nodiscard]] bool is_deployed();
    /// The contract's version() string.
    [[nodiscard]] std::string version();
    /// hasRole(MINTER_ROLE, account): whether `account` may mint.
    [[nodiscard]] bool is_minter(const eth::Address& account);
    /// deployedAt(): the block timestamp (seconds) of the deployment.
    [[nodiscard]] std::uint64_t deployed_at();
    [[nodiscard]] eth::U256 balance_of(const eth::Address& owner, std::uint64_t id);
    /// balanceOfBatch(owners, ids): one balance per (owner, id) pair.
    [[nodiscard]] std::vector<eth::U256> balance_of_batch(const std::vector<eth::Address>& owners,
                                                          const std::vector<std::uint64_t>& ids);

    /// Renders revert data with the contract's custom errors, Error(string) and Panic(uint256).
    [[nodiscard]] static std::string describe_revert(eth::ByteView data);

private:
    [[nodiscard]] std::future<Receipt> submit(TxSender& sender, std::string_view what, eth::Bytes calldata,
                                              std::string purpose = {});
    // Calls a view function by its signature with outputs, e.g. "version()(string)".
    [[nodiscard]] std::vector<eth::abi::Value> view(std::string_view signature, std::span<const eth::abi::Value> args);

    ChainClient& chain_;
    eth::Address address_;
};

struct Deployment {
    TokenContract token;
    Receipt receipt;
};

}  // namespace abci::chain
