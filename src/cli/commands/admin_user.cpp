// `abcictl admin user …`: platform accounts, created and changed directly in
// the server's data directory (DESIGN.md §6). Passwords come from a file,
// stdin or a hidden prompt, never from the command line; `import` onboards a
// cohort without passwords (they sign in with a wallet or the IdP).

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <unordered_map>

#include "cli/commands/commands.hpp"
#include "cli/confirm.hpp"
#include "cli/context.hpp"
#include "cli/data_dir_option.hpp"
#include "cli/secret_input.hpp"
#include "cli/validators.hpp"
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
    // Shown as EIP-55, the form wallets and explorers print; JSON keeps the stored lower case.
    for (const auto& wallet : wallets) joined += (joined.empty() ? "" : ",") + eth::Address::parse(wallet).checksummed();
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
    const auto wallets = store.credentials().wallets_of(user.id);
    const auto cells = user_cells(user, wallets);
    Record record;
    record.essential = user.id;
    for (std::size_t i = 0; i < kUserHeaders.size(); ++i)
        record.fields.emplace_back(CLI::detail::to_lower(kUserHeaders[i]), cells[i]);
    ctx.print(record, user_json(user, wallets));
}

// The store refuses a taken e-mail or wallet too; asking first lets the
// message name it, and its owner.

/// Error(conflict) when a user has this (normalised) e-mail already.
void check_email_free(store::Store& store, const std::string& email) {
    if (store.users().find_by_email(email))
        throw Error(ErrorKind::conflict, "a user with e-mail " + email + " exists already");
}

/// Error(conflict) naming the owner when the (lower-case) wallet is linked to
/// a user other than `user_id`.
void check_wallet_free(store::Store& store, const std::string& address, const std::string& user_id = {}) {
    if (const auto owner = store.credentials().find_user_by_wallet(address); owner && owner->id != user_id)
        throw Error(ErrorKind::conflict, "wallet " + address + " is already linked to " + owner->email);
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
    set_examples(*command, {
                 {"The first admin, the password asked on the terminal", "abcictl admin user add --data-dir /var/lib/abcictl --email admin@example.org --role admin"},
                 {"A farmer who signs in with a wallet", "abcictl admin user add --data-dir /var/lib/abcictl --email ann@example.org --role farmer --no-password"}});
    s->data_dir.add_to(*command);
    command->add_option("--email", s->email, "The user's e-mail (their login; case-insensitive)")->required();
    one_of(command->add_option("--role", s->role, "The user's role")->required(), auth::role_names());
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
        // Asking before the store refuses it spares a password hash too.
        check_email_free(*store, email);
        const store::User created = auth::add_user(
            *store, email, role, password ? std::optional<std::string_view>(password->view()) : std::nullopt);
        print_user(ctx, *store, created);
    });
}

void add_user_list(CLI::App& user, Context& ctx) {
    auto* command = add_store_command(user, "list", "List the users, oldest first (-q: their ids)", [&ctx](store::Store& store) {
        std::vector<std::vector<std::string>> rows;
        auto json = nlohmann::json::array();
        for (const auto& account : store.users().list()) {
            const auto wallets = store.credentials().wallets_of(account.id);
            rows.push_back(user_cells(account, wallets));
            json.push_back(user_json(account, wallets));
        }
        ctx.print_table(kUserHeaders, rows, json);
    });
    set_examples(*command, {{"Every user, with their wallets", "abcictl admin user list --data-dir /var/lib/abcictl"}});
}

// Adds a subcommand changing the user named by --email with the value of
// `value_flag`; `apply` makes the change and returns the user as it now is.
// Returns the subcommand.
CLI::App* add_user_change(CLI::App& user, Context& ctx, const std::string& name, const std::string& description,
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
    return command;
}

store::User change_user_role(store::Store& store, store::User user, const std::string& role_name) {
    user.role = auth::to_string(auth::parse_role(role_name));
    store.users().set_role(user.id, user.role);
    return user;
}

