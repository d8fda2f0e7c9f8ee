// /api/auth/*: the login flows of spec 4.9 and DESIGN.md §4.

#include <httplib.h>

#include "core/util/time.hpp"
#include "core/util/fields.hpp"
#include "core/service/admin.hpp"
#include "serve/router.hpp"
#include "serve/routes/routes.hpp"
#include "serve/routes/views.hpp"

namespace abci::serve {

namespace {

// A login: open, and a refusal of its handler is invalid_credentials.
Route login(Method method, std::string pattern, Route::Handler handler) {
    return {method, std::move(pattern), Access::open, {}, std::move(handler),
            Unauthorized::invalid_credentials};
}

Reply login_reply(const auth::LoginResult& login) { return Reply::json(200, login_view(login)); }

Reply login_password(RequestContext& ctx) {
    const auto body = ctx.json_body();
    util::Fields fields(body);
    const auto email = fields.required_string("email", 254);
    const auto password = fields.required_string("password", 1024);
    const auto redirect = fields.optional_string("redirect", 2048);
    fields.done();
    if (redirect) ctx.services.auth.check_redirect(*redirect);
    return login_reply(ctx.services.auth.login_password(email, password, ctx.client_address));
}

// The wallet sign-in settings; Error(not_found) while it is off, for the nonce and the sign-in alike.
const auth::WalletLoginSettings& enabled_wallet_login(RequestContext& ctx) {
    const auto& wallet = ctx.services.auth.settings().wallet;
    if (wallet.chain_ids.empty())
        throw Error(ErrorKind::not_found, "wallet login is not enabled: no chain ids are configured");
    return wallet;
}

Reply wallet_nonce(RequestContext& ctx) {
    const auto& wallet = enabled_wallet_login(ctx);
    const auto nonce = ctx.services.auth.issue_wallet_nonce(ctx.client_address);
    return Reply::json(200, {{"success", true},
                             {"nonce", nonce.nonce},
                             {"expiresAt", util::format_iso8601_utc(nonce.expires_at)},
                             {"domain", wallet.domain},
                             {"uri", wallet.uri_origin},
                             {"chainIds", wallet.chain_ids}});
}

Reply wallet_connect(RequestContext& ctx) {
    (void)enabled_wallet_login(ctx);
    const auto body = ctx.json_body();
    util::Fields fields(body);
    const auto address = fields.required_string("address", 42);
    const auto signature = fields.required_string("signature", 134);
    const auto message = fields.required_string("message", 4096);
    fields.done();
    return login_reply(ctx.services.auth.login_wallet(address, signature, message));
}

Reply idp_login(RequestContext& ctx) {
    const auto body = ctx.request.body.empty() ? nlohmann::json::object() : ctx.json_body();
    util::Fields fields(body);
    const auto id_token = fields.optional_string("id_token", 16 * 1024);
    const auto redirect = fields.optional_string("redirect", 2048);
    fields.done();
    if (id_token) return login_reply(ctx.services.auth.login_id_token(*id_token));
    return Reply::json(200, {{"success", true}, {"authorizationUrl", ctx.services.auth.begin_idp_login(redirect)}});
}

Reply idp_callback(RequestContext& ctx) {
    if (const auto error = ctx.query("error"))
        throw Error(ErrorKind::unauthenticated, "the identity provider refused the login: " + error->substr(0, 200));
    const auto code = ctx.query("code");
    const auto state = ctx.query("state");
    if (!code || !state || code->empty() || state->empty())
        throw Error(ErrorKind::invalid_input, "invalid request", {"code and state query parameters are required"});
    auto result = ctx.services.auth.finish_idp_login(*code, *state);
    if (result.redirect_to) return Reply::redirect(*result.redirect_to);
    return login_reply(*result.login);
}

/// The body's one string field `key`, handed to `login`.
template <typename Login>
Reply login_with_field(RequestContext& ctx, const std::string& key, Login login) {
    const auto body = ctx.json_body();
    util::Fields fields(body);
    const auto value = fields.required_string(key, 256);
    fields.done();
    return login_reply(login(value));
}

Reply idp_exchange(RequestContext& ctx) {
    return login_with_field(ctx, "code", [&](const std::string& code) { return ctx.services.auth.exchange_idp_code(code); });
}

Reply refresh(RequestContext& ctx) {
    return login_with_field(ctx, "refresh_token",
                            [&](const std::string& token) { return ctx.services.auth.refresh(token); });
}

Reply logout(RequestContext& ctx) {
    ctx.services.auth.logout(ctx.caller());
    return Reply::json(200, {{"success", true}, {"message", "logged out"}});
}

Reply me(RequestContext& ctx) {
    const auto account = service::Listings(ctx.services.store).own_account(ctx.caller().id);
    return Reply::json(200, {{"success", true}, {"user", account_view(account)}});
}

}  // namespace

std::vector<Route> auth_routes() {
    return {
        login(Method::post, "/api/auth/login-email-password", login_password),
        login(Method::get, "/api/auth/wallet-nonce", wallet_nonce),
        login(Method::post, "/api/auth/wallet-connect", wallet_connect),
        login(Method::post, "/api/auth/idp-login", idp_login),
        // DESIGN.md §4: the provider's configured name routes to it as well.
        login(Method::post, "/api/auth/([a-z0-9-]+)-login",
              [](RequestContext& ctx) {
                  if (!ctx.services.auth.has_idp(ctx.path_match(1)))
                      throw Error(ErrorKind::not_found, "no identity provider named " + ctx.path_match(1));
                  return idp_login(ctx);
              }),
        login(Method::get, "/api/auth/idp-callback", idp_callback),
        // Token exchanges: open, and a refusal is invalid_token.
        {Method::post, "/api/auth/idp-exchange", Access::open, {}, idp_exchange},
        {Method::post, "/api/auth/refresh", Access::open, {}, refresh},
        {Method::post, "/api/auth/logout", Access::authenticated, {}, logout},
        {Method::get, "/api/auth/me", Access::authenticated, {}, me},
    };
}

}  // namespace abci::serve
