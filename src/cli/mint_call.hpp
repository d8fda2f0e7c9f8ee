#pragma once
// How mint-role and mint-entity send their request so that a retry is always
// safe (issue 12, item 4): every request carries an Idempotency-Key (the
// user's --idempotency-key, else a generated "abcictl-<uuid>"), the CLI waits
// longer than the server does for a receipt (--timeout, default 150 s, the
// server's own wait being 120 s), and when the mint's outcome is not known —
// the server answered with a mint id (504 after signing, 503 when the chain
// was reset or the server stops, 409 while the first request with the key
// runs) or the answer never came (timeout, lost connection) — the error says
// so and names the mint id, the key and the exact commands that retry safely
// or show the mint's status.

#include <string>

#include <nlohmann/json.hpp>

#include "cli/mint_output.hpp"

namespace CLI {
class App;
}

namespace abci::cli {

class Context;

/// Above the server's 120 s wait for a receipt, so that its answer (with a mint id) reaches us.
inline constexpr unsigned kDefaultMintTimeoutSeconds = 150;

struct MintCallOptions {
    std::string idempotency_key;  // empty: generated per run
    unsigned timeout_seconds = kDefaultMintTimeoutSeconds;
    bool no_wait = false;  // Prefer: respond-async: the server answers 202 once it accepted the mint
};

/// --idempotency-key KEY, --timeout SECONDS and --no-wait, bound to `options`.
void add_mint_call_options(CLI::App& command, MintCallOptions& options);

/// A fresh key for a request the user gave none: "abcictl-<uuid v4>".
[[nodiscard]] std::string generate_idempotency_key();

/// POSTs `body` to `path` with the Idempotency-Key and timeout of `options`
/// (a spinner showing `progress` meanwhile) and returns the 2xx answer (with
/// --no-wait a 202, MintAnswer::accepted, unless the key's mint is final).
/// Throws AdvisedError (cli/advice.hpp) of the error's kind when the mint's
/// outcome is unknown (see above), else what api_call() throws.
[[nodiscard]] MintAnswer send_mint(Context& ctx, const std::string& path, const nlohmann::json& body,
                                       const MintCallOptions& options, const std::string& progress);

/// The command that shows mint `mint_id` (or, without one, the mint of
/// Idempotency-Key `key`), asking the server and as the user this run did;
/// `wait`: until its outcome is known.
[[nodiscard]] std::string mint_status_command(const Context& ctx, const std::string& mint_id, const std::string& key,
                                              bool wait);

}  // namespace abci::cli
