#include "core/service/registry.hpp"

#include "core/util/suggest.hpp"

#include <sstream>

#include <nlohmann/json.hpp>

#include "core/service/devnet_key.hpp"
#include "core/error.hpp"
#include "core/keystore/keystore.hpp"
#include "core/os/private_file.hpp"
#include "core/eth/wipe.hpp"
#include "core/rpc/rpc_metrics.hpp"
#include "core/rpc/url.hpp"
#include "core/signer/pkcs11.hpp"
#include "core/signer/remote.hpp"
#include "core/store/store.hpp"
#include "core/util/log.hpp"

namespace abci::service {

namespace {

// Writes the sender's transactions to the store's journal (DESIGN.md §4),
// under the fence of the lane's term: once another server took the lane over,
// nothing more is journaled, so nothing more is broadcast.
class StoreJournal final : public chain::TxJournal {
public:
    StoreJournal(store::Store& store, std::string blockchain_id, std::string sender, store::LaneFence fence)
        : store_(store), blockchain_id_(std::move(blockchain_id)), sender_(std::move(sender)), fence_(std::move(fence)) {}

    void record(const std::vector<chain::SignedTx>& txs) override {
        std::vector<store::JournalEntry> entries;
        entries.reserve(txs.size());
        for (const auto& tx : txs) {
            store::JournalEntry e;
            e.hash = eth::to_hex(tx.hash);
            e.blockchain_id = blockchain_id_;
            e.sender = sender_;
            e.nonce = tx.nonce;
            e.raw = eth::to_hex(tx.raw);
            e.purpose = tx.purpose;
            // Linked in the same write, before broadcast: after a crash each mint leads to its transactions.
            for (auto& mint : parse_mint_purpose(tx.purpose).mints)
                if (!mint.mint_id.empty()) e.mint_ids.push_back(std::move(mint.mint_id));
            entries.push_back(std::move(e));
        }
        try {
            store_.journal().add(entries, fence_);
        } catch (const store::FencedOut& e) {
            throw chain::JournalClosed(e.kind(), e.what());
        }
    }

    void settle(const std::vector<chain::Settlement>& settlements) noexcept override {
        try {
            std::vector<store::JournalSettlement> rows;
            rows.reserve(settlements.size());
            for (const auto& s : settlements)
                rows.push_back({eth::to_hex(s.hash), s.status, s.block});
            store_.journal().settle(rows);
        } catch (const std::exception& e) {
            // Left pending: reconciliation at the next start settles it from the chain.
            util::log(util::LogLevel::error, "settling journaled transactions failed; the next start settles them",
                      {{"blockchainId", blockchain_id_}, {"transactions", settlements.size()}, {"error", e.what()}});
        }
    }

    void reopen(const eth::Hash32& hash) noexcept override {
        try {
            store_.journal().reopen(eth::to_hex(hash));
        } catch (const std::exception& e) {
            util::log(util::LogLevel::error, "reopening a reorged transaction in the journal failed",
                      {{"blockchainId", blockchain_id_}, {"hash", eth::to_hex(hash)}, {"error", e.what()}});
        }
    }

