// `abcictl tokens metadata`: a token's metadata record (GET /abci/tokens/metadata/{id}).

#include <CLI/CLI.hpp>

#include "cli/api_call.hpp"
#include "cli/commands/commands.hpp"
#include "cli/context.hpp"
#include "cli/validators.hpp"

namespace abci::cli {
namespace {

struct MetadataSettings {
    std::string token;
    std::string chain;
    std::string entity_id;
    std::string address;
};

void metadata(Context& ctx, const MetadataSettings& s) {
    QueryParams query{{"blockchainId", s.chain}};
    if (!s.entity_id.empty()) query.emplace_back("entityId", s.entity_id);
    if (!s.address.empty()) query.emplace_back("userAddress", s.address);
    const auto answer = api_call(ctx, "GET", "/abci/tokens/metadata/" + token_id_argument(s.token), query);
    const auto& d = answer.at("data");
    const auto& p = d.at("properties");
    std::string attributes;
    for (const auto& a : d.value("attributes", nlohmann::json::array()))
        attributes += (attributes.empty() ? "" : ", ") + cell(a["trait_type"]) + "=" + cell(a["value"]);
    Record record;
    record.essential = cell(answer["metadata"]["ipfsHash"]);
    record.fields = {{"tokenId", cell(d["tokenId"])},
                     {"tokenType", cell(d["tokenType"])},
                     {"category", cell(d["category"])},
                     {"name", cell(d["name"])},
                     {"description", cell(d["description"])},
                     {"image", cell(d["image"])},
                     {"external_url", cell(d["external_url"])},
                     {"attributes", attributes.empty() ? "-" : attributes},
                     {"issuer", cell(p["issuer"])},
                     {"beneficiary", cell(p["beneficiary"])},
                     {"issuedAt", cell(p["issuedAt"])},
                     {"expiresAt", cell(p["expiresAt"])},
                     {"transferable", cell(p["transferable"])},
                     {"ipfsHash", cell(answer["metadata"]["ipfsHash"])}};
    ctx.print(record, data_and_metadata(answer));
}

}  // namespace

void add_tokens_command(CLI::App& app, Context& ctx) {
    add_lazy_subcommand(app, "tokens", "Token records", [&ctx](CLI::App& tokens) {
        tokens.require_subcommand(1);
        auto s = std::make_shared<MetadataSettings>();
        auto* cmd = tokens.add_subcommand("metadata", "A token's metadata (-q: its IPFS hash)");
        set_examples(*cmd, {
                     {"The latest report's metadata on Sepolia", "abcictl tokens metadata 1000 --chain sepolia"},
                     {"A holder's producer token", "abcictl tokens metadata 10000 --chain sepolia --address 0x70997970C51812dc3A010C7d01b50e0d17dc79C8"}});
        cmd->add_option("TOKEN_ID", s->token, "Token id or name: 10000 or producer, 1000 or report…")->required();
        cmd->add_option("--chain", s->chain, "Blockchain id")->required();
        cmd->add_option("--entity-id", s->entity_id, "For an entity token: this entity instead of the latest");
        evm_address(cmd->add_option("--address", s->address, "For a role token: this holder"));
        cmd->callback([s, &ctx] { metadata(ctx, *s); });
    });
}

}  // namespace abci::cli
