#pragma once
// Users and what signs them in: accounts, password hashes, wallets, OIDC identities.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/store/records.hpp"

namespace abci::store {

struct User {
    std::string id;     // UUID v4, assigned by the store
    std::string email;  // stored lower-cased; unique
    std::string role;   // farmer | verifier | admin | developer (checked by auth, not here)
    bool verified = false;
    TimePoint created_at;
};

struct NewUser {
    std::string email;
    std::string role;
    bool verified = false;
};

/// A user to create together with the wallets that sign it in.
struct NewAccount {
    NewUser user;
    std::vector<std::string> wallets;  // lower-case 0x addresses
};

class Users {
public:
    virtual ~Users() = default;
    /// Creates a user. Error(conflict) when the e-mail (case-insensitive) exists.
    [[nodiscard]] virtual User create(const NewUser& user) = 0;
    /// Creates the users and links their wallets in ONE transaction (bulk
    /// onboarding: a transaction per user is a thousand fsyncs): all of them
    /// or, on any error, none. Returns the users in the order given.
    /// Error(conflict) when an e-mail exists or a wallet is linked already,
    /// in the store or earlier in `accounts`.
    [[nodiscard]] virtual std::vector<User> create_accounts(const std::vector<NewAccount>& accounts) = 0;
    [[nodiscard]] virtual std::optional<User> find_by_id(const std::string& id) = 0;
    /// Case-insensitive lookup.
    [[nodiscard]] virtual std::optional<User> find_by_email(const std::string& email) = 0;
    /// All users, oldest first.
    [[nodiscard]] virtual std::vector<User> list() = 0;
    [[nodiscard]] virtual std::size_t count() = 0;
    /// Error(not_found) when the user does not exist.
    virtual void set_role(const std::string& user_id, const std::string& role) = 0;
};

/// How users prove who they are. Every link is owned by one user for good.
class Credentials {
public:
    virtual ~Credentials() = default;
    /// Sets or replaces the user's password hash (an encoded scrypt string).
    /// Error(not_found) when the user does not exist.
    virtual void set_password_hash(const std::string& user_id, const std::string& encoded_hash) = 0;
    [[nodiscard]] virtual std::optional<std::string> password_hash(const std::string& user_id) = 0;

    /// Links a wallet (lower-case 0x address) to a user. Linking the same pair
    /// again is a no-op; Error(conflict) when the wallet belongs to another user.
    virtual void link_wallet(const std::string& user_id, const std::string& address) = 0;
    [[nodiscard]] virtual std::optional<User> find_user_by_wallet(const std::string& address) = 0;
    /// The user's wallets, in the order they were linked.
    [[nodiscard]] virtual std::vector<std::string> wallets_of(const std::string& user_id) = 0;

    /// Links an external identity (OIDC issuer + subject) to a user; idempotent;
    /// Error(conflict) when it belongs to another user.
    virtual void link_identity(const std::string& user_id, const std::string& issuer, const std::string& subject) = 0;
    [[nodiscard]] virtual std::optional<User> find_user_by_identity(const std::string& issuer,
                                                                    const std::string& subject) = 0;
};

}  // namespace abci::store
