#include "support/chain_server.hpp"

#include <signal.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <map>
#include <regex>
#include <stdexcept>
#include <string_view>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/eth/address.hpp"
#include "core/rpc/quantity.hpp"
#include "core/util/time.hpp"
#include "support/chain_node.hpp"
#include "support/tools.hpp"

namespace abci::test {
namespace {

bool matches(const nlohmann::json& value, const std::regex& pattern) {
    return value.is_string() && std::regex_match(value.get_ref<const std::string&>(), pattern);
}

// ABCI_TEST_SIGNER=pkcs11: a token holding the devnet signer's key (anvil's
// first), so that the deployer, the chain and the tests' oracles see the same
// address whichever signer the server uses; else none: the server uses anvilKey.
std::unique_ptr<SoftHsm> token_signer() {
    const char* which = std::getenv("ABCI_TEST_SIGNER");
    if (!which || !*which) return nullptr;
    if (std::string_view(which) != "pkcs11")
        throw std::runtime_error(std::string("ABCI_TEST_SIGNER=") + which + ": the tests know only pkcs11 (or unset)");
    auto hsm = std::make_unique<SoftHsm>();
    hsm->import_with_pkcs11_tool("minter", "01", Anvil::dev_accounts()[0].private_key);
    return hsm;
}

std::string signer_config(const SoftHsm* hsm) {
    if (!hsm) return "[signer]\nanvilKey = true\n";
    return fmt::format("[signer]\npkcs11Module = \"{}\"\npkcs11Token = \"{}\"\npkcs11Key = \"minter\"\npkcs11PinFile = \"{}\"\n",
                       SoftHsm::module(), hsm->token(), hsm->pin_file());
}

Env with_signer_env(Env env, const SoftHsm* hsm) {
    if (hsm) env.merge(hsm->env());
    return env;
}

// `node_url`: where the server reaches the devnet's node (anvil, or a proxy in front of it).
std::string server_config(const ChainServer::Options& options, const Anvil& anvil, const std::string& node_url,
                          const std::string& contract, const SoftHsm* hsm) {
    return fmt::format("[rate_limit]\nabci = \"{}\"\n", options.abci_rate_limit) + signer_config(hsm) +
           chain_entry(ChainServer::blockchain_id, ChainServer::blockchain_name, node_url, contract, "testnet") +
           options.devnet_keys +
           std::regex_replace(options.extra_config, std::regex(R"(\{anvil\})"), anvil.url());
}

}  // namespace

bool is_utc_timestamp(const nlohmann::json& value) {
    if (!value.is_string() || !value.get_ref<const std::string&>().ends_with('Z')) return false;
    try {
        (void)util::parse_rfc3339(value.get_ref<const std::string&>());
        return true;
    } catch (const Error&) {
        return false;
    }
}

bool is_decimal_string(const nlohmann::json& value) {
    static const std::regex pattern("0|[1-9][0-9]*");
    return matches(value, pattern);
}

bool is_tx_hash(const nlohmann::json& value) {
    static const std::regex pattern("0x[0-9a-f]{64}");
    return matches(value, pattern);
}

bool is_address(const nlohmann::json& value) {
    static const std::regex pattern("0x[0-9a-fA-F]{40}");
    if (!matches(value, pattern)) return false;
    try {
        (void)eth::Address::parse(value.get<std::string>());  // checks EIP-55 when mixed case
        return true;
    } catch (const Error&) {
        return false;
    }
}

ChainServer::ChainServer(Options options)
    : hsm_(token_signer()),
      anvil_(options.anvil),
      contract_(deploy_token(anvil_)),
      proxy_(options.fault_proxy ? std::make_unique<FaultProxy>(anvil_.port(), *options.fault_proxy) : nullptr),
      config_(server_config(options, anvil_, proxy_ ? proxy_->url() : anvil_.url(), contract_, hsm_.get())),
      server_(Server::Options{config_, 0, with_signer_env(options.env, hsm_.get())}) {}

Env ChainServer::signer_env(Env env) const { return with_signer_env(std::move(env), hsm_.get()); }

void ChainServer::restart_server(const std::string& more_config) { server_.restart(config_ + more_config); }

FaultProxy& ChainServer::proxy() {
    REQUIRE(proxy_);
    return *proxy_;
}

std::string ChainServer::signer() { return Anvil::dev_accounts()[0].address; }

std::string ChainServer::database() const { return server_.data_dir() + "/abci.db"; }

std::string ChainServer::chain_balance(const std::string& who, std::uint64_t token_id) const {
    return chain_balances({who}, token_id).at(0);
}

std::vector<std::string> ChainServer::chain_balances(const std::vector<std::string>& owners,
                                                     std::uint64_t token_id) const {
    std::string who = "[", ids = "[";
    for (const auto& owner : owners) {
        who += (who.size() > 1 ? "," : "") + owner;
        ids += (ids.size() > 1 ? "," : "") + std::to_string(token_id);
    }
    // cast prints "[1, 0, 5]".
    const auto out = cast({"call", contract_, "balanceOfBatch(address[],uint256[])(uint256[])", who + "]", ids + "]",
                           "--rpc-url", anvil_.url()});
    std::vector<std::string> balances;
    static const std::regex number("[0-9]+");
    for (auto it = std::sregex_iterator(out.begin(), out.end(), number); it != std::sregex_iterator(); ++it)
        balances.push_back(it->str());
    REQUIRE(balances.size() == owners.size());
    return balances;
}

nlohmann::json ChainServer::receipt(const std::string& tx_hash) const {
    return nlohmann::json::parse(cast({"receipt", tx_hash, "--json", "--rpc-url", anvil_.url()}));
}

std::uint64_t ChainServer::nonce(const std::string& who, bool pending) const {
    return anvil_.nonce(who, pending);
}

void ChainServer::kill_server() {
    const int pid = server_.pid();
    REQUIRE(pid > 0);
    REQUIRE(::kill(pid, SIGKILL) == 0);
    CHECK(server_.stop() == 128 + SIGKILL);  // reaps it
}

nlohmann::json ChainServer::node_rpc(const std::string& method, const nlohmann::json& params) const {
    return anvil_.rpc(method, params);
}

void ChainServer::reset_chain() { reset_devnet(anvil_, contract_); }

std::string chain_entry(const std::string& id, const std::string& name, const std::string& rpc_url,
                        const std::string& contract, const std::string& status) {
    return fmt::format(R"(
[[chains]]
id = "{}"
name = "{}"
chainId = 31337
network = "ethereum"
rpcUrls = ["{}"]
{}blockExplorer = "https://explorer.example"
status = "{}"
)",
                       id, name, rpc_url, contract.empty() ? "" : "contractAddress = \"" + contract + "\"\n", status);
}

