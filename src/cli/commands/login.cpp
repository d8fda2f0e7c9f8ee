// `abcictl login`: a session with the server, by e-mail and password (the
// default), by wallet signature (Sign-In with Ethereum, signed here with a
// keystore or a key on stdin), or through the server's identity provider (the
// code comes back to a loopback redirect, RFC 8252). The session is stored in
// state.db for the profile and server.

#include <CLI/CLI.hpp>
#include <httplib.h>
#include <unistd.h>

#include <future>
#include <iostream>
#include <memory>

#include "cli/commands/commands.hpp"
#include "cli/context.hpp"
#include "cli/secret_input.hpp"
#include "cli/session.hpp"
#include "cli/validators.hpp"
#include "core/auth/siwe.hpp"
#include "core/keystore/keystore.hpp"
#include "core/os/process.hpp"

namespace abci::cli {
namespace {

struct LoginSettings {
    std::string email;
    // The account's password, or with --wallet the keystore's.
    SecretInput password{"password", "password", true};
    bool wallet = false;
    std::string keystore;
    SecretInput private_key{"private key", "private-key", false};
    std::uint64_t chain_id = 0;
    bool idp = false;
    std::string provider = "idp";
    bool no_browser = false;
    int idp_timeout_seconds = 300;
};

std::string read_email(const Context& ctx, const LoginSettings& s) {
    if (!s.email.empty()) return s.email;
    if (ctx.options.no_input || !::isatty(STDIN_FILENO) || !::isatty(STDERR_FILENO))
        throw Error(ErrorKind::invalid_input, "pass --email (there is no terminal to ask on)");
    std::cerr << "E-mail: " << std::flush;
    std::string email;
    std::getline(std::cin, email);
    return email;
}

nlohmann::json password_login(Context& ctx, ApiClient& client, const LoginSettings& s) {
    const std::string email = read_email(ctx, s);
    const Secret password = s.password.read(ctx.options.no_input, "for " + email + " at " + client.base_url(), false);
    return client.call("POST", "/api/auth/login-email-password", {},
                       nlohmann::json{{"email", email}, {"password", std::string(password.view())}});
}

eth::PrivateKey wallet_key(Context& ctx, const LoginSettings& s) {
    if (!s.keystore.empty()) {
        const Secret password = s.password.read(ctx.options.no_input, "for keystore " + s.keystore, false);
        return keystore::read_file(s.keystore, password.view());
    }
    const Secret key = s.private_key.read(ctx.options.no_input, "to sign in with", false);
    return eth::PrivateKey::from_hex(key.view());
}

nlohmann::json wallet_login(Context& ctx, ApiClient& client, const LoginSettings& s) {
    // Decrypt first: a wrong password fails before the server spends a nonce.
    const eth::PrivateKey key = wallet_key(ctx, s);
    const auto offer = client.call("GET", "/api/auth/wallet-nonce");
    auth::SiweMessage message;
    message.domain = offer.at("domain").get<std::string>();
    message.address = key.address();
    message.statement = "Sign in to the ABCI service with abcictl.";
    message.uri = offer.at("uri").get<std::string>();
    message.version = "1";
    const auto chain_ids = offer.at("chainIds").get<std::vector<std::uint64_t>>();
    message.chain_id = s.chain_id ? s.chain_id : chain_ids.at(0);
    message.nonce = offer.at("nonce").get<std::string>();
    message.issued_at = std::chrono::system_clock::now();
    message.expiration_time = message.issued_at + std::chrono::minutes(5);
    const std::string text = auth::format_siwe_message(message);
    const auto signature = key.sign_message(eth::as_bytes(text));
    return client.call("POST", "/api/auth/wallet-connect", {},
                       nlohmann::json{{"address", key.address().checksummed()},
                                      {"signature", signature.to_hex()},
                                      {"message", text}});
}

// RFC 8252 §7.3: the provider sends the browser back to a loopback port of
// ours; the server hands us a one-time code there, never the tokens.
nlohmann::json idp_login(ApiClient& client, const LoginSettings& s) {
    httplib::Server receiver;
    std::promise<std::string> code_promise;
    auto code_future = code_promise.get_future();
    bool answered = false;
    receiver.Get("/callback", [&](const httplib::Request& request, httplib::Response& response) {
        if (answered) return;
        answered = true;
        if (request.has_param("code")) {
            code_promise.set_value(request.get_param_value("code"));
            response.set_content("Signed in. You can close this window and return to the terminal.\n", "text/plain");
        } else {
            code_promise.set_exception(std::make_exception_ptr(
                Error(ErrorKind::unauthenticated, "the identity provider login did not complete")));
            response.set_content("The login did not complete.\n", "text/plain");
        }
    });
    const int port = receiver.bind_to_any_port("127.0.0.1");
    if (port <= 0) throw Error(ErrorKind::unavailable, "cannot listen on a loopback port for the login redirect");
    std::thread serving([&] { receiver.listen_after_bind(); });
    struct Stop {
        httplib::Server& server;
        std::thread& thread;
        ~Stop() {
            server.stop();
            thread.join();
        }
    } stop{receiver, serving};

    const std::string redirect = "http://127.0.0.1:" + std::to_string(port) + "/callback";
    const std::string route = s.provider == "idp" ? "/api/auth/idp-login" : "/api/auth/" + s.provider + "-login";
    const auto begin = client.call("POST", route, {}, nlohmann::json{{"redirect", redirect}});
    const std::string url = begin.at("authorizationUrl").get<std::string>();
    std::cerr << "Open this URL in a browser to sign in:\n  " << url << "\n" << std::flush;
    if (!s.no_browser) {
        try {
            // The opener finds the user's desktop session and browser through these.
            (void)os::run_command({"xdg-open", url}, "", std::chrono::seconds(5),
                                  os::inherited_env({"DISPLAY", "WAYLAND_DISPLAY", "XDG_RUNTIME_DIR",
                                                     "DBUS_SESSION_BUS_ADDRESS", "XDG_CURRENT_DESKTOP",
                                                     "XDG_DATA_DIRS", "XDG_CONFIG_DIRS", "BROWSER"}));
        } catch (const Error&) {
            // No browser opener here (a server, a container): the printed URL is enough.
        }
    }
    if (code_future.wait_for(std::chrono::seconds(s.idp_timeout_seconds)) != std::future_status::ready)
        throw Error(ErrorKind::timeout, "no login came back within " + std::to_string(s.idp_timeout_seconds) + " s");
    return client.call("POST", "/api/auth/idp-exchange", {}, nlohmann::json{{"code", code_future.get()}});
}

void login(Context& ctx, const LoginSettings& s) {
    auto client = anonymous_client(ctx.options);
    const nlohmann::json answer = s.wallet ? wallet_login(ctx, *client, s)
                                  : s.idp  ? idp_login(*client, s)
                                           : password_login(ctx, *client, s);
    StateDb state(StateDb::default_path());
    save_login(ctx.options, *client, answer, state);
    const auto& user = answer.at("user");
    const std::string email = user.value("email", "");
    ctx.print({{{"server", client->base_url()},
                {"profile", ctx.options.profile},
                {"email", email},
                {"role", user.value("role", "")},
                {"expires_in", std::to_string(answer.value("expires_in", 0)) + " s"}},
               email},
              {{"server", client->base_url()}, {"profile", ctx.options.profile}, {"user", user},
               {"expires_in", answer.value("expires_in", 0)}});
}

}  // namespace

void add_login_command(CLI::App& app, Context& ctx) {
    add_lazy_subcommand(app, "login", "Log in to the server (e-mail and password by default)", [&ctx](CLI::App& cmd) {
        set_examples(cmd, {
                     {"E-mail and password, asked on the terminal", "abcictl login --email admin@example.org"},
                     {"Sign in with a wallet's keystore (Sign-In with Ethereum)", "abcictl login --wallet --keystore signer.json"},
                     {"Through the identity provider, in the browser", "abcictl login --idp"}});
        auto s = std::make_shared<LoginSettings>();
        cmd.add_option("--email", s->email, "Account e-mail (asked when not given)");
        s->password.add_to(cmd);
        auto* wallet = cmd.add_flag("--wallet", s->wallet, "Sign in with a wallet (Sign-In with Ethereum)");
        cmd.add_option("--keystore", s->keystore, "Wallet key: a v3 keystore file (geth, cast)")
            ->check(CLI::ExistingFile);
        s->private_key.add_to(cmd);
        whole_number(cmd.add_option("--chain-id", s->chain_id, "Chain id to sign for (default: the server's first)"), 1);
        auto* idp = cmd.add_flag("--idp", s->idp, "Sign in through the server's identity provider (OpenID Connect)");
        cmd.add_option("--provider", s->provider, "Identity provider name (default: idp)");
        cmd.add_flag("--no-browser", s->no_browser, "Only print the sign-in URL; do not open a browser");
        wallet->excludes(idp);
        cmd.callback([s, &ctx] { login(ctx, *s); });
    });
}

}  // namespace abci::cli
