#include "support/serve.hpp"

#include <fcntl.h>
#include <httplib.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cctype>
#include <cstdlib>
#include <chrono>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <mutex>
#include <regex>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "core/crypto/encoding.hpp"
#include "core/os/private_file.hpp"
#include "core/store/data_dir.hpp"
#include "support/haproxy.hpp"
#include "support/password_cost.hpp"
#include "support/postgres.hpp"
#include "support/tools.hpp"

namespace abci::test {
namespace {

using Clock = std::chrono::steady_clock;

// "http://host:port" → (host, port).
std::pair<std::string, int> split_url(const std::string& base_url) {
    const auto scheme = base_url.find("://");
    const auto authority = scheme == std::string::npos ? base_url : base_url.substr(scheme + 3);
    const auto colon = authority.rfind(':');
    if (colon == std::string::npos) return {authority, 80};
    return {authority.substr(0, colon), std::stoi(authority.substr(colon + 1))};
}

std::string replace_all(std::string text, const std::string& what, const std::string& with) {
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + with.size()))
        text.replace(at, what.size(), with);
    return text;
}

bool test_failing() { return std::uncaught_exceptions() > 0 || !Catch::getResultCapture().lastAssertionPassed(); }

namespace fs = std::filesystem;

// The real server started once on an empty data directory in `dir` with
// the fixture's admin (and `env`) in its environment, stopped by SIGTERM:
// true when it came up, created the admin and stopped cleanly.
bool first_start(const fs::path& dir, Env env) {
    env.emplace("ABCI_ADMIN_EMAIL", Server::admin_email);
    env.emplace("ABCI_ADMIN_PASSWORD", Server::admin_password);
    for (int attempt = 0; attempt < 3; ++attempt) {
        const auto port = os::free_loopback_port();
        os::Process server(abcictl_argv({"serve", "--listen", "127.0.0.1:" + std::to_string(port), "--data-dir",
                                         (dir / "data").string()},
                                        env),
                           (dir / "server.log").string(), env);
        bool up = false;
        const auto deadline = Clock::now() + std::chrono::seconds(120);
        while (!up && server.running() && Clock::now() < deadline)
            up = os::wait_for_port(port, std::chrono::milliseconds(100));
        if (server.stop(std::chrono::seconds(10)) == 0 && up &&
            file_tail((dir / "server.log").string(), 100).find("created the first admin") != std::string::npos)
            return true;
    }
    return false;
}

