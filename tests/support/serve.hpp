#pragma once
// A real `abcictl serve` on a free loopback port with its own data directory,
// and a small HTTP client for black-box tests of it. RAII: the server is
// stopped and its directory removed when the fixture goes away; when a test
// is failing the tail of the server's log is printed first.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/os/process.hpp"
#include "core/store/store.hpp"
#include "support/cli_runner.hpp"

namespace abci::test {

using Headers = std::vector<std::pair<std::string, std::string>>;

/// One HTTP answer.
struct HttpResponse {
    int status = 0;       // 0: no answer (connection refused, reset or timed out)
    bool unsent = false;  // no answer because no connection could be made: nothing reached the server
    std::string body;
    nlohmann::json json;  // the parsed body; null when it is not JSON
    std::vector<std::pair<std::string, std::string>> headers;

    /// The first header `name` (case-insensitive), or "" when absent.
    [[nodiscard]] std::string header(const std::string& name) const;
    [[nodiscard]] bool has_header(const std::string& name) const;
};

/// A plain HTTP/1.1 client for one base URL ("http://127.0.0.1:PORT"); a new
/// connection per request, redirects not followed, 30 s timeouts.
class Http {
public:
    explicit Http(std::string base_url);

    /// `token`, when not empty, is sent as "Authorization: Bearer <token>".
    [[nodiscard]] HttpResponse get(const std::string& path, const std::string& token = {},
                                   const Headers& headers = {}) const;
    /// `body` serialised as JSON, Content-Type application/json.
    [[nodiscard]] HttpResponse post(const std::string& path, const nlohmann::json& body,
                                    const std::string& token = {}, const Headers& headers = {}) const;
    /// Any method with a raw body (sent only when not empty, with `content_type`).
    [[nodiscard]] HttpResponse send(const std::string& method, const std::string& path, const std::string& body,
                                    const std::string& content_type = "application/json",
                                    const std::string& token = {}, const Headers& headers = {}) const;

    [[nodiscard]] const std::string& base_url() const noexcept { return base_url_; }

private:
    std::string base_url_;
};

/// `text` percent-encoded for a query value (all but RFC 3986's unreserved characters).
[[nodiscard]] std::string url_encode(std::string_view text);

/// The credentials a login returned.
struct Session {
    std::string token;
    std::string refresh_token;
    nlohmann::json user;  // {id, email, role, verified}
    [[nodiscard]] std::string id() const { return user.at("id").get<std::string>(); }
};

/// Whether the suite runs in the replicas topology: ABCI_TEST_TOPOLOGY=replicas
/// in the test's environment (tests/CMakeLists.txt registers the
/// topology-agnostic serve tests a second time with it). Then a Server whose
/// test names no database of its own (no ABCI_DATABASE_URL or ABCI_DATA_DIR in
/// its env, no "database" in its config) and no port is three `abcictl serve`
/// replicas with the same config on one PostgreSQL database (a Postgres
/// fixture of its own), behind Debian's haproxy (round robin, retries and
/// redispatch as examples/haproxy-replicas.cfg): url(), host() and http() name
/// haproxy (host() also becomes the replicas' ABCI_DOMAIN unless the config
/// sets a domain), the admin CLI writes the shared database, metadata goes to
/// a Kubo stand-in all share (unless the config sets [content]), stop() and
/// restart() act on every replica. port(), pid(), log() and data_dir() remain
/// the first replica's. Unset: one server on SQLite, exactly as before.
[[nodiscard]] bool replicas_topology();

/// ABCI_JWT_SECRET_FILE naming `path`, a new secret written there (0600)
/// unless one is: a server on PostgreSQL needs one to create webhook
/// subscriptions (docs/webhooks.md), and replicas given the same share it.
[[nodiscard]] Env jwt_secret_file_env(const std::filesystem::path& path);

/// Whether the suite runs in the openapi topology: ABCI_TEST_TOPOLOGY=openapi
/// (tests/CMakeLists.txt runs the release tree's serve and cli suites with it,
/// all but the files that test the server's own HTTP handling or TLS). Then a
/// Server (not a replica) is reached through a validating proxy,
/// tests/support/js/openapi_proxy.mjs, which checks every answer, and every
/// request the server did not refuse, against docs/openapi.yaml: url(), host() and
/// http() name the proxy (host() also becomes the server's ABCI_DOMAIN unless
/// the config sets a domain; a server on a port the test chose is behind the
/// proxy port an earlier server on that port had, so at the same URL), and when
/// the Server goes away the test fails naming each answer or request the
/// document does not describe.
[[nodiscard]] bool openapi_topology();

class Server {
public:
    static constexpr const char* admin_email = "admin@example.org";
    static constexpr const char* admin_password = "correct horse battery staple 7";

