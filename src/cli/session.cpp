#include "cli/session.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "cli/advice.hpp"
#include "cli/cli_settings.hpp"

namespace abci::cli {

namespace {

std::string not_logged_in(const std::string& server) {
    return "not logged in to " + server + ": run abcictl login";
}

// The login that makes a new session for this server and profile.
std::string login_command(const GlobalOptions& options, const std::string& server) {
    return "run `" + shell_command({"abcictl", "--server", server, "--profile", options.profile, "login"}) + "`";
}

// A new access token from the session's refresh token (the rotated one
// stored); nothing when the server refuses it, and the session is then
// forgotten, since no later command can use it either.
std::optional<std::string> refreshed_token(const GlobalOptions& options, ApiClient& client, StateDb& state,
                                           const std::string& refresh_token) {
    // A token the server refused must not ride along on the refresh.
    client.set_bearer({});
    const auto answer = client.send("POST", "/api/auth/refresh", {}, nlohmann::json{{"refresh_token", refresh_token}});
    if (answer.status != 200 || !answer.body.is_object() || !answer.body.contains("token")) {
        if (answer.status == 401 || answer.status == 400) state.remove_session(options.profile, client.base_url());
        return std::nullopt;
    }
    save_login(options, client, answer.body, state);
    return answer.body.at("token").get<std::string>();
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
    const auto server = client->base_url();
    const std::string token_variable(cli_setting("ABCICTL_TOKEN").env);
    if (const char* token = std::getenv(token_variable.c_str()); token && *token) {
        client->set_bearer(token);
        client->on_unauthenticated([server, token_variable, profile = options.profile](const ServerError& refused,
                                                                                        bool) -> std::optional<std::string> {
            // No refresh token goes with an API key: the variable is what to fix.
            throw ServerError(refused, token_variable + " was refused by " + server + " (" + refused.what() +
                                           "): set it to a valid API key, or unset it to use profile " + profile +
                                           "'s session");
        });
        return client;
    }
    auto session = state.session(options.profile, server);
    if (!session) throw Error(ErrorKind::unauthenticated, not_logged_in(server));
    auto access_token = session->access_token;
    if (session->expires_at - std::chrono::system_clock::now() < std::chrono::seconds(30)) {
        auto renewed = refreshed_token(options, *client, state, session->refresh_token);
        if (!renewed)
            throw Error(ErrorKind::unauthenticated, "the session of profile " + options.profile + " on " + server +
                                                        " expired and could not be renewed; not logged in to " +
                                                        server + ": " + login_command(options, server));
        access_token = std::move(*renewed);
    }
    client->set_bearer(access_token);
    // A token can be refused before it expires: the server's signing key
    // changed (a new data directory), or the stored one is not a token.
    client->on_unauthenticated([&options, &state, server, client = client.get()](const ServerError& refused,
                                                                                 bool retried) -> std::optional<std::string> {
        const auto failed = [&] {
            return ServerError(refused, "the session of profile " + options.profile + " on " + server +
                                            " was refused (" + refused.what() +
                                            ") and could not be renewed: " + login_command(options, server));
        };
        if (retried) throw failed();
        const auto current = state.session(options.profile, server);
        auto renewed = current ? refreshed_token(options, *client, state, current->refresh_token) : std::nullopt;
        if (!renewed) throw failed();
        return renewed;
    });
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