// What a server's first start leaves, made once per build of abcictl (a
// rebuilt binary, maybe with a new schema, makes its own) under a lock shared
// by the suites' processes: `cache`/`name`-<the binary's size and mtime>`suffix`,
// made by `make(cache, path)` when missing; nullopt when it cannot be made
// (then servers start empty and show why themselves).
std::optional<fs::path> made_once_per_binary(const std::string& name, const std::string& suffix,
                                             const std::function<bool(const fs::path&, const fs::path&)>& make) {
    struct stat binary {};
    if (::stat(abcictl_binary().c_str(), &binary) != 0) return std::nullopt;
    const fs::path cache = test_cache_dir();
    std::error_code ec;
    fs::create_directories(cache, ec);
    const auto path = cache / (name + "-" + std::to_string(binary.st_size) + "-" + std::to_string(binary.st_mtim.tv_sec) +
                               "." + std::to_string(binary.st_mtim.tv_nsec) + suffix);
    const int lock = ::open((cache / (name + "-template.lock")).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (lock < 0) return std::nullopt;
    ::flock(lock, LOCK_EX);  // released by close, also if this process dies
    struct Unlock {
        int fd;
        ~Unlock() { ::close(fd); }
    } unlock{lock};
    if (fs::exists(path, ec) || make(cache, path)) return path;
    return std::nullopt;
}

// A server's first start hashes the first admin's password (scrypt at
// N = 2^17: about a second of a core and 128 MiB, several seconds when the
// suites run in parallel), and nearly every test starts at least one. So the
// database the real binary leaves after its first start with the fixture's
// admin (users: that admin; its password credential) is made once per build
// of abcictl, and each server with the fixture's admin and a fresh SQLite
// data directory starts from a copy of it: a server restarted on its data,
// the admin already there. Only abci.db is copied: each server still makes
// its own JWT secret. Servers on PostgreSQL (but see ReplicasTemplate), with
// another admin or none, and every test of the bootstrap itself start empty
// as before.
class AdminTemplate {
public:
    // The template's abci.db, made now if this build has none.
    static std::optional<fs::path> database() {
        static const std::optional<fs::path> made = made_once_per_binary("admin", ".db", make);
        return made;
    }

private:
    // The first start's abci.db becomes `database` (by rename: never seen half written).
    static bool make(const fs::path& cache, const fs::path& database) {
        auto pattern = (cache / "first-start-XXXXXX").string();
        if (!::mkdtemp(pattern.data())) return false;
        const fs::path dir = pattern;
        bool made = first_start(dir, {});
        std::error_code ec;
        const auto written = dir / "data" / "abci.db";
        // Every login of a test server's admin would otherwise cost a second of scrypt (password_cost.hpp).
        if (made) {
            const auto store = store::open_sqlite_store(written);
            made = lower_password_cost(*store, Server::admin_email, Server::admin_password);
        }
        // Closed, the store left everything in the one file that is kept.
        made = made && !fs::exists(written.string() + "-wal");
        if (made) {
            fs::rename(written, database, ec);
            made = !ec;
        }
        fs::remove_all(dir, ec);
        return made;
    }
};

// The same for the replicas topology: a PostgreSQL cluster whose database
// "abci" holds what the first start left there (the schema, the fixture's
// admin at the lowered cost), but no JWT secret: the template's server kept
// its secret in a file, so each topology's replicas make and share their own.
// Saves each test of the topology a CREATE DATABASE, the migrations and the
// admin's scrypt: more than a second.
class ReplicasTemplate {
public:
    static constexpr const char* database = "abci";

    // The template's cluster directory, made now if this build has none.
    static std::optional<fs::path> cluster() {
        static const std::optional<fs::path> made =
            made_once_per_binary(std::string("postgres-abci-") + (::geteuid() == 0 ? "nobody" : "self"), "", make);
        return made;
    }

private:
    static bool make(const fs::path& /*cache*/, const fs::path& cluster) {
        Postgres postgres;
        const auto url = postgres.create_database(database);
        const TempDir dir;
        const bool made =
            first_start(dir.path(), {{"ABCI_DATABASE_URL", url}, {"ABCI_JWT_SECRET_FILE", (dir.path() / "jwt.secret").string()}}) &&
            lower_password_cost(*store::open_postgresql_store({.url = url, .password_file = ""}), Server::admin_email,
                                Server::admin_password);
        if (made) postgres.save_cluster(cluster);
        return made;
    }
};

}  // namespace

std::string HttpResponse::header(const std::string& name) const {
    for (const auto& [k, v] : headers)
        if (::strcasecmp(k.c_str(), name.c_str()) == 0) return v;
    return {};
}

bool HttpResponse::has_header(const std::string& name) const {
    for (const auto& entry : headers)
        if (::strcasecmp(entry.first.c_str(), name.c_str()) == 0) return true;
    return false;
}

