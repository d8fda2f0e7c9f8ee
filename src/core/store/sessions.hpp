#pragma once
// Login sessions (refresh-token families, revoked access tokens) and the
// single-use tickets of the sign-in flows.

#include <cstddef>
#include <optional>
#include <string>

#include "core/store/records.hpp"
#include "core/store/users.hpp"

namespace abci::store {

struct RefreshToken {
    std::string token_hash;  // SHA-256 of the opaque token, hex
    std::string family_id;
    std::string user_id;
    TimePoint expires_at;
    bool used = false;            // already exchanged once
    bool family_revoked = false;  // the whole family was revoked (logout or reuse)
};

/// What an access token's standing depends on, read in one query (it is
/// asked on every authenticated request).
struct TokenStanding {
    bool token_revoked = false;  // `jti` was passed to revoke_token_id()
    /// The refresh family was revoked (logout, or reuse of a spent
    /// token): the access tokens of that login session are dead too.
    bool session_revoked = false;
    std::optional<User> user;  // as Users::find_by_id(user_id)
};

class Sessions {
public:
    virtual ~Sessions() = default;
    /// Stores a refresh token (its hash) in `family_id`. Error(conflict) on a
    /// duplicate hash or a family of another user; Error(not_found) for an unknown user.
    virtual void add_refresh_token(const RefreshToken& token) = 0;
    [[nodiscard]] virtual std::optional<RefreshToken> find_refresh_token(const std::string& token_hash) = 0;
    /// Marks the token used; true only for the one caller that flipped it from
    /// unused to used (so two concurrent refreshes cannot both succeed).
    [[nodiscard]] virtual bool mark_refresh_token_used(const std::string& token_hash) = 0;
    /// Revokes every token of the family; idempotent.
    virtual void revoke_refresh_family(const std::string& family_id) = 0;
    /// Records a revoked access-token id until `expires_at` (after which the
    /// token is dead anyway and the row may be purged).
    virtual void revoke_token_id(const std::string& jti, TimePoint expires_at) = 0;
    [[nodiscard]] virtual TokenStanding token_standing(const std::string& jti, const std::string& family_id,
                                                       const std::string& user_id) = 0;
};

/// Single-use values with an expiry: SIWE nonces, OIDC login states, the
/// one-time codes of the IdP redirect. `kind` separates their namespaces.
class Tickets {
public:
    virtual ~Tickets() = default;
    /// Error(conflict) when (kind, key) exists.
    virtual void put(const std::string& kind, const std::string& key, const std::string& payload,
                     TimePoint expires_at) = 0;
    /// Removes and returns the ticket's payload when it exists and has not
    /// expired at `now`; each ticket is returned at most once, even to
    /// concurrent callers. Expired tickets are purged on the way.
    [[nodiscard]] virtual std::optional<std::string> take(const std::string& kind, const std::string& key,
                                                          TimePoint now) = 0;
    /// How many tickets of `kind` have not expired at `now`.
    [[nodiscard]] virtual std::size_t count(const std::string& kind, TimePoint now) = 0;
};

}  // namespace abci::store
