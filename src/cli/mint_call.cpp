#include "cli/mint_call.hpp"

#include <CLI/CLI.hpp>

#include "cli/advice.hpp"
#include "cli/api_call.hpp"
#include "cli/api_client.hpp"
#include "cli/context.hpp"
#include "cli/progress.hpp"
#include "cli/session.hpp"
#include "core/crypto/encoding.hpp"
#include "cli/validators.hpp"

namespace abci::cli {
namespace {

// The program and the global options that choose the server and the user
// (--server, --profile, before or after the command): what the status
// command needs to ask the same server as the same user.
std::vector<std::string> server_and_profile(const std::vector<std::string>& argv) {
    std::vector<std::string> words{argv.empty() ? std::string("abcictl") : argv.front()};
    for (std::size_t i = 1; i < argv.size(); ++i) {
        const bool named = argv[i] == "--server" || argv[i] == "--profile";
        if (named && i + 1 < argv.size()) words.insert(words.end(), {argv[i], argv[i + 1]});
        if (argv[i].rfind("--server=", 0) == 0 || argv[i].rfind("--profile=", 0) == 0) words.push_back(argv[i]);
        if (named) ++i;
    }
    return words;
}

// The command as typed, with the key: the same words when it named the key already.
std::vector<std::string> retry_command(const std::vector<std::string>& argv, const std::string& key) {
    std::vector<std::string> retry = argv;
    for (std::size_t i = 0; i < argv.size(); ++i)
        if (argv[i] == "--idempotency-key" || argv[i].rfind("--idempotency-key=", 0) == 0) return retry;
    retry.insert(retry.end(), {"--idempotency-key", key});
    return retry;
}

bool reads_stdin(const std::vector<std::string>& argv) {
    for (std::size_t i = 0; i + 1 < argv.size(); ++i)
        if (argv[i] == "--metadata" && argv[i + 1] == "-") return true;
    return false;
}

// The mint's outcome is unknown: what the user can do about it.
AdvisedError unsettled(const Context& ctx, const ServerError& error, const std::string& key,
                       const std::string& mint_id, const nlohmann::json& hashes) {
    std::vector<std::string> advice;
    if (!mint_id.empty()) advice.push_back("  mint id:         " + mint_id);
    advice.push_back("  Idempotency-Key: " + key);
    std::string signed_hashes;
    for (const auto& h : hashes)
        if (h.is_string()) signed_hashes += (signed_hashes.empty() ? "" : ", ") + h.get<std::string>();
    if (!signed_hashes.empty()) advice.push_back("  transactions:    " + signed_hashes);
    advice.push_back(std::string("The mint may still be made. Retry with the same key: it answers with the first mint, never a "
                                 "second one") +
                     (reads_stdin(ctx.argv) ? " (give the same metadata on stdin again):" : ":"));
    advice.push_back("  " + shell_command(retry_command(ctx.argv, key)));
    advice.push_back("Its status:");
    advice.push_back("  " + mint_status_command(ctx, mint_id, key, false));
    return AdvisedError(error, std::move(advice));
}

/// The id at the end of a mint's status route, "" for anything else.
std::string mint_id_of(const std::string& content_location) {
    constexpr std::string_view kStatusRoute = "/abci/contracts/mints/";
    if (!content_location.starts_with(kStatusRoute)) return {};
    return content_location.substr(kStatusRoute.size());
}

}  // namespace

std::string mint_status_command(const Context& ctx, const std::string& mint_id, const std::string& key, bool wait) {
    auto status = server_and_profile(ctx.argv);
    status.insert(status.end(), {"mint", "status"});
    if (mint_id.empty())
        status.insert(status.end(), {"--idempotency-key", key});
    else
        status.push_back(mint_id);
    if (wait) status.push_back("--wait");
    return shell_command(status);
}

void add_mint_call_options(CLI::App& command, MintCallOptions& options) {
    command.add_option("--idempotency-key", options.idempotency_key,
                       "Makes retrying safe: a repeat with the same key returns the first mint instead of minting "
                       "again (default: a new abcictl-<uuid> per run, printed when the outcome is unknown)");
    whole_number(command.add_option("--timeout", options.timeout_seconds,
                                    "Seconds to wait for the answer (the server waits up to 120 s for the receipt)"),
                 1, 86'400)
        ->capture_default_str();
    command.add_flag("--no-wait", options.no_wait,
                     "Return once the server accepted the mint (HTTP 202), before its transaction is mined: prints "
                     "the mint id and the `mint status ID --wait` command that waits for its outcome");
}

std::string generate_idempotency_key() { return "abcictl-" + crypto::random_uuid(); }

MintAnswer send_mint(Context& ctx, const std::string& path, const nlohmann::json& body,
                         const MintCallOptions& options, const std::string& progress) {
    const std::string key = options.idempotency_key.empty() ? generate_idempotency_key() : options.idempotency_key;
    StateDb state(StateDb::default_path());
    auto client = authenticated_client(ctx.options, state, std::chrono::seconds(options.timeout_seconds));
    // Ours, so that -v can name it also when no answer comes: the server logs the request under it.
    const std::string request_id = crypto::random_uuid();
    ApiResponse response;
    std::vector<std::pair<std::string, std::string>> headers{{"Idempotency-Key", key}, {"X-Request-Id", request_id}};
    if (options.no_wait) headers.emplace_back("Prefer", "respond-async");
    try {
        Spinner spinner(ctx, progress + (options.no_wait ? "" : ", waiting for the receipt"));
        response = client->send("POST", path, {}, body, headers);
    } catch (const Error& e) {
        // Sent, perhaps received and signed: only a connection never made is certain to have done nothing.
        if (e.kind() != ErrorKind::timeout) throw;
        const auto waited = std::to_string(options.timeout_seconds) + " s";
        throw unsettled(ctx,
                        ServerError(Error(ErrorKind::timeout, "no answer from the server at " + client->base_url() +
                                                                  " within " + waited +
                                                                  ", or the connection was lost: the mint's outcome is unknown"),
                                    0, request_id, "no HTTP answer within " + waited),
                        key, "", nlohmann::json::array());
    }
    if (response.status == 202) {
        auto mint_id = response.body.is_object() ? response.body["data"].value("mintId", "") : std::string();
        return {.body = std::move(response.body), .mint_id = std::move(mint_id), .accepted = true};
    }
    if (response.status >= 200 && response.status < 300) return {std::move(response.body), mint_id_of(response.content_location)};
    const ServerError error = error_from_response(response);  // thrown whole: -v names its status and request id
    const auto& answer = response.body;
    if (answer.is_object() && answer.contains("mintId") && answer["mintId"].is_string())
        throw unsettled(ctx, error, key, answer["mintId"].get<std::string>(),
                        answer.value("transactionHashes", nlohmann::json::array()));
    throw error;
}

}  // namespace abci::cli
