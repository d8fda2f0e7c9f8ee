#include "cli/session.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "cli/cli_settings.hpp"

namespace abci::cli {

namespace {

std::string not_logged_in(const std::string& server) {
    return "not logged in to " + server + ": run abcictl login";
}

}  // namespace

void apply_config_file(GlobalOptions& options) {
    const auto path = config_file_path();
    std::error_code ec;
    if (path && std::filesystem::exists(*path, ec)) {
        std::ifstream in(*path, std::ios::binary);
        if (!in) throw Error(ErrorKind::invalid_input, path->string() + ": cannot be read");
        std::ostringstream text;
        text << in.rdbuf();
        apply_config_text(options, text.str(), path->string());
    }
    if (options.profile.empty()) options.profile = cli_setting("profile").default_value;
    if (options.server.empty())
        options.server = remembered_server(options.profile).value_or(std::string(cli_setting("server").default_value));
}

std::optional<std::string> remembered_server(const std::string& profile) {
    // Only read: a command that never logged in must not create state.db.
    const auto path = StateDb::existing_path();
    return path ? StateDb(*path).login_server(profile) : std::nullopt;
}

std::unique_ptr<ApiClient> anonymous_client(GlobalOptions& options, std::chrono::milliseconds timeout) {
    apply_config_file(options);
    return std::make_unique<ApiClient>(options.server, timeout);
}

std::unique_ptr<ApiClient> authenticated_client(GlobalOptions& options, StateDb& state, std::chrono::milliseconds timeout) {
    auto client = anonymous_client(options, timeout);
    if (const char* token = std::getenv(std::string(cli_setting("ABCICTL_TOKEN").env).c_str()); token && *token) {
        client->set_bearer(token);
        return client;
    }
    auto session = state.session(options.profile, client->base_url());
    if (!session) throw Error(ErrorKind::unauthenticated, not_logged_in(client->base_url()));
    if (session->expires_at - std::chrono::system_clock::now() < std::chrono::seconds(30)) {
        const auto answer = client->send("POST", "/api/auth/refresh", {}, nlohmann::json{{"refresh_token", session->refresh_token}});
        if (answer.status != 200 || !answer.body.is_object() || !answer.body.contains("token")) {
            if (answer.status == 401 || answer.status == 400) state.remove_session(options.profile, client->base_url());
            throw Error(ErrorKind::unauthenticated, "the session expired; " + not_logged_in(client->base_url()));
        }
        save_login(options, *client, answer.body, state);
        session = state.session(options.profile, client->base_url());
    }
    client->set_bearer(session->access_token);
    return client;
}

void save_login(const GlobalOptions& options, const ApiClient& client, const nlohmann::json& login, StateDb& state) {
    Session session;
    session.profile = options.profile;
    session.server = client.base_url();
    session.access_token = login.at("token").get<std::string>();
    session.refresh_token = login.value("refresh_token", "");
    const auto previous = state.session(options.profile, client.base_url());
    // A refresh answer may carry no user: keep the one we knew.
    session.user = login.contains("user") ? login["user"].dump() : (previous ? previous->user : "{}");
    session.expires_at = std::chrono::system_clock::now() + std::chrono::seconds(login.value("expires_in", 3600));
    state.save_session(session);
    state.remember_login_server(options.profile, client.base_url());
}

}  // namespace abci::cli