std::string url_encode(std::string_view text) {
    static constexpr char hex[] = "0123456789ABCDEF";
    std::string out;
    for (const unsigned char c : text) {
        if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out;
}

Http::Http(std::string base_url) : base_url_(std::move(base_url)) {}

HttpResponse Http::get(const std::string& path, const std::string& token, const Headers& headers) const {
    return send("GET", path, {}, {}, token, headers);
}

HttpResponse Http::post(const std::string& path, const nlohmann::json& body, const std::string& token,
                        const Headers& headers) const {
    return send("POST", path, body.dump(), "application/json", token, headers);
}

HttpResponse Http::send(const std::string& method, const std::string& path, const std::string& body,
                        const std::string& content_type, const std::string& token, const Headers& headers) const {
    const auto [host, port] = split_url(base_url_);
    httplib::Client client(host, port);
    client.set_connection_timeout(std::chrono::seconds(5));
    client.set_read_timeout(std::chrono::seconds(30));
    client.set_write_timeout(std::chrono::seconds(30));
    client.set_follow_location(false);

    httplib::Request request;
    request.method = method;
    request.path = path;
    for (const auto& [k, v] : headers) request.headers.emplace(k, v);
    if (!token.empty()) request.headers.emplace("Authorization", "Bearer " + token);
    if (!body.empty() || method == "POST" || method == "PUT") {
        request.body = body;
        request.headers.emplace("Content-Type", content_type);
    }
    HttpResponse out;
    auto result = client.send(request);
    if (!result) {
        out.unsent = result.error() == httplib::Error::Connection || result.error() == httplib::Error::ConnectionTimeout;
        return out;
    }
    out.status = result->status;
    out.body = result->body;
    out.headers.assign(result->headers.begin(), result->headers.end());
    out.json = nlohmann::json::parse(out.body, nullptr, false);
    if (out.json.is_discarded()) out.json = nullptr;
    return out;
}

namespace {
// Whether `config` has a [database] table (or a database.… key): a comment
// or a value that mentions the word does not count.
bool names_a_database(const std::string& config) {
    static const std::regex table(R"((^|\n)[ \t]*(\[[ \t]*database[ \t]*\]|database[ \t]*\.))");
    return std::regex_search(config, table);
}
}  // namespace

Env jwt_secret_file_env(const fs::path& path) {
    (void)os::write_private_file(path, crypto::random_bytes(32), os::WriteMode::create_new);
    return {{"ABCI_JWT_SECRET_FILE", path.string()}};
}

bool replicas_topology() {
    const char* topology = std::getenv("ABCI_TEST_TOPOLOGY");
    return topology != nullptr && std::string_view(topology) == "replicas";
}

bool openapi_topology() {
    const char* topology = std::getenv("ABCI_TEST_TOPOLOGY");
    return topology != nullptr && std::string_view(topology) == "openapi";
}

namespace {
// The openapi topology's proxy ports by the port of the server behind each.
// A test that starts a second server on the port where it stopped a first
// (the same address, under which a client remembers its session) finds it
// behind the first's proxy port, so at the same URL, as without proxies.
struct ProxyPorts {
    std::mutex mutex;
    std::map<std::uint16_t, std::uint16_t> by_server_port;

    /// For a server on `server_port` (0: a free one, not chosen yet).
    std::uint16_t choose(std::uint16_t server_port) {
        const std::lock_guard lock(mutex);
        const auto at = by_server_port.find(server_port);
        return server_port != 0 && at != by_server_port.end() ? at->second : os::free_loopback_port();
    }
    void remember(std::uint16_t server_port, std::uint16_t proxy_port) {
        const std::lock_guard lock(mutex);
        by_server_port[server_port] = proxy_port;
    }
};
ProxyPorts& proxy_ports() {
    static ProxyPorts ports;
    return ports;
}
}  // namespace

// The openapi topology's proxy: started once the server listens, stopped
// before it; each mismatch it found is one JSON line of violations.jsonl.
// The member sets of answers it records in the tree's cache
// (tests/openapi/examples_test.mjs holds the document's examples to them).
struct Server::Validator {
    explicit Validator(std::uint16_t server_port) : port(proxy_ports().choose(server_port)) {}

    TempDir dir;  // violations.jsonl, proxy.log
    std::uint16_t port;  // chosen before the server starts: its domain
    std::optional<os::Process> proxy;

    [[nodiscard]] std::string host() const { return "127.0.0.1:" + std::to_string(port); }

    void start(std::uint16_t target) {
        proxy_ports().remember(target, port);
        proxy.emplace(std::vector<std::string>{"node", source_path("tests/support/js/openapi_proxy.mjs"), "--port",
                                               std::to_string(port), "--target", std::to_string(target), "--document",
                                               source_path("docs/openapi.yaml"), "--violations",
                                               dir / "violations.jsonl", "--cache", test_cache_dir(), "--answers",
                                               test_cache_dir() + "/openapi-answers"},
                      dir / "proxy.log");
        if (!os::wait_for_port(port, std::chrono::seconds(10)))
            FAIL("the validating proxy did not start; its log:\n" << file_tail(dir / "proxy.log", 40));
    }

    void stop() {
        if (proxy) proxy->stop(std::chrono::seconds(5));
        proxy.reset();
    }

    /// Stops the proxy; what it found ("" for nothing).
    std::string finish() {
        stop();
        std::ifstream in(dir / "violations.jsonl");
        std::ostringstream text;
        text << in.rdbuf();
        return text.str();
    }
};

// The replicas topology's parts, in the order they are stopped in: haproxy,
// the other replicas, (the first replica: Server::process_), PostgreSQL.
struct Server::Replicas {
    std::optional<Postgres> postgres;
    std::string database_url;
    bool admin_made = false;  // the fixture's admin came with the cluster (ReplicasTemplate)
    TempDir dir;  // kubo.log
    std::uint16_t port = 0;  // haproxy's, chosen before it starts: the replicas' domain
    // The content store the replicas share (README, "Running several
    // servers": a shared Kubo node): tests/support/js/kubo_standin.mjs, and
    // the [content] table appended to each replica's config for it; none
    // when the test's config has content settings of its own.
    std::optional<os::Process> kubo;
    std::string content_config;
    std::vector<std::unique_ptr<Server>> others;
    std::optional<Haproxy> haproxy;

    [[nodiscard]] std::string host() const { return "127.0.0.1:" + std::to_string(port); }
};

Server::Server(Options options) : options_(std::move(options)) {
    options_.env.emplace("ABCI_ADMIN_EMAIL", admin_email);
    options_.env.emplace("ABCI_ADMIN_PASSWORD", admin_password);
    if (replicas_topology() && replicas_eligible()) {
        replicas_ = std::make_unique<Replicas>();
        if (const auto cluster = has_fixture_admin() ? ReplicasTemplate::cluster() : std::nullopt) {
            replicas_->postgres.emplace(*cluster);
            replicas_->database_url = replicas_->postgres->url(ReplicasTemplate::database);
            replicas_->admin_made = true;
        } else {
            replicas_->postgres.emplace();
            replicas_->database_url = replicas_->postgres->create_database(ReplicasTemplate::database);
        }
        options_.env.emplace("ABCI_DATABASE_URL", replicas_->database_url);
        // The public address is haproxy's: the SIWE domain every replica expects.
        replicas_->port = os::free_loopback_port();
        if (options_.config.find("domain") == std::string::npos) options_.env.emplace("ABCI_DOMAIN", replicas_->host());
        if (options_.config.find("[content]") == std::string::npos &&
            options_.config.find("content.") == std::string::npos) {
            const auto kubo_port = os::free_loopback_port();
            replicas_->kubo.emplace(std::vector<std::string>{"node", source_path("tests/support/js/kubo_standin.mjs"),
                                                             "--port", std::to_string(kubo_port)},
                                    replicas_->dir / "kubo.log");
            if (!os::wait_for_port(kubo_port, std::chrono::seconds(10)))
                FAIL("the Kubo stand-in did not start; its log:\n" << file_tail(replicas_->dir / "kubo.log", 40));
            replicas_->content_config =
                fmt::format("\n[content]\nbackend = \"kubo\"\nkuboUrl = \"http://127.0.0.1:{}\"\n", kubo_port);
        }
    }
    if (openapi_topology() && !replicas_) {
        validator_ = std::make_unique<Validator>(options_.port);
        if (options_.config.find("domain") == std::string::npos) options_.env.emplace("ABCI_DOMAIN", validator_->host());
    }
    if (starts_from_admin_template()) {
        if (const auto database = AdminTemplate::database()) {
            fs::create_directories(data_dir());
            fs::permissions(data_dir(), fs::perms::owner_all);
            fs::copy_file(*database, fs::path(data_dir()) / "abci.db");
        }
    }
    // A free port may be taken before the server binds it: then another one,
    // unless the test chose it. A server that died of anything else is a
    // failure at once: launching it again would hide an intermittent crash.
    bool up = false;
    for (int attempt = 0; attempt < (options_.port ? 1 : 3) && !up; ++attempt) {
        port_ = options_.port ? options_.port : os::free_loopback_port();
        up = launch();
        if (!up && log().find("cannot listen on") == std::string::npos) break;
    }
    if (!up) FAIL("abcictl serve did not start; log:\n" << log_tail());
    if (replicas_) start_replicas();
    if (validator_) validator_->start(port_);
}

std::string Server::config() const { return options_.config + (replicas_ ? replicas_->content_config : ""); }

bool Server::replicas_eligible() const {
    const auto& env = options_.env;
    return options_.port == 0 && !env.contains("ABCI_DATABASE_URL") && !env.contains("ABCI_DATA_DIR") &&
           !names_a_database(options_.config);
}

// The other two replicas (same config and environment: the same database and
// domain; each its own port and data directory), then haproxy in front of all three as
// examples/haproxy-replicas.cfg sets it up, without its /readyz check: the
// tests see each replica's own answer, also while a chain is down.
void Server::start_replicas() {
    // The fixture's admin, made by the first replica when there was no template (password_cost.hpp).
    if (has_fixture_admin() && !replicas_->admin_made)
        (void)lower_password_cost(*open_store(), admin_email, admin_password);
    std::vector<std::uint16_t> ports{port_};
    for (int other = 0; other < 2; ++other) {
        replicas_->others.push_back(std::make_unique<Server>(Options{config(), 0, options_.env}));
        ports.push_back(replicas_->others.back()->port());
    }
    replicas_->haproxy.emplace(Haproxy::Options{.replica_ports = ports, .health_checks = false, .port = replicas_->port});
}

Server::~Server() {
    if (test_failing() && process_)
        std::cerr << "---- abcictl serve on port " << port_ << ", last lines of its log ----\n"
                  << log_tail() << "---- end of server log ----\n";
    if (replicas_) {
        replicas_->haproxy.reset();
        replicas_->others.clear();
    }
    if (validator_) {
        const auto found = validator_->finish();
        // A test already failing (a REQUIRE's exception on its way) only gets them printed.
        if (!found.empty() && std::uncaught_exceptions() == 0)
            FAIL_CHECK("answers or accepted requests docs/openapi.yaml does not describe:\n" << found);
        else if (!found.empty())
            std::cerr << "---- not described by docs/openapi.yaml ----\n" << found;
    }
    stop();
    if (replicas_ && replicas_->kubo) replicas_->kubo->stop();
    replicas_.reset();
}

bool Server::has_fixture_admin() const {
    return options_.env.at("ABCI_ADMIN_EMAIL") == admin_email && options_.env.at("ABCI_ADMIN_PASSWORD") == admin_password;
}

bool Server::starts_from_admin_template() const {
    // The fixture's own admin on a SQLite store in a data directory of its own, as
    // AdminTemplate's first start; anything else (another admin, none, a database
    // URL in the environment or the config) starts empty.
    const auto& env = options_.env;
    return has_fixture_admin() && !env.contains("ABCI_DATABASE_URL") && !env.contains("ABCI_DATA_DIR") &&
           !names_a_database(options_.config);
}

bool Server::launch() {
    std::vector<std::string> args{"serve", "--listen", "127.0.0.1:" + std::to_string(port_), "--data-dir", data_dir()};
    if (const auto text = config(); !text.empty())
        args.insert(args.end(),
                    {"--config", dir_.write("config.toml", replace_all(text, "{port}", std::to_string(port_)))});
    process_.emplace(abcictl_argv(args, options_.env), dir_ / "server.log", options_.env);
    const auto deadline = Clock::now() + std::chrono::seconds(20);
    while (Clock::now() < deadline) {
        if (!process_->running()) return false;  // e.g. the port was taken meanwhile
        // Its own "serving" line first, not an open port alone: a process another test started may have
        // taken the port between its choice and this server's bind, and would answer in its place
        // (a login got no answer while this server's log was still empty, in a parallel sanitized run).
        // Then one connection, as before: each probe counts against the server's per-client cap.
        if (log().find(R"("msg":"serving")") == std::string::npos) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            continue;
        }
        if (os::wait_for_port(port_, std::chrono::milliseconds(100))) return true;
    }
    return false;
}

