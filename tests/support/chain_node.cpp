#include "support/chain_node.hpp"

#include <catch2/catch.hpp>

#include "core/chain/chain_client.hpp"
#include "core/chain/token_contract.hpp"
#include "core/chain/tx_sender.hpp"
#include "support/tools.hpp"

namespace abci::test {
namespace {

eth::PrivateKey signer_key() { return eth::PrivateKey::from_hex(Anvil::dev_accounts()[0].private_key); }

service::NetworkConfig network_config(const ChainNode::Options& options, std::uint64_t chain_id,
                                      const std::string& rpc_url, const std::string& contract) {
    service::NetworkConfig config;
    config.rpc_timeout = options.rpc_timeout;
    config.id = ChainNode::blockchain_id;
    config.name = "Anvil devnet";
    config.chain_id = chain_id;
    config.network = "ethereum";
    config.rpc_urls = {rpc_url};
    config.contract_address = contract;
    config.status = service::NetworkStatus::testnet;
    if (options.network) options.network(config);
    return config;
}

}  // namespace

std::string deploy_token(const Anvil& anvil) {
    chain::ChainSettings settings;
    settings.chain_id = anvil.chain_id();
    settings.rpc_urls = {anvil.url()};
    settings.poll_interval = std::chrono::milliseconds(50);
    chain::ChainClient client(settings);
    chain::TxSender sender(client, std::make_shared<eth::PrivateKey>(signer_key()));
    return chain::TokenContract::deploy(sender, sender.address(), "ipfs://").token.address().checksummed();
}

void reset_devnet(const Anvil& anvil, const std::string& contract) {
    (void)anvil.rpc("anvil_reset");
    (void)anvil.rpc("evm_setAutomine", {true});
    REQUIRE(deploy_token(anvil) == contract);  // the deployer's nonce 0 again: the same address
}

ChainNode::ChainNode(Options options)
    : anvil(options.anvil),
      proxy(options.proxied ? std::make_unique<MethodCountingProxy>(anvil.port(), MethodCountingProxy::Options{})
                            : nullptr),
      contract(deploy_token(anvil)),
      store(store::open_sqlite_store(dir / "abci.db")),
      content(content::make_content_store({.backend = "local", .data_dir = dir.path()})),
      key(std::make_shared<const eth::PrivateKey>(signer_key())),
      registry({network_config(options, anvil.chain_id(), proxy ? proxy->url() : anvil.url(), contract)}, key, *store, metrics),
      network(registry.find(blockchain_id)) {}

service::AbciService& ChainNode::service() {
    if (!service_) {
        service_.emplace(*store, registry, *content, "");
        service_->reconcile();
    }
    return *service_;
}

chain::TxSender& ChainNode::sender() {
    if (!term_) {
        election_ = store->open_lane_election("test node");
        const auto fence = election_->hold(network.lane());
        REQUIRE(fence);
        term_ = network.new_term(*fence);
        network.start_term(term_);
    }
    return term_->sender();
}

SQLite::Database ChainNode::database() const {
    SQLite::Database db(dir / "abci.db", SQLite::OPEN_READONLY);
    db.setBusyTimeout(5000);
    return db;
}

std::vector<std::string> ChainNode::journaled(const std::string& purpose) const {
    auto db = database();
    SQLite::Statement query(db, "SELECT hash FROM tx_journal WHERE purpose = ? ORDER BY created_at, nonce");
    query.bind(1, purpose);
    std::vector<std::string> hashes;
    while (query.executeStep()) hashes.push_back(query.getColumn(0).getString());
    return hashes;
}

int ChainNode::entities_of(const std::string& hash) const {
    auto db = database();
    SQLite::Statement query(db, "SELECT COUNT(*) FROM entities WHERE tx_hash = ?");
    query.bind(1, hash);
    REQUIRE(query.executeStep());
    return query.getColumn(0).getInt();
}

std::string ChainNode::cast_rpc(std::vector<std::string> args) const {
    args.insert(args.end(), {"--rpc-url", anvil.url()});
    return cast(args);
}

void ChainNode::send_foreign(std::uint64_t nonce) const {
    (void)cast_rpc({"send", "--async", "--unlocked", "--from", signer(), "--nonce", std::to_string(nonce),
                    "--gas-price", "100gwei", "--priority-gas-price", "100gwei", signer()});
}

std::uint64_t ChainNode::nonce(bool pending) const {
    return anvil.nonce(signer(), pending);
}

std::string ChainNode::chain_balance(const eth::Address& who, std::uint64_t token_id) const {
    return cast_rpc({"call", contract, "balanceOf(address,uint256)(uint256)", who.checksummed(),
                     std::to_string(token_id)});
}


}  // namespace abci::test
