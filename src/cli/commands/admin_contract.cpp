#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/commands/commands.hpp"
#include "cli/context.hpp"
#include "cli/secret_input.hpp"
#include "cli/validators.hpp"
#include "core/chain/token_contract.hpp"
#include "core/keystore/keystore.hpp"
#include "core/rpc/quantity.hpp"
#include "core/rpc/url.hpp"

namespace abci::cli {
namespace {

struct DeploySettings {
    std::string rpc_url;
    std::string keystore;
    std::optional<std::uint64_t> chain_id;
    std::string admin;  // defaults to the deployer
    std::string base_uri = "ipfs://";
    unsigned timeout_seconds = 120;
    SecretInput password{"password", "password", true};
};

void deploy(const Context& ctx, const DeploySettings& s) {
    // Decrypt first: a wrong password should fail before anything touches the network.
    Secret password = s.password.read(ctx.options.no_input, "for keystore " + s.keystore, false);
    auto key = std::make_shared<const eth::PrivateKey>(keystore::read_file(s.keystore, password.view()));
    const eth::Address admin = s.admin.empty() ? key->address() : eth::Address::parse(s.admin);

    chain::ChainSettings settings;
    settings.rpc_urls = {s.rpc_url};
    try {
        rpc::Client probe(settings.rpc_urls);
        settings.chain_id = rpc::quantity_to_u64(probe.call("eth_chainId"), "eth_chainId result");
    } catch (const Error& e) {
        if (e.kind() != ErrorKind::unavailable && e.kind() != ErrorKind::timeout) throw;
        throw Error(e.kind(), "cannot reach the node at " + rpc::mask_url(s.rpc_url) +
                                  ": check --rpc-url and that the node is running",
                    {e.what()});
    }
    if (s.chain_id && *s.chain_id != settings.chain_id)
        throw Error(ErrorKind::conflict, "the node at " + rpc::mask_url(s.rpc_url) + " serves chain id " +
                                             std::to_string(settings.chain_id) + ", not " + std::to_string(*s.chain_id));
    chain::ChainClient chain(settings);
    chain::TxSender sender(chain, std::move(key));
    ctx.note("deploying ABCIToken from " + sender.address().checksummed() + " to chain " +
             std::to_string(settings.chain_id) + "…");
    auto [token, receipt] =
        chain::TokenContract::deploy(sender, admin, s.base_uri, std::chrono::seconds(s.timeout_seconds));
    const std::string version = token.version();
    const std::string address = token.address().checksummed();
    const std::string tx_hash = eth::to_hex(receipt.transaction_hash);
    ctx.print({{{"address", address},
                {"transactionHash", tx_hash},
                {"blockNumber", std::to_string(receipt.block_number)},
                {"chainId", std::to_string(settings.chain_id)},
                {"admin", admin.checksummed()},
                {"version", version}},
               address},
              {{"address", address},
               {"transactionHash", tx_hash},
               {"blockNumber", receipt.block_number},
               {"gasUsed", std::to_string(receipt.gas_used)},
               {"chainId", settings.chain_id},
               {"admin", admin.checksummed()},
               {"version", version}});
}

}  // namespace

void add_admin_contract_command(CLI::App& admin, Context& ctx) {
    auto* contract = admin.add_subcommand("contract", "The ABCIToken contract");
    contract->require_subcommand(1);
    auto settings = std::make_shared<DeploySettings>();
    auto* cmd = contract->add_subcommand("deploy", "Deploy ABCIToken; print its address, tx hash and version()");
    set_examples(*cmd, {
                 {"Deploy to Sepolia with the signer's keystore", "abcictl admin contract deploy --rpc-url https://rpc.sepolia.org --keystore signer.json --chain-id 11155111"}});
    cmd->add_option("--rpc-url", settings->rpc_url, "JSON-RPC endpoint of the network")->required();
    cmd->add_option("--keystore", settings->keystore, "v3 keystore of the deployer (pays gas, becomes admin)")
        ->required()
        ->check(CLI::ExistingFile);
    settings->password.add_to(*cmd);
    whole_number(cmd->add_option("--chain-id", settings->chain_id, "Refuse to deploy unless the node serves this chain id"), 1);
    cmd->add_option("--admin", settings->admin, "Address granted the admin and minter roles (default: the deployer)");
    cmd->add_option("--base-uri", settings->base_uri, "Default token URI")->capture_default_str();
    whole_number(cmd->add_option("--timeout", settings->timeout_seconds, "Seconds to wait for the receipt"), 1, 86'400)
        ->capture_default_str();
    cmd->callback([&ctx, settings] { deploy(ctx, *settings); });
}

}  // namespace abci::cli