store::User link_user_wallet(store::Store& store, store::User user, const std::string& text) {
    const std::string address = eth::Address::parse(text).lower();
    check_wallet_free(store, address, user.id);
    store.credentials().link_wallet(user.id, address);
    return user;
}

// --- import: JSON Lines, every line checked before anything is written ---------

/// The account one line of an import file asks for, checked as `add` and
/// `link-wallet` check their options. Error(invalid_input) when malformed.
store::NewAccount parse_import_line(std::string_view line) {
    nlohmann::json object;
    try {
        object = nlohmann::json::parse(line);
    } catch (const nlohmann::json::parse_error& e) {
        throw Error(ErrorKind::invalid_input, fmt::format("malformed JSON at column {}", e.byte));
    }
    if (!object.is_object())
        throw Error(ErrorKind::invalid_input, "not a JSON object {\"email\": …, \"role\": …, \"wallet\": …}");
    // A misspelt "wallet" would otherwise import a user who cannot sign in.
    for (const auto& item : object.items())
        if (item.key() != "email" && item.key() != "role" && item.key() != "wallet")
            throw Error(ErrorKind::invalid_input,
                        fmt::format("unknown field \"{}\" (the fields are email, role and wallet)", item.key()));
    const auto field = [&object](const char* name) -> std::optional<std::string> {
        const auto it = object.find(name);
        if (it == object.end()) return std::nullopt;
        if (!it->is_string()) throw Error(ErrorKind::invalid_input, fmt::format("\"{}\" must be a string", name));
        return it->get<std::string>();
    };
    const auto required = [&field](const char* name) {
        auto value = field(name);
        if (!value) throw Error(ErrorKind::invalid_input, fmt::format("\"{}\" is missing", name));
        return *value;
    };
    const std::string email = required("email");
    store::NewAccount account{auth::new_user(email, auth::parse_role(required("role"))), {}};
    if (const auto wallet = field("wallet")) account.wallets.push_back(eth::Address::parse(*wallet).lower());
    return account;
}

/// Every line of an import file, checked against each other and the store.
class ImportBatch {
public:
    explicit ImportBatch(store::Store& store) : store_(store) {}

    /// Checks line `number` and keeps its account, or notes what is wrong with it.
    void add(std::size_t number, std::string_view line) {
        try {
            store::NewAccount account = parse_import_line(line);
            claim(emails_, account.user.email, number, "e-mail");
            check_email_free(store_, account.user.email);
            for (const auto& address : account.wallets) {
                claim(wallets_, address, number, "wallet");
                check_wallet_free(store_, address);
            }
            accounts_.push_back(std::move(account));
        } catch (const Error& e) {
            // Only the file's own faults are its lines' problems; a failing store is not.
            if (e.kind() != ErrorKind::invalid_input && e.kind() != ErrorKind::conflict) throw;
            if (e.kind() == ErrorKind::invalid_input) malformed_ = true;
            problems_.push_back(fmt::format("line {}: {}", number, e.what()));
        }
    }

    /// Creates every account in one transaction and returns the users, in
    /// file order. With any problem noted, writes nothing and throws: the first
    /// problem, every one in the details; invalid_input (exit 2) when a line is
    /// malformed, else conflict.
    std::vector<store::User> commit() {
        if (!problems_.empty())
            throw Error(malformed_ ? ErrorKind::invalid_input : ErrorKind::conflict, problems_.front(), problems_);
        return store_.users().create_accounts(accounts_);
    }

    [[nodiscard]] const std::vector<store::NewAccount>& accounts() const { return accounts_; }

private:
    /// Notes that `value` (an e-mail or a wallet) is on line `number`; Error(conflict) when an earlier line has it.
    static void claim(std::unordered_map<std::string, std::size_t>& seen, const std::string& value,
                      std::size_t number, const char* what) {
        const auto [it, fresh] = seen.emplace(value, number);
        if (!fresh) throw Error(ErrorKind::conflict, fmt::format("{} {} is on line {} already", what, value, it->second));
    }