    void record_genesis(const eth::Hash32& genesis) noexcept override {
        try {
            store_.lanes().record_genesis(fence_, eth::to_hex(genesis));
        } catch (const std::exception& e) {
            // The sender reports it again after its next start.
            util::log(util::LogLevel::warning, "recording the chain's block 0 failed",
                      {{"blockchainId", blockchain_id_}, {"genesis", eth::to_hex(genesis)}, {"error", e.what()}});
        }
    }

private:
    store::Store& store_;
    std::string blockchain_id_;
    std::string sender_;
    store::LaneFence fence_;
};

chain::ChainSettings chain_settings(const NetworkConfig& config, bool probe, std::shared_ptr<rpc::RpcMetrics> metrics) {
    chain::ChainSettings settings;
    settings.rpc.metrics = std::move(metrics);
    settings.chain_id = config.chain_id;
    settings.rpc_urls = config.rpc_urls;
    settings.confirmations = config.confirmations;
    settings.head_max_age = config.head_max_age;
    settings.rpc.call_timeout = config.rpc_timeout;
    settings.rpc.attempt_timeout = std::min(settings.rpc.attempt_timeout, config.rpc_timeout);
    if (probe) {
        settings.rpc.call_timeout = std::chrono::milliseconds(1000);
        settings.rpc.attempt_timeout = std::chrono::milliseconds(1000);
        settings.rpc.connect_timeout = std::chrono::milliseconds(500);
        settings.rpc.retries = 0;
        settings.rpc.idle_connections = 2;
    }
    return settings;
}

}  // namespace

std::shared_ptr<const eth::TransactionSigner> load_signer(const SignerConfig& config) {
    if (config.anvil_key) return std::make_shared<eth::PrivateKey>(eth::PrivateKey::from_hex(kAnvilDevKey));
    if (!config.pkcs11_module.empty()) {
        signer::Pkcs11Config token{config.pkcs11_module, config.pkcs11_token, config.pkcs11_key,
                                   config.pkcs11_pin_file.empty()
                                       ? config.pkcs11_pin
                                       : os::read_password_file(config.pkcs11_pin_file, "the token's PIN file")};
        const eth::WipeOnExit wipe_pin(token.pin);
        return signer::open_pkcs11_signer(token);
    }
    if (!config.remote.empty()) {
        signer::RemoteConfig remote{config.remote, eth::Address::parse(config.remote_address),
                                    config.remote_token_file.empty()
                                        ? config.remote_token
                                        : os::read_password_file(config.remote_token_file, "the remote signer's token file")};
        const eth::WipeOnExit wipe_token(remote.token);
        return signer::open_remote_signer(remote);
    }
    if (config.keystore.empty())
        throw Error(ErrorKind::invalid_input, "no signer configured: set [signer] keystore (or anvilKey for a devnet)");
    std::string password = config.password_file.empty() ? config.password : os::read_password_file(config.password_file, "the signer's password file");
    try {
        auto key = std::make_shared<eth::PrivateKey>(keystore::read_file(config.keystore, password));
        eth::secure_wipe(password.data(), password.size());
        return key;
    } catch (...) {
        eth::secure_wipe(password.data(), password.size());
        throw;
    }
}

Network::Network(NetworkConfig config, std::shared_ptr<const eth::TransactionSigner> signer, store::Store& store,
                 metrics::Registry& metrics)
    : config_(std::move(config)),
      lane_metrics_(signer ? std::make_unique<chain::LaneMetrics>(metrics, config_.id) : nullptr),
      mint_metrics_(metrics, config_.id),
      rpc_metrics_(std::make_shared<rpc::RpcMetrics>(metrics, config_.id)),
      client_(std::make_unique<chain::ChainClient>(chain_settings(config_, false, rpc_metrics_))),
      probe_(std::make_unique<chain::ChainClient>(chain_settings(config_, true, rpc_metrics_))),
      store_(store),
      signer_(std::move(signer)) {
    if (!config_.contract_address.empty()) {
        const auto address = eth::Address::parse(config_.contract_address);
        contract_.emplace(*client_, address);
        probe_contract_.emplace(*probe_, address);
    }
}

Network::~Network() = default;

Network::Term::Term(Network& network, const store::LaneFence& fence)
    : network_(network),
      fence_(fence),
      journal_(std::make_unique<StoreJournal>(network.store_, network.config_.id, network.signer_->address().lower(), fence)) {
    const auto& config = network.config_;
    chain::SenderOptions options;
    options.journal = journal_.get();
    options.receipt_timeout = config.receipt_timeout;
    options.replace_after = config.replace_after;
    options.max_fee_per_gas = eth::U256(config.max_fee_per_gas_gwei) * eth::U256(1'000'000'000);
    options.metrics = network.lane_metrics_.get();
    sender_ = std::make_unique<chain::TxSender>(*network.client_, network.signer_, options);
    if (network.contract_ && config.mint_batching)
        batcher_ = std::make_unique<chain::MintBatcher>(*network.contract_, *sender_, *config.mint_batching,
                                                        combine_mint_records);
}

Network::Term::~Term() = default;

chain::PendingMint Network::Term::submit_mint(const MintRecord& record) {
    // The token's data is the metadata record's content id, as text.
    chain::TokenContract::MintItem item{record.to, record.token_id, record.amount,
                                        eth::Bytes(record.cid.begin(), record.cid.end())};
    std::string purpose = record.to_json().dump();
    if (batcher_) return batcher_->mint(std::move(item), std::move(purpose));
    return chain::mint_now(network_.contract(), *sender_, std::move(item), std::move(purpose));
}

const eth::Address& Network::signer_address() const {
    if (!signer_) throw Error(ErrorKind::unavailable, "the server has no signer: configure [signer] to mint");
    return signer_->address();
}

std::optional<std::string> Network::signer_unavailable() const {
    return signer_ ? signer_->unavailable() : std::nullopt;
}

std::string Network::lane() const { return config_.id + "/" + signer_address().lower(); }

std::shared_ptr<Network::Term> Network::term() const {
    (void)signer_address();  // no signer: its own error
    if (auto term = current_term()) return term;
    throw Error(ErrorKind::unavailable, "this server does not send for blockchain " + config_.id +
                                            " now: another server owns its lane, or this one is taking it over; "
                                            "try again in a few seconds (GET /abci/health shows the lane's owner)");
}

std::shared_ptr<Network::Term> Network::new_term(const store::LaneFence& fence) {
    (void)signer_address();
    return std::make_shared<Term>(*this, fence);
}

void Network::start_term(std::shared_ptr<Term> term) {
    std::lock_guard lock(term_mutex_);
    term_ = std::move(term);
}

void Network::end_term() {
    std::shared_ptr<Term> ended;
    {
        std::lock_guard lock(term_mutex_);
        ended = std::move(term_);
    }
    // Destroyed here, outside the lock, unless a request still holds it.
}

std::shared_ptr<Network::Term> Network::current_term() const {
    std::lock_guard lock(term_mutex_);
    return term_;
}

chain::TokenContract& Network::contract() {
    if (!contract_) throw Error(ErrorKind::unavailable, "no token contract is configured for blockchain " + config_.id);
    return *contract_;
}

chain::TokenContract& Network::probe_contract() {
    if (!probe_contract_)
        throw Error(ErrorKind::unavailable, "no token contract is configured for blockchain " + config_.id);
    return *probe_contract_;
}

std::string Network::contract_version() {
    {
        std::lock_guard lock(cache_mutex_);
        if (version_) return *version_;
    }
    auto version = contract().version();
    std::lock_guard lock(cache_mutex_);
    version_ = version;
    return version;
}

void Network::require_deployed() {
    {
        std::lock_guard lock(cache_mutex_);
        if (deployed_) return;
    }
    if (!contract().is_deployed())
        throw Error(ErrorKind::unavailable, "no contract is deployed at " + config_.contract_address + " on blockchain " +
                                                config_.id);
    std::lock_guard lock(cache_mutex_);
    deployed_ = true;
}

std::string Network::masked_rpc_url() const { return rpc::mask_url(config_.rpc_urls.front()); }

Registry::Registry(const std::vector<NetworkConfig>& configs, const std::shared_ptr<const eth::TransactionSigner>& signer,
                   store::Store& store, metrics::Registry& metrics)
    : metrics_(metrics) {
    for (const auto& config : configs) networks_.push_back(std::make_unique<Network>(config, signer, store, metrics));
}

Network& Registry::find(const std::string& id) {
    for (auto& network : networks_)
        if (network->config().id == id) return *network;
    std::vector<std::string> ids;
    for (const auto& network : networks_) ids.push_back(network->config().id);
    const auto near = util::closest_match(id, ids);
    throw Error(ErrorKind::not_found, "unknown blockchain '" + id + "'" + (near ? "; did you mean '" + *near + "'?" : "") +
                                          "; the configured ones are in `abcictl chains list` (GET /abci/blockchains/list)");
}

}  // namespace abci::service
