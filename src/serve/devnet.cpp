#include "serve/devnet.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <ostream>
#include <sstream>
#include <thread>

#include <toml++/toml.h>

#include "core/service/devnet_key.hpp"
#include "core/auth/accounts.hpp"
#include "core/chain/token_contract.hpp"
#include "core/crypto/encoding.hpp"
#include "core/error.hpp"
#include "core/eth/signer.hpp"
#include "core/os/private_file.hpp"
#include "core/rpc/client.hpp"
#include "core/rpc/quantity.hpp"
#include "core/store/data_dir.hpp"
#include "serve/log.hpp"

namespace abci::serve {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::chrono::seconds kStartTimeout{30};
// How soon a dead anvil is noticed and another attempt to restart it made.
constexpr std::chrono::seconds kWatchInterval{1};
// Far above what a person at a terminal sends, low enough to stop a runaway loop.
const limits::RateLimit kDevnetAbciRate{1000, std::chrono::seconds(60)};
constexpr const char* kSource = "--devnet";

service::NetworkConfig devnet_network() {
    service::NetworkConfig network;
    network.id = "devnet";
    network.name = "Anvil devnet";
    network.chain_id = service::kDevnetChainId;
    network.network = "ethereum";
    network.status = service::NetworkStatus::testnet;
    network.native_currency = {"Ether", "ETH", 18};
    return network;
}

/// Whether the one signer can sign for the config's chains and the devnet
/// alike: refused before anything starts.
void check_fits(const Settings& settings, const service::NetworkConfig& devnet) {
    auto chains = settings.chains;
    chains.push_back(devnet);
    service::SignerConfig signer;
    signer.keystore = settings.signer.keystore;
    signer.password_file = settings.signer.password_file;
    signer.anvil_key = true;
    try {
        check_chains(chains, signer);
    } catch (const Error& e) {
        throw Error(e.kind(), std::string("--devnet: ") + e.what());
    }
}

bool is_executable(const fs::path& path) {
    std::error_code ec;
    return fs::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

/// The node's chain id, or nothing when it does not answer (yet).
std::optional<std::uint64_t> probe_chain_id(const std::string& url) {
    rpc::Options options;
    options.call_timeout = std::chrono::milliseconds(1000);
    options.connect_timeout = std::chrono::milliseconds(200);
    options.retries = 0;
    try {
        rpc::Client client({url}, options);
        return rpc::quantity_to_u64(client.call("eth_chainId"), "eth_chainId result");
    } catch (const Error&) {
        return std::nullopt;
    }
}

/// The contract the previous run's config names; nothing when there is no
/// config or it is damaged (a fresh deployment then replaces it).
std::optional<eth::Address> previous_contract(const fs::path& config) {
    std::error_code ec;
    if (!fs::exists(config, ec)) return std::nullopt;
    try {
        const auto root = toml::parse_file(config.string());
        if (const auto address = root["chains"][0]["contractAddress"].value<std::string>())
            return eth::Address::parse(*address);
    } catch (const toml::parse_error&) {
    } catch (const Error&) {
    }
    return std::nullopt;
}

/// What add_devnet_settings() and Devnet::add_to() add, `network` being the devnet's chain.
void add_network(Settings& settings, const service::NetworkConfig& network, const fs::path& config,
                 const std::string& rpc_source) {
    const std::string prefix = "chains[" + std::to_string(settings.chains.size()) + "].";
    for (const auto& key : setting_keys())
        if (key.key.starts_with("chains[]."))
            settings.sources[prefix + key.key.substr(std::string_view("chains[].").size())] = kSource;
    settings.sources[prefix + "rpcUrls"] = rpc_source;
    settings.chains.push_back(network);
    settings.signer.anvil_key = true;
    settings.sources["signer.anvilKey"] = kSource;
    // Wallet login works out of the box on a devnet, for anvil's dev accounts.
    if (settings.auth.wallet.chain_ids.empty()) {
        settings.auth.wallet.chain_ids.push_back(network.chain_id);
        settings.sources["auth.wallet.chainIds"] = kSource;
    }
    // The default (10/60) stopped newcomers in the walkthroughs; an operator's own value stands.
    if (!settings.sources.contains("rate_limit.abci")) {
        settings.abci_rate = kDevnetAbciRate;
        settings.sources["rate_limit.abci"] = kSource;
    }
    // Metrics to look at from the first run; an operator's own address stands.
    if (!settings.metrics.enabled()) {
        settings.metrics.listen_host = "127.0.0.1";
        settings.metrics.listen_port = 0;
        settings.sources["metrics.listen"] = std::string(kSource) + " (a free loopback port at start)";
    }
    // Webhooks to a receiver on this machine, over plain HTTP, as in a walkthrough; an operator's own values stand.
    for (auto [key, allow] : {std::pair{"webhooks.allowInsecureTargets", &settings.webhooks.policy.allow_insecure},
                              std::pair{"webhooks.allowPrivateTargets", &settings.webhooks.policy.allow_private}}) {
        if (settings.sources.contains(key)) continue;
        *allow = true;
        settings.sources[key] = kSource;
    }
    settings.devnet_config_file = config.string();
}

/// A run killed without cleanup (kill -9) leaves its anvil running and still
/// dumping to the state file every few seconds. It is stopped first (dumping
/// its newest state), so two nodes never write one state file. The pid file
/// alone is not trusted: the process must still be an anvil on `state`.
void stop_orphan(const fs::path& pid_file, const fs::path& state) {
    pid_t pid = 0;
    if (std::ifstream in(pid_file); !(in >> pid) || pid <= 1) return;
    // A zombie's command line is empty, so this is also false once it has exited.
    const auto is_that_anvil = [&] {
        std::ifstream cmdline("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
        const std::string args((std::istreambuf_iterator<char>(cmdline)), std::istreambuf_iterator<char>());
        return args.find(std::string(1, '\0') + state.string() + '\0') != std::string::npos;
    };
    if (!is_that_anvil()) return;
    ::kill(pid, SIGTERM);
    // Not our child, so no waitpid: poll until it is gone.
    for (int i = 0; i < 100 && is_that_anvil(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (is_that_anvil()) ::kill(pid, SIGKILL);
}

}  // namespace

Devnet::Devnet(const Settings& settings, const store::DataDirLock&)
    : dir_(fs::absolute(settings.data_dir) / "devnet"), network_(devnet_network()) {
    network_.rpc_urls = {"http://127.0.0.1:8545"};  // a placeholder until anvil has its port
    check_fits(settings, network_);
    anvil_path_ = find_anvil(settings.anvil);
    store::DataDir(dir_).create();
    stop_orphan(pid_file(), state_file());

    bool up = false;
    for (int attempt = 0; attempt < 3 && !up; ++attempt) up = launch(0);
    if (!up)
        throw Error(ErrorKind::unavailable,
                    "anvil (" + anvil_path_ + ") exited at start three times; see " + (dir_ / "anvil.log").string());
    deploy_or_reuse();
    write_config();
    watcher_ = std::thread([this] { watch(); });
}

Devnet::~Devnet() {
    if (watcher_.joinable()) {
        {
            const std::lock_guard lock(mutex_);
            stopping_ = true;
        }
        wake_.notify_all();
        watcher_.join();
    }
    if (!anvil_) return;
    // Dumping the state can take a moment on a large chain; only then SIGKILL.
    anvil_->stop(std::chrono::seconds(10));
    std::error_code ec;
    fs::remove(pid_file(), ec);
}

bool Devnet::launch(std::uint16_t port) {
    if (port == 0) port = os::free_loopback_port();
    const std::string url = "http://127.0.0.1:" + std::to_string(port);
    anvil_.emplace(std::vector<std::string>{anvil_path_, "--host", "127.0.0.1", "--port", std::to_string(port), "--chain-id",
                                            std::to_string(service::kDevnetChainId), "--state",
                                            state_file().string(), "--state-interval", "10", "--quiet"},
                   (dir_ / "anvil.log").string());
    const auto deadline = Clock::now() + kStartTimeout;
    while (Clock::now() < deadline) {
        if (!anvil_->running()) {
            anvil_.reset();
            return false;
        }
        if (const auto id = probe_chain_id(url)) {
            // Ours exits when another node took the port meanwhile: that one must not be used.
            if (*id == service::kDevnetChainId && anvil_->running()) {
                // A restart keeps the URL: written only at the first start, before other threads read it.
                if (network_.rpc_urls.front() != url) network_.rpc_urls = {url};
                port_ = port;
                os::write_private_file(pid_file(), std::to_string(anvil_->pid()) + "\n");
                return true;
            }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    anvil_.reset();
    throw Error(ErrorKind::unavailable, "anvil did not answer on " + url + " within " +
                                            std::to_string(kStartTimeout.count()) + " s; see " + (dir_ / "anvil.log").string());
}

void Devnet::watch() {
    const auto state = state_file().string();
    std::unique_lock lock(mutex_);
    bool said_failure = false;
    while (!wake_.wait_for(lock, kWatchInterval, [this] { return stopping_; })) {
        if (anvil_) {
            const auto pid = anvil_->pid();  // running() forgets it once it reaps the child
            if (anvil_->running()) continue;
            const int status = anvil_->stop();
            anvil_.reset();
            log_line("warn", "devnet: anvil (pid " + std::to_string(pid) + ") exited; the devnet chain is gone until it restarts",
                     {{"exitStatus", status}, {"state", state}, {"log", (dir_ / "anvil.log").string()}});
        }
        // On its port, which the server's chain clients know; from its state file, dumped every 10 s.
        std::string why;
        try {
            if (launch(port_)) {
                log_line("info", "devnet: anvil restarted", {{"pid", anvil_->pid()}, {"rpc", network_.rpc_urls.front()}, {"state", state}});
                said_failure = false;
                continue;
            }
            why = "anvil exited at start (is port " + std::to_string(port_) + " taken?)";
        } catch (const Error& e) {
            why = e.what();
        }
        if (!said_failure)
            log_line("error", "devnet: anvil did not restart; trying again every second",
                     {{"reason", why}, {"log", (dir_ / "anvil.log").string()}});
        said_failure = true;
    }
}

void Devnet::deploy_or_reuse() {
    chain::ChainSettings settings;
    settings.chain_id = network_.chain_id;
    settings.rpc_urls = network_.rpc_urls;
    chain::ChainClient chain(settings);
    if (const auto previous = previous_contract(config_file()); previous && !chain.code_at(*previous).empty()) {
        network_.contract_address = previous->checksummed();
        deployed_ = false;
        return;
    }
    chain::TxSender sender(chain, std::make_shared<eth::PrivateKey>(eth::PrivateKey::from_hex(service::kAnvilDevKey)));
    const auto deployment = chain::TokenContract::deploy(sender, sender.address(), "ipfs://");
    network_.contract_address = deployment.token.address().checksummed();
    deployed_ = true;
}

void Devnet::write_config() const {
    toml::array urls;
    for (const auto& url : network_.rpc_urls) urls.push_back(url);
    toml::table currency{{"name", network_.native_currency.name},
                         {"symbol", network_.native_currency.symbol},
                         {"decimals", network_.native_currency.decimals}};
    currency.is_inline(true);
    const toml::table chain{{"id", network_.id},
                            {"name", network_.name},
                            {"chainId", static_cast<std::int64_t>(network_.chain_id)},
                            {"network", network_.network},
                            {"rpcUrls", urls},
                            {"contractAddress", network_.contract_address},
                            {"status", service::to_string(network_.status)},
                            {"confirmations", static_cast<std::int64_t>(network_.confirmations)},
                            {"nativeCurrency", currency}};
    const toml::table root{{"signer", toml::table{{"anvilKey", true}}}, {"chains", toml::array{chain}}};
    std::ostringstream text;
    text << "# Written by `abcictl serve --devnet` at each start; the next start reuses its contract.\n" << root << "\n";
    os::write_private_file(config_file(), text.str());
}

void Devnet::add_to(Settings& settings) const { add_network(settings, network_, config_file(), kSource); }

void add_devnet_settings(Settings& settings) {
    auto network = devnet_network();
    network.rpc_urls = {"http://127.0.0.1:8545"};  // checked as the constructor checks it
    check_fits(settings, network);
    network.rpc_urls = {"http://127.0.0.1:0"};     // shown as what it is: no port until anvil starts
    const auto config = fs::absolute(settings.data_dir) / "devnet" / "config.toml";
    if (const auto previous = previous_contract(config)) network.contract_address = previous->checksummed();
    const auto index = std::to_string(settings.chains.size());
    add_network(settings, network, config, std::string(kSource) + " (a free loopback port at start)");
    settings.sources["chains[" + index + "].contractAddress"] =
        std::string(kSource) + (network.contract_address.empty() ? " (deployed at start)" : " (the previous run's, if it still has code)");
}

std::string describe_abci_limit(const Settings& settings) {
    const auto source = settings.sources.find("rate_limit.abci");
    const std::string from = source == settings.sources.end() ? "the default"
                             : source->second == kSource     ? "--devnet's default"
                                                              : source->second;
    const auto& rate = settings.abci_rate;
    return (rate.enabled() ? "/abci allows " + std::to_string(rate.limit) + " requests per " +
                                 std::to_string(rate.window.count()) + " s per caller"
                           : std::string("/abci has no rate limit")) +
           " (" + from + "); rate_limit.abci or ABCI_RATE_LIMIT sets another";
}

std::string find_anvil(const std::string& configured) {
    if (!configured.empty()) {
        if (!is_executable(configured))
            throw Error(ErrorKind::not_found, "ABCI_ANVIL names " + configured + ", which is not an executable file");
        return configured;
    }
    const fs::path relative = fs::path("node_modules") / ".bin" / "anvil";
    std::vector<fs::path> candidates;
    std::error_code ec;
    if (const auto here = fs::current_path(ec); !ec) candidates.push_back(here / relative);
    // A build tree inside a checkout finds the checkout's node_modules.
    if (const auto exe = fs::read_symlink("/proc/self/exe", ec); !ec)
        for (auto dir = exe.parent_path(); !dir.empty(); dir = dir.parent_path()) {
            candidates.push_back(dir / relative);
            if (dir == dir.parent_path()) break;
        }
    if (const char* path = std::getenv("PATH")) {
        std::istringstream dirs(path);
        for (std::string dir; std::getline(dirs, dir, ':');)
            if (!dir.empty()) candidates.push_back(fs::path(dir) / "anvil");
    }
    for (const auto& candidate : candidates)
        if (is_executable(candidate)) return candidate.string();
    throw Error(ErrorKind::not_found,
                "--devnet needs anvil and found none in ./node_modules/.bin, in node_modules/.bin above this "
                "executable, or on PATH: run `npm ci` in the checkout, install foundry, or set ABCI_ANVIL to its path");
}

void bootstrap_devnet_admin(const Settings& settings, std::ostream& out) {
    if (!settings.admin_email.empty() && !settings.admin_password.empty()) return;
    const auto store = open_store(settings);
    if (store->users().count() != 0) return;
    std::string password = crypto::random_token(18);
    struct Wipe {
        std::string& secret;
        ~Wipe() { eth::secure_wipe(secret.data(), secret.size()); }
    } wipe{password};
    if (!auth::bootstrap_admin(*store, kDevnetAdminEmail, password)) return;
    const std::string base = (settings.tls() ? "https://" : "http://") + settings.domain;
    out << "abcictl: created the devnet admin " << kDevnetAdminEmail << " with password " << password
        << " (shown only this once)\n"
        << "abcictl: log in: curl -s -X POST " << base
        << "/api/auth/login-email-password -H 'Content-Type: application/json' -d '{\"email\":\"" << kDevnetAdminEmail
        << "\",\"password\":\"" << password << "\"}'\n"
        << std::flush;
}

}  // namespace abci::serve