    store::Store& store_;
    std::vector<store::NewAccount> accounts_;
    std::unordered_map<std::string, std::size_t> emails_, wallets_;
    std::vector<std::string> problems_;
    bool malformed_ = false;
};

/// Feeds every non-blank line of `in` to `batch`, numbered from 1.
void read_import_lines(std::istream& in, ImportBatch& batch) {
    std::string line;
    for (std::size_t number = 1; std::getline(in, line); ++number) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.find_first_not_of(" \t") == std::string::npos) continue;
        batch.add(number, line);
    }
    if (in.bad()) throw Error(ErrorKind::unavailable, "cannot read the import file");
}

void add_user_import(CLI::App& user, Context& ctx) {
    auto source = std::make_shared<std::string>("-");
    auto* command = add_store_command(
        user, "import",
        "Create users (no password) and link their wallets from JSON Lines, one "
        "{\"email\", \"role\", \"wallet\"} a line; all or nothing",
        [source, &ctx](store::Store& store) {
            ImportBatch batch(store);
            if (*source == "-") {
                read_import_lines(std::cin, batch);
            } else {
                std::ifstream file(*source);
                if (!file)
                    throw Error(ErrorKind::not_found,
                                fmt::format("cannot read the file {}: {}", *source, std::strerror(errno)));
                read_import_lines(file, batch);
            }
            const auto created = batch.commit();
            if (ctx.options.json) {
                auto json = nlohmann::json::array();
                for (std::size_t i = 0; i < created.size(); ++i)
                    json.push_back(user_json(created[i], batch.accounts()[i].wallets));
                std::cout << json.dump(2) << "\n";
            } else if (ctx.options.quiet) {
                for (const auto& account : created) std::cout << account.id << "\n";
            } else {
                std::cout << "imported " << created.size() << (created.size() == 1 ? " user" : " users") << "\n";
            }
        });
    command->add_option("FILE", *source, "The JSON Lines file, or - for standard input (the default)")
        ->type_name("");
    set_examples(*command, {{"Users and wallets from a file, all or none",
                             "abcictl admin user import --data-dir /var/lib/abcictl users.jsonl"}});
}

}  // namespace

void add_admin_user_command(CLI::App& admin, Context& ctx) {
    auto* user = admin.add_subcommand("user", "Platform users, in the server's data directory");
    user->require_subcommand(1);
    add_user_add(*user, ctx);
    add_user_list(*user, ctx);
    add_user_import(*user, ctx);
    const auto set_role = [&ctx](store::Store& store, store::User account, const std::string& role) {
        // Granting admin is the one change that hands over the whole platform.
        if (role == auth::to_string(auth::Role::admin) && account.role != role &&
            !confirm(ctx.options, "Make " + account.email + " an admin? They can then mint role tokens and manage every user."))
            throw Error(ErrorKind::conflict, "role unchanged");
        return change_user_role(store, std::move(account), role);
    };
    auto* set_role_command = add_user_change(*user, ctx, "set-role", "Change a user's role (asks first for admin unless -y)",
                                             "--role", "The new role", set_role);
    one_of(set_role_command->get_option("--role"), auth::role_names());
    set_examples(*set_role_command, {{"Make a farmer a verifier", "abcictl admin user set-role --data-dir "
                                                                   "/var/lib/abcictl --email ann@example.org --role verifier"}});
    auto* link_command = add_user_change(*user, ctx, "link-wallet", "Link a wallet to a user (for sign-in with Ethereum)",
                                         "--address", "0x address (checksummed or one case)", link_user_wallet);
    set_examples(*link_command, {{"Let a user sign in with a wallet",
                                  "abcictl admin user link-wallet --data-dir /var/lib/abcictl --email ann@example.org "
                                  "--address 0x70997970C51812dc3A010C7d01b50e0d17dc79C8"}});
}

}  // namespace abci::cli
