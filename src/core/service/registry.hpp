#pragma once
// The configured networks (DESIGN.md §5): one client, one sender and one
// token contract binding per network, built once at start and shared by every
// request. Lookups are by the blockchain id the API uses.

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/service/mint_metrics.hpp"
#include "core/service/mint_record.hpp"
#include "core/service/network_config.hpp"
#include "core/chain/chain_client.hpp"
#include "core/chain/lane_metrics.hpp"
#include "core/chain/token_contract.hpp"
#include "core/chain/tx_sender.hpp"
#include "core/metrics/registry.hpp"
#include "core/store/lanes.hpp"

namespace abci::store {
class Store;
}

namespace abci::service {

/// The signer `config` names: a v3 keystore decrypted with the password from
/// password_file (one line) or `password`, anvil's dev key, a PKCS#11 token's
/// key or a remote signer's (open_pkcs11_signer, open_remote_signer). Throws
/// Error(invalid_input) when no source is configured, Error(unauthenticated)
/// for a wrong password, Error(not_found) for a missing file.
[[nodiscard]] std::shared_ptr<const eth::TransactionSigner> load_signer(const SignerConfig& config);

class Network {
public:
    /// What sends for the network while this server owns its lane (store/lanes.hpp):
    /// the journal, written under the lane's fence, the signer's sender and the
    /// mint batcher. A request holds its term until it ends, so a term ended
    /// meanwhile (the lane lost) lives on for it; the fence keeps such a term
    /// from signing anything new into the journal.
    class Term {
    public:
        Term(Network& network, const store::LaneFence& fence);
        ~Term();
        Term(const Term&) = delete;
        Term& operator=(const Term&) = delete;

        [[nodiscard]] const store::LaneFence& fence() const noexcept { return fence_; }
        [[nodiscard]] chain::TxSender& sender() noexcept { return *sender_; }
        /// Submits the mint `record` describes, journaled with it: into the
        /// next mintMany batch when the network batches mints, else as its own
        /// transaction. The mint's own failures come from PendingMint::wait().
        [[nodiscard]] chain::PendingMint submit_mint(const MintRecord& record);

    private:
        Network& network_;
        store::LaneFence fence_;
        std::unique_ptr<chain::TxJournal> journal_;
        std::unique_ptr<chain::TxSender> sender_;
        std::unique_ptr<chain::MintBatcher> batcher_;  // declared after what it uses: destroyed first
    };

    /// `signer` may be null (a read-only network); `store` receives the sender's
    /// journal and `metrics` the network's families: both must outlive the network.
    Network(NetworkConfig config, std::shared_ptr<const eth::TransactionSigner> signer, store::Store& store,
            metrics::Registry& metrics);
    ~Network();
    Network(const Network&) = delete;
    Network& operator=(const Network&) = delete;

    [[nodiscard]] const NetworkConfig& config() const noexcept { return config_; }
    /// The client of the mint path: normal timeouts, retries, failover.
    [[nodiscard]] chain::ChainClient& client() noexcept { return *client_; }
    /// A client with a short deadline and no retries, for health and status:
    /// a dead node answers within about a second.
    [[nodiscard]] chain::ChainClient& probe() noexcept { return *probe_; }
    [[nodiscard]] bool has_contract() const noexcept { return contract_.has_value(); }
    /// The token contract on client(). Error(unavailable) when none is configured.
    [[nodiscard]] chain::TokenContract& contract();
    /// The same contract read through probe(). Error(unavailable) when none is configured.
    [[nodiscard]] chain::TokenContract& probe_contract();
    [[nodiscard]] bool has_signer() const noexcept { return signer_ != nullptr; }
    /// The signer's address. Error(unavailable) when the server has no signer.
    [[nodiscard]] const eth::Address& signer_address() const;
    /// Why the signer cannot sign now (eth::TransactionSigner::unavailable):
    /// nothing when it can, or when there is none.
    [[nodiscard]] std::optional<std::string> signer_unavailable() const;
    /// "<blockchain id>/<signer address>": the lane of this network's mints.
    [[nodiscard]] std::string lane() const;
    /// The term this server sends under. Error(unavailable) when it has no
    /// signer, or another server owns the lane (naming it).
    [[nodiscard]] std::shared_ptr<Term> term() const;
    /// A new term under `fence` (a lane just taken), not yet current:
    /// start_term() makes it so once what the last owner left is adopted.
    [[nodiscard]] std::shared_ptr<Term> new_term(const store::LaneFence& fence);
    void start_term(std::shared_ptr<Term> term);
    /// The lane was lost (or the server stops): no new request gets a term.
    void end_term();
    /// The term this server sends under, or none (no signer, or not its lane):
    /// one read, so that a term ended meanwhile is never dereferenced.
    [[nodiscard]] std::shared_ptr<Term> current_term() const;
    /// The contract's version(), read once and then cached. Throws as contract() and reads do.
    [[nodiscard]] std::string contract_version();
    /// Checks once (then cached) that code is deployed at the contract address;
    /// Error(unavailable) when not, or when the node cannot be reached.
    void require_deployed();
    /// The first rpc URL with any provider key masked by asterisks (rpc::mask_url).
    [[nodiscard]] std::string masked_rpc_url() const;
    /// Its lane's families: only a network with a signer has a lane (has_signer()).
    [[nodiscard]] chain::LaneMetrics& lane_metrics() noexcept { return *lane_metrics_; }
    [[nodiscard]] MintMetrics& mint_metrics() noexcept { return mint_metrics_; }

private:
    NetworkConfig config_;
    std::unique_ptr<chain::LaneMetrics> lane_metrics_;  // with a signer: a read-only chain has no lane to export
    MintMetrics mint_metrics_;
    std::shared_ptr<rpc::RpcMetrics> rpc_metrics_;  // both clients' (rpc::Options::metrics)
    std::unique_ptr<chain::ChainClient> client_;
    std::unique_ptr<chain::ChainClient> probe_;
    std::optional<chain::TokenContract> contract_;
    std::optional<chain::TokenContract> probe_contract_;
    store::Store& store_;
    std::shared_ptr<const eth::TransactionSigner> signer_;
    mutable std::mutex term_mutex_;  // guards term_ (the pointer, not the term)
    std::shared_ptr<Term> term_;
    std::mutex cache_mutex_;  // guards the two cached facts below; never held across a call
    std::optional<std::string> version_;
    bool deployed_ = false;
};

class Registry {
public:
    /// Builds every network, all signing through `signer`; it may be null (no signer: mint routes
    /// answer 503). `metrics` receives the networks' families and must outlive the registry.
    Registry(const std::vector<NetworkConfig>& configs, const std::shared_ptr<const eth::TransactionSigner>& signer,
             store::Store& store, metrics::Registry& metrics);

    /// The network with this id; Error(not_found) naming it otherwise.
    [[nodiscard]] Network& find(const std::string& id);
    /// All networks, in configuration order.
    [[nodiscard]] const std::vector<std::unique_ptr<Network>>& networks() const noexcept { return networks_; }
    /// Where the service and the networks record their metrics.
    [[nodiscard]] metrics::Registry& metrics() noexcept { return metrics_; }

private:
    metrics::Registry& metrics_;
    std::vector<std::unique_ptr<Network>> networks_;
};

}  // namespace abci::service
