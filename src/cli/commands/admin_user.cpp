// `abcictl admin user …`: platform accounts, created and changed directly in
// the server's data directory (DESIGN.md §6). Passwords come from a file,
// stdin or a hidden prompt, never from the command line.

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/commands/commands.hpp"
#include "cli/context.hpp"
#include "cli/data_dir_option.hpp"
#include "cli/secret_input.hpp"
#include "core/auth/accounts.hpp"
#include "core/auth/roles.hpp"
#include "core/error.hpp"
#include "core/eth/address.hpp"
#include "core/store/store.hpp"
#include "core/util/time.hpp"

namespace abci::cli {
namespace {

// The fields shown for an account, in order: table headers, and (lower-cased) record keys.
const std::vector<std::string> kUserHeaders{"ID", "EMAIL", "ROLE", "VERIFIED", "WALLETS", "CREATED"};

std::vector<std::string> user_cells(const store::User& user, const std::vector<std::string>& wallets) {
    std::string joined;
    for (const auto& wallet : wallets) joined += (joined.empty() ? "" : ",") + wallet;
    return {user.id,
            user.email,
            user.role,
            user.verified ? "yes" : "no",
            joined.empty() ? "-" : joined,
            util::format_iso8601_utc(user.created_at)};
}

nlohmann::json user_json(const store::User& user, const std::vector<std::string>& wallets) {
    return {{"id", user.id},
            {"email", user.email},
            {"role", user.role},
            {"verified", user.verified},
            {"wallets", wallets},
            {"createdAt", util::format_iso8601_utc(user.created_at)}};
}

// What add, set-role and link-wallet print: the account as it now is (-q: its id).
void print_user(const Context& ctx, store::Store& store, const store::User& user) {
    const auto wallets = store.wallets_of(user.id);
    const auto cells = user_cells(user, wallets);
    Record record;
    record.essential = user.id;
    for (std::size_t i = 0; i < kUserHeaders.size(); ++i)
        record.fields.emplace_back(CLI::detail::to_lower(kUserHeaders[i]), cells[i]);
    ctx.print(record, user_json(user, wallets));
}

struct UserAddSettings {
    DataDirOption data_dir;
    std::string email;
    std::string role;
    SecretInput password{"password", "password", true};
    bool no_password = false;
};

void add_user_add(CLI::App& user, Context& ctx) {
    auto s = std::make_shared<UserAddSettings>();
    auto* command = user.add_subcommand("add", "Create a user (creates the data directory on first use)");
    s->data_dir.add_to(*command);
    command->add_option("--email", s->email, "The user's e-mail (their login; case-insensitive)")->required();
    command->add_option("--role", s->role, "farmer, verifier, admin or developer")->required();
    s->password.add_to(*command);
    command
        ->add_flag("--no-password", s->no_password,
                   "Create the user without a password (they log in with a wallet or the IdP)")
        ->excludes("--password-stdin")
        ->excludes("--password-file");
    command->callback([s, &ctx] {
        // Check everything the command line says before asking for a password.
        const auth::Role role = auth::parse_role(s->role);
        const std::string email = auth::normalize_email(s->email);
        std::optional<Secret> password;
        if (!s->no_password) {
            password = s->password.read(ctx.options.no_input, "for " + email, true);
            auth::check_password_policy(password->view());
        }
        // Creating the database is right here only: this is how a server's first admin is set up.
        const auto store = s->data_dir.open(true);
        // The store refuses the duplicate too; asking first spares a password hash and names the e-mail.
        if (store->find_user_by_email(email))
            throw Error(ErrorKind::conflict, "a user with e-mail " + email + " exists already");
        const store::User created = auth::add_user(
            *store, email, role, password ? std::optional<std::string_view>(password->view()) : std::nullopt);
        print_user(ctx, *store, created);
    });
}

void add_user_list(CLI::App& user, Context& ctx) {
    add_store_command(user, "list", "List the users, oldest first (-q: their ids)", [&ctx](store::Store& store) {
        std::vector<std::vector<std::string>> rows;
        auto json = nlohmann::json::array();
        for (const auto& account : store.list_users()) {
            const auto wallets = store.wallets_of(account.id);
            rows.push_back(user_cells(account, wallets));
            json.push_back(user_json(account, wallets));
        }
        ctx.print_table(kUserHeaders, rows, json);
    });
}

// Adds a subcommand changing the user named by --email with the value of
// `value_flag`; `apply` makes the change and returns the user as it now is.
void add_user_change(CLI::App& user, Context& ctx, const std::string& name, const std::string& description,
                     const std::string& value_flag, const std::string& value_help,
                     std::function<store::User(store::Store&, store::User, const std::string&)> apply) {
    struct Settings {
        std::string email;
        std::string value;  // the new role, or the wallet to link
    };
    auto s = std::make_shared<Settings>();
    auto* command =
        add_store_command(user, name, description, [s, &ctx, apply = std::move(apply)](store::Store& store) {
            print_user(ctx, store, apply(store, auth::user_by_email(store, s->email), s->value));
        });
    command->add_option("--email", s->email, "The user's e-mail")->required();
    command->add_option(value_flag, s->value, value_help)->required();
}

store::User change_user_role(store::Store& store, store::User user, const std::string& role_name) {
    user.role = auth::to_string(auth::parse_role(role_name));
    store.set_user_role(user.id, user.role);
    return user;
}

store::User link_user_wallet(store::Store& store, store::User user, const std::string& text) {
    const std::string address = eth::Address::parse(text).lower();
    // The store refuses it too; asking first lets the message name the owner.
    if (const auto owner = store.find_user_by_wallet(address); owner && owner->id != user.id)
        throw Error(ErrorKind::conflict, "wallet " + address + " is already linked to " + owner->email);
    store.link_wallet(user.id, address);
    return user;
}

}  // namespace

void add_admin_user_command(CLI::App& admin, Context& ctx) {
    auto* user = admin.add_subcommand("user", "Platform users, in the server's data directory");
    user->require_subcommand(1);
    add_user_add(*user, ctx);
    add_user_list(*user, ctx);
    add_user_change(*user, ctx, "set-role", "Change a user's role", "--role", "farmer, verifier, admin or developer",
                    change_user_role);
    add_user_change(*user, ctx, "link-wallet", "Link a wallet to a user (for sign-in with Ethereum)", "--address",
                    "0x address (checksummed or one case)", link_user_wallet);
}

}  // namespace abci::cli
