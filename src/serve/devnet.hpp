#pragma once
// `abcictl serve --devnet`, the embedded default (DESIGN.md §5): a local anvil
// node kept under the data directory, the ABCIToken contract on it, and the
// config naming both, so a fresh checkout has a chain to mint on with no setup.
//
// Everything lives in <dataDir>/devnet/ (mode 0700):
//   anvil-state.json  the chain: loaded at start, dumped every 10 s and on exit,
//                     so tokens minted in one run are there in the next
//   anvil.log         anvil's own messages (it runs quiet: errors only)
//   config.toml       (0600) its [[chains]] entry and `[signer] anvilKey = true`,
//                     rewritten at each start; the next run reuses its contract
//   anvil.pid         the running node, so a run after a crash stops it first
//
// While the server runs, a thread watches anvil: when it dies (killed, out of
// memory) the log says so, health finds the chain's node unreachable, and
// anvil is started again from anvil-state.json on its port, so minting resumes.

#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "core/service/network_config.hpp"
#include "core/os/process.hpp"
#include "core/store/data_dir.hpp"
#include "serve/settings.hpp"

namespace abci::serve {

class Devnet {
public:
    /// Refuses a config that cannot take the devnet (a keystore signer, a
    /// chain with id "devnet", a chain that is not a local devnet, since one
    /// key signs for all): Error(invalid_input) starting with "--devnet:",
    /// before anything is started. Then starts anvil (find_anvil(settings.anvil)) on a
    /// free loopback port, waits until it answers, deploys ABCIToken signed by
    /// the anvil dev key unless the previous run's config.toml names a
    /// contract that still has code on the node, and writes config.toml. An
    /// anvil left running on this state by a run that was killed is stopped first.
    /// Throws Error(not_found) when there is no anvil, Error(unavailable) when
    /// it does not come up within 30 s (naming its log), what
    /// TokenContract::deploy throws; anvil is stopped again when this throws.
    /// Then watches anvil until destroyed, restarting it when it exits.
    /// `lock`, this server's hold on the data directory, must be taken
    /// first: a second server must not stop the first one's anvil.
    Devnet(const Settings& settings, const store::DataDirLock& lock);
    /// Stops watching, then stops anvil (it dumps its state on SIGTERM).
    ~Devnet();
    Devnet(const Devnet&) = delete;
    Devnet& operator=(const Devnet&) = delete;

    /// The devnet's [[chains]] entry: id "devnet", chain id 31337, its RPC URL and contract.
    [[nodiscard]] const service::NetworkConfig& network() const noexcept { return network_; }
    /// True when this start deployed the contract; false when it reused the previous run's.
    [[nodiscard]] bool deployed() const noexcept { return deployed_; }
    /// <dataDir>/devnet/config.toml.
    [[nodiscard]] std::filesystem::path config_file() const { return dir_ / "config.toml"; }

    /// Adds to `settings` (the settings this object was made from: the fit
    /// was checked then) what add_devnet_settings() adds, with this devnet's
    /// RPC URL and contract.
    void add_to(Settings& settings) const;

private:
    // One attempt on `port` (0: a fresh one); false when anvil exited (port taken meanwhile).
    [[nodiscard]] bool launch(std::uint16_t port);
    void watch();
    void deploy_or_reuse();
    void write_config() const;
    [[nodiscard]] std::filesystem::path state_file() const { return dir_ / "anvil-state.json"; }
    [[nodiscard]] std::filesystem::path pid_file() const { return dir_ / "anvil.pid"; }

    std::filesystem::path dir_;
    std::string anvil_path_;
    std::optional<os::Process> anvil_;  // guarded by mutex_ once watcher_ runs
    std::uint16_t port_ = 0;
    service::NetworkConfig network_;
    bool deployed_ = false;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    std::thread watcher_;
};

/// What --devnet adds to the settings, for --print-config before anything
/// starts (Devnet::add_to adds the same once anvil runs): the devnet chain
/// (its RPC URL's port is chosen at start; the contract is the previous
/// run's, if any), `signer.anvilKey = true`, wallet login for its chain id
/// unless [auth.wallet] chainIds says otherwise, an /abci rate limit no
/// person at a terminal meets (1000/60) unless rate_limit.abci was set, and
/// its config file, each with "--devnet" as its source. Refuses what the
/// Devnet constructor refuses.
void add_devnet_settings(Settings& settings);

/// The start-up banner's line on the /abci rate limit in force: its value,
/// where it came from and the setting that changes it.
[[nodiscard]] std::string describe_abci_limit(const Settings& settings);

/// The anvil to run: `configured` (ABCI_ANVIL) when set, else
/// node_modules/.bin/anvil under the current directory, else under the
/// directory of this executable or any of its parents, else `anvil` on PATH.
/// Error(not_found) saying where it looked and how to provide one.
[[nodiscard]] std::string find_anvil(const std::string& configured);

/// The devnet's first admin when the environment names none (both
/// ABCI_ADMIN_EMAIL and ABCI_ADMIN_PASSWORD set: the server creates that one).
/// On a data directory without users, creates kDevnetAdminEmail with a random
/// password and writes both to `out` with a curl line to log in: the only time
/// the password is shown. Does nothing when a user exists. Throws what opening
/// the store throws.
void bootstrap_devnet_admin(const Settings& settings, std::ostream& out);

/// The generated admin's e-mail (under RFC 6761's .localhost, which never leaves the host).
inline constexpr const char* kDevnetAdminEmail = "admin@devnet.localhost";

}  // namespace abci::serve