    struct Options {
        /// The config file's TOML; "{port}" in it becomes the server's port.
        /// Empty: no --config.
        std::string config{};
        /// The port to listen on; 0: a free one (for a config that must name
        /// the port before the server starts, pick one with os::free_loopback_port()).
        std::uint16_t port = 0;
        /// Extra environment (e.g. ABCI_RATE_LIMIT); ABCI_ADMIN_EMAIL and
        /// ABCI_ADMIN_PASSWORD default to admin_email / admin_password.
        Env env{};
    };

    /// Starts the server and waits until its port accepts connections;
    /// retries on another port when the chosen one was taken meanwhile.
    /// Fails the test (Catch2) with the log's tail when it does not come up in 20 s.
    explicit Server(Options options);
    Server() : Server(Options{}) {}
    ~Server();
    Server(const Server&) = delete;
    Server& operator=(const Server&) = delete;

    /// "http://127.0.0.1:<port>" (haproxy's port in the replicas topology).
    [[nodiscard]] std::string url() const;
    [[nodiscard]] std::uint16_t port() const noexcept { return port_; }
    /// "127.0.0.1:<port>": the listen address, also the default SIWE domain
    /// (haproxy's address, the replicas' domain, in the replicas topology).
    [[nodiscard]] std::string host() const;
    [[nodiscard]] std::string data_dir() const;
    [[nodiscard]] Http http() const { return Http(url()); }
    /// Everything the server wrote to stdout and stderr so far.
    [[nodiscard]] std::string log() const;
    /// The server's pid while it runs.
    [[nodiscard]] int pid() const noexcept;

    /// SIGTERM, waits up to 10 s (then SIGKILL); returns the exit status
    /// (128+signal when killed). Idempotent.
    int stop();
    /// Starts it again on the same port and data directory.
    void restart();
    /// The same with `config` (Options::config) from now on.
    void restart(std::string config);

    /// POST /api/auth/login-email-password; fails the test unless it answers 200.
    [[nodiscard]] Session login(const std::string& email, const std::string& password) const;
    [[nodiscard]] Session login_admin() const { return login(admin_email, admin_password); }

    /// The store the server uses: its data directory's, or the replicas' database.
    [[nodiscard]] std::unique_ptr<store::Store> open_store() const;
    /// Runs `abcictl <args…> --data-dir <data_dir()>` with `input` on stdin.
    [[nodiscard]] os::CommandResult admin_cli(std::vector<std::string> args, const std::string& input = {}) const;
    struct NewUser {
        std::string email, role, password;
    };
    /// Each as `abcictl admin user add` makes it, written to the server's store
    /// directly with its password hashed at a test's low cost (password_cost.hpp).
    void add_users(const std::vector<NewUser>& users) const;
    void add_user(const std::string& email, const std::string& role, const std::string& password) const {
        add_users({{email, role, password}});
    }
    /// `abcictl admin user link-wallet`; fails the test unless it exits 0.
    void link_wallet(const std::string& email, const std::string& address) const;
    /// `abcictl admin apikey create -q` with the scopes; returns the key.
    [[nodiscard]] std::string create_api_key(const std::string& name, const std::vector<std::string>& scopes) const;

private:
    [[nodiscard]] bool launch();
    // Whether the data directory starts as a copy of the one the binary leaves
    // after its first start with the fixture's admin (serve.cpp, AdminTemplate).
    [[nodiscard]] bool starts_from_admin_template() const;
    // Whether the environment names the fixture's admin (admin_email, admin_password).
    [[nodiscard]] bool has_fixture_admin() const;
    [[nodiscard]] std::string log_tail(std::size_t lines = 60) const;
    // The replicas topology (replicas_topology()): its PostgreSQL, other
    // replicas and haproxy; null in the default topology.
    struct Replicas;
    [[nodiscard]] bool replicas_eligible() const;
    // The config file's TOML as given (Options::config), plus the replicas' shared content store.
    [[nodiscard]] std::string config() const;
    void start_replicas();

    Options options_;
    TempDir dir_;  // data/, config.toml, server.log
    std::uint16_t port_ = 0;
    std::optional<os::Process> process_;
    std::unique_ptr<Replicas> replicas_;
    // The openapi topology's validating proxy (openapi_topology()); null otherwise.
    struct Validator;
    std::unique_ptr<Validator> validator_;
};

}  // namespace abci::test