std::string Server::url() const { return "http://" + host(); }

std::string Server::host() const {
    if (replicas_) return replicas_->host();
    return validator_ ? validator_->host() : "127.0.0.1:" + std::to_string(port_);
}

std::string Server::data_dir() const { return dir_ / "data"; }

int Server::pid() const noexcept { return process_ ? process_->pid() : -1; }

std::string Server::log() const {
    std::ifstream in(dir_ / "server.log", std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string Server::log_tail(std::size_t lines) const { return file_tail(dir_ / "server.log", lines); }

int Server::stop() {
    if (replicas_)
        for (auto& other : replicas_->others) other->stop();
    // As without a proxy: nothing listens at url() while the server is stopped.
    if (validator_) validator_->stop();
    return process_ ? process_->stop(std::chrono::seconds(10)) : -1;
}

void Server::restart() {
    stop();
    if (!launch()) FAIL("abcictl serve did not restart on port " << port_ << "; log:\n" << log_tail());
    if (replicas_)
        for (auto& other : replicas_->others) other->restart(config());
    if (validator_) validator_->start(port_);
}

void Server::restart(std::string config) {
    options_.config = std::move(config);
    restart();
}

Session Server::login(const std::string& email, const std::string& password) const {
    const auto r = http().post("/api/auth/login-email-password", {{"email", email}, {"password", password}});
    INFO("login " << email << ": " << r.status << " " << r.body);
    REQUIRE(r.status == 200);
    return Session{r.json.at("token").get<std::string>(), r.json.at("refresh_token").get<std::string>(),
                   r.json.at("user")};
}

std::unique_ptr<store::Store> Server::open_store() const {
    if (replicas_) return store::open_postgresql_store({.url = replicas_->database_url, .password_file = ""});
    return store::DataDir(data_dir()).open_store(false);
}

os::CommandResult Server::admin_cli(std::vector<std::string> args, const std::string& input) const {
    args.insert(args.end(), {"--data-dir", data_dir()});
    // In the replicas topology the replicas' shared database, not the data directory's.
    return run_abcictl(args, input, replicas_ ? Env{{"ABCI_DATABASE_URL", replicas_->database_url}} : Env{});
}

namespace {
void require_success(const std::string& what, const os::CommandResult& r) {
    INFO(what << " exit " << r.exit_code << "\nstdout: " << r.out << "\nstderr: " << r.err);
    REQUIRE(r.exit_code == 0);
}
}  // namespace

void Server::add_users(const std::vector<NewUser>& users) const {
    const auto store = open_store();
    for (const auto& u : users) (void)add_user_at_low_cost(*store, u.email, u.role, u.password);
}

void Server::link_wallet(const std::string& email, const std::string& address) const {
    require_success("admin user link-wallet " + email,
                    admin_cli({"admin", "user", "link-wallet", "--email", email, "--address", address}));
}

std::string Server::create_api_key(const std::string& name, const std::vector<std::string>& scopes) const {
    std::vector<std::string> args{"admin", "apikey", "create", "--name", name, "-q"};
    for (const auto& scope : scopes) args.insert(args.end(), {"--scope", scope});
    auto r = admin_cli(args);
    require_success("admin apikey create " + name, r);
    while (!r.out.empty() && (r.out.back() == '\n' || r.out.back() == '\r')) r.out.pop_back();
    return r.out;
}

}  // namespace abci::test
