#pragma once
// The one check of a PostgreSQL store's URL (store::PostgresqlSettings::url,
// DESIGN.md §9), shared by every front end that takes one: serve's
// database.url and the admin commands' --database-url.

#include <optional>
#include <string>
#include <string_view>

namespace abci::service {

/// Why `url` may not name a PostgreSQL store, or nothing when it may. It must
/// be a URL as libpq spells one (postgresql:// or postgres://) and carry no
/// password, neither as user:password@ nor as a password= parameter (its name
/// percent-decoded, as libpq decodes it): a URL shows wherever it goes (the
/// process list, logs, shell history, --print-config). `password_file` names
/// the front end's own place for a password file ("database.passwordFile"),
/// for the advice. The reason never quotes `url`: it may be the secret.
[[nodiscard]] std::optional<std::string> postgresql_url_objection(std::string_view url, std::string_view password_file);

}  // namespace abci::service
