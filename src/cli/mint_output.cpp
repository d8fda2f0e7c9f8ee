#include "cli/mint_output.hpp"

#include "cli/api_call.hpp"

namespace abci::cli {

Record mint_record(const nlohmann::json& answer) {
    const auto& data = answer.at("data");
    const auto& metadata = answer.at("metadata");
    Record record;
    record.essential = cell(data.value("transactionHash", nlohmann::json(nullptr)));
    for (const auto& [key, value] : data.items()) record.fields.emplace_back(key, cell(value));
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

void print_mint(const Context& ctx, const nlohmann::json& answer) { ctx.print(mint_record(answer), data_and_metadata(answer)); }

}  // namespace abci::cli