std::string quantity_to_decimal(const nlohmann::json& quantity) {
    return rpc::quantity_to_u256(quantity, "quantity").to_dec();
}

std::string require_entity_minted(const HttpResponse& r, const nlohmann::json& body) {
    INFO(r.status << " " << r.body);
    REQUIRE(r.status == 200);
    REQUIRE(r.json.is_object());
    CHECK(r.json.size() == 3);
    CHECK(r.json["success"] == true);
    const auto& data = r.json["data"];
    const auto& metadata = r.json["metadata"];
    REQUIRE(data.is_object());
    REQUIRE(metadata.is_object());
    CHECK(data.size() == 7);
    CHECK(is_tx_hash(data["transactionHash"]));
    CHECK(data["blockNumber"].is_number_integer());
    CHECK(is_decimal_string(data["gasUsed"]));
    CHECK(data["tokenId"].is_number_integer());
    const std::map<std::string, int> ids{{"report", 1000}, {"verification", 1100}, {"valuation", 1200}, {"certificate", 1300}};
    CHECK(data["tokenId"] == ids.at(body["entityType"].get<std::string>()));
    CHECK(data["amount"].is_number_integer());
    CHECK(data["amount"] == body["amount"]);
    CHECK(data["confirmations"].is_number_integer());
    CHECK(data["confirmations"].get<std::int64_t>() >= 1);
    REQUIRE(data["metadataUri"].is_string());
    CHECK(metadata.size() == 4);
    CHECK(metadata["entityType"] == body["entityType"]);
    CHECK(metadata["entityId"] == body["entityId"]);
    REQUIRE(metadata["ipfsHash"].is_string());
    const auto cid = metadata["ipfsHash"].get<std::string>();
    CHECK(data["metadataUri"] == "ipfs://" + cid);
    CHECK(metadata["blockchain"] == nlohmann::json{{"name", ChainServer::blockchain_name}, {"chainId", 31337}});
    return cid;
}

std::string require_role_answer(const HttpResponse& r, std::uint64_t token_id, const std::string& contract) {
    INFO(r.status << " " << r.body);
    REQUIRE(r.status == 200);
    REQUIRE(r.json.is_object());
    CHECK(r.json.size() == 3);
    CHECK(r.json["success"] == true);
    const auto& data = r.json["data"];
    REQUIRE(data.is_object());
    CHECK(data.size() == 8);  // each of the eight is checked below
    REQUIRE(is_tx_hash(data["transactionHash"]));
    CHECK(data["blockNumber"].is_number_integer());
    CHECK(is_decimal_string(data["gasUsed"]));
    CHECK(is_decimal_string(data["gasPrice"]));
    CHECK(data["tokenId"].is_number_integer());
    CHECK(data["tokenId"] == token_id);
    CHECK(data["tokenType"] == "role");
    CHECK(data["confirmations"].is_number_integer());
    CHECK(data["confirmations"].get<std::int64_t>() >= 1);
    CHECK(is_utc_timestamp(data["timestamp"]));
    CHECK(r.json["metadata"] ==
          nlohmann::json{{"blockchain", {{"name", ChainServer::blockchain_name}, {"chainId", 31337}, {"network", "ethereum"}}},
                         {"contract", {{"address", contract}, {"version", "1.0.0"}}}});
    return data["transactionHash"].get<std::string>();
}

nlohmann::json entity_mint_body(const std::string& to, const std::string& entity_type, const std::string& entity_id,
                                std::uint64_t amount) {
    return {{"userAddress", to},
            {"entityType", entity_type},
            {"entityId", entity_id},
            {"blockchainId", ChainServer::blockchain_id},
            {"amount", amount},
            {"metadata",
             {{"name", "Emissions report " + entity_id},
              {"description", "Scope 1 and 2 emissions"},
              {"image", "https://example.org/report.png"},
              {"external_url", "https://example.org/reports/" + entity_id},
              {"attributes", nlohmann::json::array({{{"trait_type", "tonnes"}, {"value", 1250}},
                                                    {{"trait_type", "year"}, {"value", "2025"}}})}}}};
}

nlohmann::json role_mint_body(const std::string& to, const std::string& role, const std::string& blockchain_id) {
    return {{"userAddress", to}, {"roleType", role}, {"blockchainId", blockchain_id}};
}

}  // namespace abci::test
