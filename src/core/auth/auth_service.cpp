#include "core/auth/auth_service.hpp"

#include <algorithm>

#include "core/auth/accounts.hpp"
#include "core/auth/api_key.hpp"
#include "core/auth/idp_login_ticket.hpp"
#include "core/auth/password.hpp"
#include "core/auth/siwe.hpp"
#include "core/crypto/encoding.hpp"
#include "core/util/next_steps.hpp"
#include "core/error.hpp"
#include "core/rpc/url.hpp"

namespace abci::auth {

namespace {

using Clock = std::chrono::system_clock;

constexpr const char* kNonceTicket = "siwe_nonce";
constexpr const char* kIdpStateTicket = "idp_state";
constexpr const char* kIdpCodeTicket = "idp_code";
constexpr std::chrono::minutes kIdpStateLifetime{10};
constexpr std::chrono::minutes kIdpCodeLifetime{2};

Error refused(const std::string& message) { return Error(ErrorKind::unauthenticated, message); }

std::string lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

/// What `body` returns; a credential it refuses (Error(unauthenticated)) is
/// counted as a failure of `method` on its way out. Other errors (a malformed
/// request, a rate limit, a provider down) are not failures of a credential.
template <class Body>
auto counting_failures(AuthMetrics& metrics, AuthMethod method, Body&& body) {
    try {
        return body();
    } catch (const Error& error) {
        if (error.kind() == ErrorKind::unauthenticated) metrics.failed(method);
        throw;
    }
}

/// Whether an allowed attempt used the last of an enabled budget.
bool exhausts(const limits::RateDecision& decision) { return decision.limit > 0 && decision.remaining == 0; }

bool is_loopback_redirect(const rpc::Url& url) {
    return url.scheme == "http" && (url.host == "127.0.0.1" || url.host == "localhost" || url.host == "[::1]");
}

}  // namespace

std::string Principal::actor() const { return kind == Kind::user ? id : "apikey:" + id; }

bool Principal::has_scope(std::string_view scope) const {
    return std::find(scopes.begin(), scopes.end(), scope) != scopes.end();
}

AuthService::AuthService(store::Store& store, eth::ByteView jwt_secret, AuthSettings settings,
                         metrics::Registry& registry, const limits::Counters& counters)
    : store_(store),
      jwt_(jwt_secret, settings.jwt),
      settings_(std::move(settings)),
      metrics_(registry),
      per_account_address_(counters.limiter(settings_.login_per_account_address, "login-account-address")),
      per_address_(counters.limiter(settings_.login_per_address, "login-address")),
      account_backoff_(counters.backoff(settings_.login_account_backoff, "login-backoff")),
      nonces_per_address_(counters.limiter(settings_.wallet.nonces_per_address, "wallet-nonces")) {
    if (settings_.idp) idp_ = std::make_unique<OidcClient>(*settings_.idp);
}

AuthService::~AuthService() = default;

LoginResult AuthService::issue_tokens(const store::User& user, const std::string& family_id) {
    const auto now = Clock::now();
    auto issued = jwt_.issue(user.id, user.role, user.email, family_id, now);
    auto refresh_token = crypto::random_token(32);
    store_.sessions().add_refresh_token(store::RefreshToken{crypto::sha256_hex(refresh_token), family_id, user.id,
                                                 now + settings_.refresh_lifetime, false, false});
    return LoginResult{std::move(issued.token), settings_.jwt.lifetime.count(), std::move(refresh_token), user};
}

LoginResult AuthService::start_session(const store::User& user) { return issue_tokens(user, crypto::random_uuid()); }

LoginResult AuthService::login_password(std::string_view email, std::string_view password,
                                         std::string_view client_address) {
    const auto account_key = lower(email);
    // '\x1f' occurs in no client address: no two pairs share a key.
    const auto pair_key = std::string(client_address) + '\x1f' + account_key;
    const auto by_pair = per_account_address_->hit(pair_key);
    const auto by_address = per_address_->hit(client_address);
    if (!by_pair.allowed || !by_address.allowed)
        throw limits::RateLimitExceeded("too many login attempts; try again later",
                                        std::max(by_pair.allowed ? std::chrono::seconds(0) : by_pair.reset,
                                                 by_address.allowed ? std::chrono::seconds(0) : by_address.reset),
                                        {settings_.login_per_account_address, "rate_limit.login", ""});
    if (const auto wait = account_backoff_->wait(account_key); wait.count() > 0)
        throw limits::RateLimitExceeded("this account has had many failed logins; try again in " +
                                            std::to_string(wait.count()) + " s",
                                        wait, {settings_.login_per_account_address, "rate_limit.login", ""});

    std::optional<store::User> user;
    std::optional<std::string> hash;
    if (password.size() <= 1024) {
        user = store_.users().find_by_email(account_key);
        if (user) hash = store_.credentials().password_hash(user->id);
    }
    if (!hash) spend_password_verification_time(password.substr(0, 1024));
    if (!hash || !verify_password(password, *hash)) {
        account_backoff_->failed(account_key);
        metrics_.failed(AuthMethod::password);
        if (exhausts(by_pair)) metrics_.locked(LockoutScope::account);
        if (exhausts(by_address)) metrics_.locked(LockoutScope::address);
        throw refused("invalid e-mail or password");
    }
    // The limits count failures (README: wrong passwords lock), so an owner's
    // good logins never use up the attempts a mistyped password needs.
    per_account_address_->forgive(pair_key);
    per_address_->forgive(client_address);
    return start_session(*user);
}

AuthService::WalletNonce AuthService::issue_wallet_nonce(std::string_view client_address) {
    if (nonces_per_address_->limit().enabled()) {
        const auto by_address = nonces_per_address_->hit(client_address);
        if (!by_address.allowed)
            throw limits::RateLimitExceeded("too many wallet nonces asked for from this address; try again later",
                                            by_address.reset,
                                            {settings_.wallet.nonces_per_address, "limits.walletNonceRate", ""});
    }
    if (store_.tickets().count(kNonceTicket, Clock::now()) >= settings_.wallet.max_pending_nonces)
        throw Error(ErrorKind::unavailable, "too many wallet logins are pending; try again in a few minutes");
    // SIWE nonces are alphanumeric: hex of 16 random bytes is 32 of them.
    auto nonce = eth::to_hex(crypto::random_bytes(16), false);
    const auto expires = Clock::now() + settings_.wallet.nonce_lifetime;
    store_.tickets().put(kNonceTicket, nonce, "", expires);
    return WalletNonce{std::move(nonce), expires};
}

LoginResult AuthService::login_wallet(std::string_view address, std::string_view signature, std::string_view message) {
    return counting_failures(metrics_, AuthMethod::siwe, [&] {
        const SiweExpectations expect{settings_.wallet.domain, settings_.wallet.uri_origin, settings_.wallet.chain_ids,
                                      Clock::now()};
        const auto siwe = verify_siwe(message, signature, address, expect);
        // The nonce is consumed only after the signature checked out, so a forged
        // message cannot burn a legitimate client's nonce.
        if (!store_.tickets().take(kNonceTicket, siwe.nonce, Clock::now()))
            throw refused("SIWE nonce is unknown, expired or already used");
        const auto wallet = siwe.address.lower();
        auto user = store_.credentials().find_user_by_wallet(wallet);
        if (!user) {
            if (!settings_.wallet.auto_register)
                throw refused("the wallet " + siwe.address.checksummed() +
                              " is not linked to any user: an admin links it with " +
                              util::link_wallet_command("EMAIL", siwe.address.checksummed()));
            auto created = store_.users().create(
                store::NewUser{wallet.substr(2) + "@wallet.invalid", to_string(Role::farmer), false});
            store_.credentials().link_wallet(created.id, wallet);
            user = std::move(created);
        }
        return start_session(*user);
    });
}

bool AuthService::has_idp(std::string_view name) const noexcept { return idp_ && settings_.idp->name == name; }

void AuthService::check_redirect(std::string_view redirect) const {
    const auto bad = [&] {
        return Error(ErrorKind::invalid_input, "redirect '" + std::string(redirect.substr(0, 200)) +
                                                   "' is not allowed (loopback or a configured origin only)");
    };
    rpc::Url url;
    try {
        url = rpc::parse_url(redirect);
    } catch (const Error&) {
        throw bad();
    }
    if (!url.user.empty()) throw bad();
    if (is_loopback_redirect(url)) return;
    // Origins compare in parse_url's normal form (default ports made explicit).
    const auto allowed = std::any_of(settings_.redirect_origins.begin(), settings_.redirect_origins.end(),
                                     [&](const std::string& origin) { return rpc::parse_url(origin).origin() == url.origin(); });
    if (!allowed) throw bad();
}

std::string AuthService::begin_idp_login(const std::optional<std::string>& redirect) {
    if (!idp_) throw Error(ErrorKind::not_found, "no identity provider is configured");
    if (redirect) check_redirect(*redirect);
    auto request = idp_->begin();
    const IdpLoginTicket pending{request.nonce, request.code_verifier, redirect.value_or("")};
    store_.tickets().put(kIdpStateTicket, crypto::sha256_hex(request.state), pending.serialize(),
                         Clock::now() + kIdpStateLifetime);
    return request.url;
}

store::User AuthService::user_for_identity(const IdTokenClaims& claims) {
    if (auto user = store_.credentials().find_user_by_identity(claims.issuer, claims.subject)) return *user;
    // A first login links the identity to the account with the same e-mail,
    // but only when the provider vouches for that e-mail.
    if (claims.email.empty() || !claims.email_verified)
        throw refused("the identity provider did not vouch for an e-mail address of this account");
    auto user = store_.users().find_by_email(lower(claims.email));
    if (!user) {
        if (!settings_.idp_auto_register) throw refused("no user has the e-mail the identity provider gave");
        user = store_.users().create(store::NewUser{normalize_email(claims.email), to_string(Role::farmer), true});
    }
    store_.credentials().link_identity(user->id, claims.issuer, claims.subject);
    return *user;
}

IdpCallbackResult AuthService::finish_idp_login(const std::string& code, const std::string& state) {
    return counting_failures(metrics_, AuthMethod::oidc, [&] {
        if (!idp_) throw Error(ErrorKind::not_found, "no identity provider is configured");
        const auto pending_text = store_.tickets().take(kIdpStateTicket, crypto::sha256_hex(state), Clock::now());
        if (!pending_text) throw refused("unknown or expired login state");
        const auto pending = IdpLoginTicket::parse(*pending_text);
        const auto claims = idp_->exchange_code(code, pending.code_verifier, pending.nonce);
        const auto user = user_for_identity(claims);
        const auto& redirect = pending.redirect;
        if (redirect.empty()) return IdpCallbackResult{start_session(user), std::nullopt};

        auto one_time = crypto::random_token(32);
        store_.tickets().put(kIdpCodeTicket, crypto::sha256_hex(one_time), user.id, Clock::now() + kIdpCodeLifetime);
        const auto separator = redirect.find('?') == std::string::npos ? '?' : '&';
        return IdpCallbackResult{std::nullopt, redirect + separator + "code=" + one_time};
    });
}

LoginResult AuthService::exchange_idp_code(const std::string& one_time_code) {
    return counting_failures(metrics_, AuthMethod::oidc, [&] {
        const auto user_id = store_.tickets().take(kIdpCodeTicket, crypto::sha256_hex(one_time_code), Clock::now());
        if (!user_id) throw refused("unknown, expired or already used login code");
        const auto user = store_.users().find_by_id(*user_id);
        if (!user) throw refused("the user of this login no longer exists");
        return start_session(*user);
    });
}

LoginResult AuthService::login_id_token(std::string_view id_token) {
    return counting_failures(metrics_, AuthMethod::oidc, [&] {
        if (!idp_) throw Error(ErrorKind::not_found, "no identity provider is configured");
        return start_session(user_for_identity(idp_->verify_id_token(id_token, std::nullopt)));
    });
}

LoginResult AuthService::refresh(std::string_view refresh_token) {
    return counting_failures(metrics_, AuthMethod::refresh, [&] {
        const auto hash = crypto::sha256_hex(refresh_token);
        const auto token = store_.sessions().find_refresh_token(hash);
        if (!token) throw refused("unknown refresh token");
        if (token->family_revoked) throw refused("this session has been revoked; log in again");
        if (token->used || !store_.sessions().mark_refresh_token_used(hash)) {
            // A spent token coming back means it leaked: end the whole session.
            store_.sessions().revoke_refresh_family(token->family_id);
            throw refused("refresh token reuse detected; the session has been revoked, log in again");
        }
        if (token->expires_at <= Clock::now()) throw refused("the refresh token has expired; log in again");
        const auto user = store_.users().find_by_id(token->user_id);
        if (!user) throw refused("the user of this session no longer exists");
        return issue_tokens(*user, token->family_id);
    });
}

void AuthService::logout(const Principal& principal) {
    if (principal.kind != Principal::Kind::user)
        throw Error(ErrorKind::invalid_input, "API keys do not log out; revoke the key instead");
    store_.sessions().revoke_token_id(principal.jti, principal.token_expires_at);
    store_.sessions().revoke_refresh_family(principal.session_id);
}

Principal AuthService::authenticate(std::string_view bearer) {
    Principal principal;
    if (looks_like_api_key(bearer)) {
        const auto key = store_.api_keys().find_by_hash(hash_api_key(bearer));
        if (!key || key->revoked_at) {
            metrics_.failed(AuthMethod::api_key);
            throw refused("the API key is unknown or revoked");
        }
        principal.kind = Principal::Kind::api_key;
        principal.id = key->id;
        principal.scopes = key->scopes;
        return principal;
    }
    const auto user = counting_failures(metrics_, AuthMethod::access_token, [&] {
        const auto claims = jwt_.verify(bearer, Clock::now());
        auto standing = store_.sessions().token_standing(claims.jti, claims.session_id, claims.subject);
        if (standing.token_revoked) throw refused("the token has been revoked");
        // Reuse of a spent refresh token revokes the session: its access tokens too.
        if (standing.session_revoked) throw refused("the token's session has been revoked");
        if (!standing.user) throw refused("the token's user no longer exists");
        principal.jti = claims.jti;
        principal.session_id = claims.session_id;
        principal.token_expires_at = claims.expires_at;
        return std::move(*standing.user);
    });
    principal.id = user.id;
    // The role is read from the store, so a role change applies at once.
    principal.role = parse_role(user.role);
    principal.email = user.email;
    return principal;
}

}  // namespace abci::auth
