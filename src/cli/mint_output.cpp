#include "cli/mint_output.hpp"

#include "cli/api_call.hpp"
#include "cli/chain_list.hpp"
#include "cli/mint_call.hpp"

namespace abci::cli {

Record mint_record(const nlohmann::json& answer, const std::string& explorer) {
    const auto& data = answer.at("data");
    const auto& metadata = answer.at("metadata");
    Record record;
    record.essential = cell(data.value("transactionHash", nlohmann::json(nullptr)));
    for (const auto& [key, value] : data.items()) record.fields.emplace_back(key, cell(value));
    if (!explorer.empty() && data.contains("transactionHash") && data["transactionHash"].is_string())
        record.fields.emplace_back("explorer", explorer + "/tx/" + data["transactionHash"].get<std::string>());
    if (metadata.contains("blockchain"))
        record.fields.emplace_back("blockchain", cell(metadata["blockchain"].value("name", nlohmann::json(nullptr))) + " (chain id " +
                                                     cell(metadata["blockchain"].value("chainId", nlohmann::json(nullptr))) + ")");
    if (metadata.contains("contract"))
        record.fields.emplace_back("contract", cell(metadata["contract"].value("address", nlohmann::json(nullptr))) + " v" +
                                                   cell(metadata["contract"].value("version", nlohmann::json(nullptr))));
    for (const char* key : {"entityType", "entityId", "ipfsHash"})
        if (metadata.contains(key)) record.fields.emplace_back(key, cell(metadata[key]));
    return record;
}

std::string explorer_of(Context& ctx, const std::string& blockchain_id) {
    // Only the human form shows the link: --json is the API's answer, -q the hash.
    if (ctx.options.json || ctx.options.quiet) return {};
    try {
        return block_explorer(ctx, blockchain_id);
    } catch (const Error& e) {
        // The mint is done: a link is not worth failing its answer for.
        if (ctx.options.verbosity > 0) ctx.note("no block-explorer link: " + std::string(e.what()));
        return {};
    }
}

void print_mint(Context& ctx, const MintAnswer& answer, const std::string& blockchain_id) {
    if (answer.accepted) {
        const auto& data = answer.body.at("data");
        Record record{.fields = {{"mint", answer.mint_id},
                                 {"state", cell(data.value("state", nlohmann::json(nullptr)))},
                                 {"idempotencyKey", cell(data.value("idempotencyKey", nlohmann::json(nullptr)))},
                                 {"outcome", mint_status_command(ctx, answer.mint_id, "", true)}},
                      .essential = answer.mint_id};
        ctx.print(record, answer.body);
        return;
    }
    Record record = mint_record(answer.body, explorer_of(ctx, blockchain_id));
    if (!answer.mint_id.empty()) record.fields.emplace_back("mint", answer.mint_id);
    ctx.print(record, data_and_metadata(answer.body));
}

}  // namespace abci::cli
