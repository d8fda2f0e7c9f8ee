// `abcictl admin apikey …`: API keys (service tokens) for other systems, made
// directly in the server's data directory. A key is shown once, when created;
// only its hash is stored.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands/commands.hpp"
#include "cli/confirm.hpp"
#include "cli/context.hpp"
#include "cli/data_dir_option.hpp"
#include "cli/validators.hpp"
#include "core/auth/api_key.hpp"
#include "core/error.hpp"
#include "core/store/store.hpp"
#include "core/util/time.hpp"

namespace abci::cli {
namespace {

std::string join_scopes(const std::vector<std::string>& scopes) {
    std::string joined;
    for (const auto& scope : scopes) joined += (joined.empty() ? "" : ",") + scope;
    return joined;
}

struct ApiKeyCreateSettings {
    std::string name;
    std::vector<std::string> scopes;
};

void create_api_key(const Context& ctx, store::Store& store, const ApiKeyCreateSettings& s) {
    if (s.name.empty()) throw Error(ErrorKind::invalid_input, "--name must not be empty");
    // A repeated scope grants nothing more: keep the first of each.
    std::vector<std::string> scopes;
    for (const auto& scope : s.scopes) {
        auth::check_scope(scope);
        if (std::find(scopes.begin(), scopes.end(), scope) == scopes.end()) scopes.push_back(scope);
    }
    const auth::GeneratedApiKey generated = auth::generate_api_key();
    const store::ApiKey key = store.api_keys().create({s.name, generated.hash, scopes, ""});
    ctx.print({{{"id", key.id}, {"name", key.name}, {"scopes", join_scopes(key.scopes)}, {"key", generated.key}},
               generated.key},
              {{"id", key.id}, {"name", key.name}, {"scopes", key.scopes}, {"key", generated.key}});
    ctx.note("store this key now: it is not shown again");
}

void add_api_key_create(CLI::App& apikey, Context& ctx) {
    auto s = std::make_shared<ApiKeyCreateSettings>();
    auto* command = add_store_command(apikey, "create", "Create an API key and print it (once; -q: only the key)",
                                      [s, &ctx](store::Store& store) { create_api_key(ctx, store, *s); });
    command->add_option("--name", s->name, "What the key is for (shown in lists)")->required();
    one_of(command->add_option("--scope", s->scopes, "A permission of the key (repeatable, or comma-separated)"),
           auth::known_scopes())
        ->required()
        ->allow_extra_args(false)
        ->delimiter(',');
    set_examples(*command, {{"A key for a monitoring system", "abcictl admin apikey create --data-dir /var/lib/abcictl "
                                                              "--name nagios --scope abci:health"}});
}

void add_api_key_list(CLI::App& apikey, Context& ctx) {
    auto* command = add_store_command(
        apikey, "list", "List the API keys with when each was last used (from the audit log), never the keys themselves (-q: their ids)", [&ctx](store::Store& store) {
            std::vector<std::vector<std::string>> rows;
            auto json = nlohmann::json::array();
            const auto last_used = store.audit().api_keys_last_used();
            for (const auto& key : store.api_keys().list()) {
                const std::string created = util::format_iso8601_utc(key.created_at);
                const std::optional<std::string> revoked =
                    key.revoked_at ? std::optional(util::format_iso8601_utc(*key.revoked_at)) : std::nullopt;
                const auto used = last_used.find(key.id);
                const std::optional<std::string> used_at =
                    used == last_used.end() ? std::nullopt : std::optional(util::format_iso8601_utc(used->second));
                rows.push_back({key.id, key.name, join_scopes(key.scopes), created, used_at.value_or("never"),
                                revoked.value_or("-")});
                json.push_back({{"id", key.id},
                                {"name", key.name},
                                {"scopes", key.scopes},
                                {"createdBy", key.created_by},
                                {"createdAt", created},
                                {"lastUsedAt", used_at ? nlohmann::json(*used_at) : nlohmann::json(nullptr)},
                                {"revokedAt", revoked ? nlohmann::json(*revoked) : nlohmann::json(nullptr)}});
            }
            ctx.print_table({"ID", "NAME", "SCOPES", "CREATED", "LAST USED", "REVOKED"}, rows, json);
        });
    set_examples(*command, {{"The keys and their scopes", "abcictl admin apikey list --data-dir /var/lib/abcictl"}});
}

void add_api_key_revoke(CLI::App& apikey, Context& ctx) {
    auto id = std::make_shared<std::string>();
    auto* command = add_store_command(
        apikey, "revoke", "Revoke an API key: requests with it fail from now on (asks first unless -y)",
        [id, &ctx](store::Store& store) {
            const auto keys = store.api_keys().list();
            const auto key = std::find_if(keys.begin(), keys.end(),
                                          [&](const store::ApiKey& k) { return k.id == *id && !k.revoked_at; });
            const std::string no_such = "no active API key with id " + *id;
            // Nothing to ask about a key that is not there.
            if (key == keys.end()) throw Error(ErrorKind::not_found, no_such);
            if (!confirm(ctx.options, "Revoke API key " + *id + " (" + key->name + ")? Every system using it is shut out."))
                throw Error(ErrorKind::conflict, "nothing revoked");
            if (!store.api_keys().revoke(*id)) throw Error(ErrorKind::not_found, no_such);
            ctx.print({{{"id", *id}, {"revoked", "yes"}}, *id}, {{"id", *id}, {"revoked", true}});
        });
    command->add_option("id", *id, "The key's id (from `apikey list`)")->required();
    set_examples(*command, {{"Revoke a key without being asked (a script)",
                             "abcictl -y admin apikey revoke --data-dir /var/lib/abcictl 3f2c9a1e-5b7d-4e8f-9a0b-1c2d3e4f5a6b"}});
}

}  // namespace

void add_admin_apikey_command(CLI::App& admin, Context& ctx) {
    auto* apikey = admin.add_subcommand("apikey", "API keys for other systems, in the server's data directory");
    apikey->require_subcommand(1);
    add_api_key_create(*apikey, ctx);
    add_api_key_list(*apikey, ctx);
    add_api_key_revoke(*apikey, ctx);
}

}  // namespace abci::cli
