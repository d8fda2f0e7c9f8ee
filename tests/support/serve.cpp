#include "support/serve.hpp"

#include <httplib.h>
#include <strings.h>

#include <catch2/catch.hpp>
#include <cctype>
#include <chrono>
#include <exception>
#include <fstream>
#include <future>
#include <iostream>
#include <sstream>

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

Server::Server(Options options) : options_(std::move(options)) {
    options_.env.emplace("ABCI_ADMIN_EMAIL", admin_email);
    options_.env.emplace("ABCI_ADMIN_PASSWORD", admin_password);
    // A free port may be taken before the server binds it: then another one,
    // unless the test chose it. A server that died of anything else is a
    // failure at once: launching it again would hide an intermittent crash.
    for (int attempt = 0; attempt < (options_.port ? 1 : 3); ++attempt) {
        port_ = options_.port ? options_.port : os::free_loopback_port();
        if (launch()) return;
        if (log().find("cannot listen on") == std::string::npos) break;
    }
    FAIL("abcictl serve did not start; log:\n" << log_tail());
}

Server::~Server() {
    if (test_failing() && process_)
        std::cerr << "---- abcictl serve on port " << port_ << ", last lines of its log ----\n"
                  << log_tail() << "---- end of server log ----\n";
    stop();
}

bool Server::launch() {
    std::vector<std::string> args{"serve", "--listen", host(), "--data-dir", data_dir()};
    if (!options_.config.empty())
        args.insert(args.end(), {"--config", dir_.write("config.toml", replace_all(options_.config, "{port}",
                                                                                    std::to_string(port_)))});
    process_.emplace(abcictl_argv(args, options_.env), dir_ / "server.log", options_.env);
    const auto deadline = Clock::now() + std::chrono::seconds(20);
    while (Clock::now() < deadline) {
        if (!process_->running()) return false;  // e.g. the port was taken meanwhile
        if (os::wait_for_port(port_, std::chrono::milliseconds(100))) return true;
    }
    return false;
}

std::string Server::url() const { return "http://" + host(); }

std::string Server::host() const { return "127.0.0.1:" + std::to_string(port_); }

std::string Server::data_dir() const { return dir_ / "data"; }

int Server::pid() const noexcept { return process_ ? process_->pid() : -1; }

std::string Server::log() const {
    std::ifstream in(dir_ / "server.log", std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string Server::log_tail(std::size_t lines) const { return file_tail(dir_ / "server.log", lines); }

int Server::stop() { return process_ ? process_->stop(std::chrono::seconds(10)) : -1; }

void Server::restart() {
    stop();
    if (!launch()) FAIL("abcictl serve did not restart on port " << port_ << "; log:\n" << log_tail());
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

os::CommandResult Server::admin_cli(std::vector<std::string> args, const std::string& input) const {
    args.insert(args.end(), {"--data-dir", data_dir()});
    return run_abcictl(args, input);
}

namespace {
void require_success(const std::string& what, const os::CommandResult& r) {
    INFO(what << " exit " << r.exit_code << "\nstdout: " << r.out << "\nstderr: " << r.err);
    REQUIRE(r.exit_code == 0);
}
}  // namespace

void Server::add_users(const std::vector<NewUser>& users) const {
    std::vector<std::future<os::CommandResult>> runs;
    for (const auto& u : users)
        runs.push_back(std::async(std::launch::async, [this, u] {
            return admin_cli({"admin", "user", "add", "--email", u.email, "--role", u.role, "--password-stdin"},
                             u.password + "\n");
        }));
    // Catch2 assertions only on the test's own thread.
    for (std::size_t i = 0; i < runs.size(); ++i) require_success("admin user add " + users[i].email, runs[i].get());
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
