// `abcictl mint-entity`: POST /abci/contracts/mint-entity-token. The metadata
// comes from a JSON file, from stdin (`--metadata -`), from flags, or from a
// file with flags over it; the request is checked with the server's own rules
// before it is sent, and sent so that a retry is safe (cli/mint_call.hpp).

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>

#include "cli/commands/commands.hpp"
#include "cli/context.hpp"
#include "cli/mint_call.hpp"
#include "cli/mint_output.hpp"
#include "cli/validators.hpp"
#include "core/wire/requests.hpp"

namespace abci::cli {
namespace {

struct MintEntitySettings {
    std::string address;
    std::string type;
    std::string entity_id;
    std::string chain;
    std::uint64_t amount = 1;
    std::string metadata_file;  // "-" for stdin
    std::string name;
    std::string description;
    std::string image;
    std::string external_url;
    std::vector<std::string> attributes;  // key=value
    MintCallOptions call;
};

nlohmann::json read_metadata_file(const std::string& path) {
    std::string text;
    if (path == "-") {
        text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    } else {
        std::ifstream in(path, std::ios::binary);
        if (!in)
            throw Error(ErrorKind::not_found, "cannot read the metadata file " + path + " (" + std::strerror(errno) +
                                                  "): check the path, or give - to read the metadata from stdin");
        text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    auto metadata = nlohmann::json::parse(text, nullptr, false);
    if (metadata.is_discarded() || !metadata.is_object())
        throw Error(ErrorKind::invalid_input, "the metadata in " + (path == "-" ? std::string("stdin") : path) +
                                                  " is not a JSON object");
    return metadata;
}

// "k=v": a number when v reads as one (display_type number is the caller's business), else a string.
nlohmann::json attribute(const std::string& text) {
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0)
        throw Error(ErrorKind::invalid_input, "--attr must be KEY=VALUE, got '" + text + "'");
    const std::string value = text.substr(eq + 1);
    auto number = nlohmann::json::parse(value, nullptr, false);
    return {{"trait_type", text.substr(0, eq)}, {"value", number.is_number() ? number : nlohmann::json(value)}};
}

// The flags over the file's metadata (or over nothing): a field given on the
// command line replaces the file's, an --attr replaces the file's attribute of
// that trait_type and is added otherwise, so no flag is ever dropped.
nlohmann::json merged_metadata(const MintEntitySettings& s) {
    nlohmann::json metadata = s.metadata_file.empty() ? nlohmann::json::object() : read_metadata_file(s.metadata_file);
    for (const auto& [key, value] : {std::pair{"name", &s.name}, std::pair{"description", &s.description},
                                     std::pair{"image", &s.image}, std::pair{"external_url", &s.external_url}})
        if (!value->empty()) metadata[key] = *value;
    if (s.attributes.empty()) return metadata;
    if (!metadata.contains("attributes") || !metadata["attributes"].is_array()) metadata["attributes"] = nlohmann::json::array();
    auto& attributes = metadata["attributes"];
    for (const auto& text : s.attributes) {
        auto added = attribute(text);
        const auto same = std::find_if(attributes.begin(), attributes.end(), [&](const nlohmann::json& a) {
            return a.is_object() && a.value("trait_type", nlohmann::json(nullptr)) == added["trait_type"];
        });
        if (same != attributes.end())
            *same = std::move(added);
        else
            attributes.push_back(std::move(added));
    }
    return metadata;
}

void mint_entity(Context& ctx, const MintEntitySettings& s) {
    if (s.metadata_file.empty() && s.name.empty())
        throw Error(ErrorKind::invalid_input, "give the metadata: --metadata FILE (or - for stdin), or at least --name");
    nlohmann::json body = {{"userAddress", s.address},
                           {"entityType", s.type},
                           {"entityId", s.entity_id},
                           {"blockchainId", s.chain},
                           {"amount", s.amount},
                           {"metadata", merged_metadata(s)}};
    (void)wire::parse_mint_entity(body);
    print_mint(ctx, send_mint(ctx, "/abci/contracts/mint-entity-token", body, s.call,
                              "minting " + std::to_string(s.amount) + " " + s.type + " token(s) on " + s.chain),
               s.chain);
}

}  // namespace

void add_mint_entity_command(CLI::App& app, Context& ctx) {
    const char* description = "Mint entity tokens (report, verification, valuation, certificate)";
    add_lazy_subcommand(app, "mint-entity", description, [&ctx](CLI::App& cmd) {
        set_examples(cmd, {
                     {"A verification token with its metadata from flags", "abcictl mint-entity --address 0x70997970C51812dc3A010C7d01b50e0d17dc79C8 --type verification --entity-id v-42 --chain sepolia --name 'Harvest 2026'"},
                     {"Metadata from a file", "abcictl mint-entity --address 0x70997970C51812dc3A010C7d01b50e0d17dc79C8 --type report --entity-id r-7 --chain amoy --metadata report.json"}});
        auto s = std::make_shared<MintEntitySettings>();
        evm_address(cmd.add_option("--address", s->address, "Recipient wallet (0x…)"), true)->required();
        one_of(cmd.add_option("--type", s->type, "What the tokens stand for")->required(),
               {"report", "verification", "valuation", "certificate"});
        cmd.add_option("--entity-id", s->entity_id, "The platform's id of the entity")->required();
        cmd.add_option("--chain", s->chain, "Blockchain id (see: abcictl chains list)")->required();
        whole_number(cmd.add_option("--amount", s->amount, "How many tokens")->capture_default_str(), 1);
        cmd.add_option("--metadata", s->metadata_file,
                       "Metadata JSON file, or - for stdin (the flags below replace or add to its fields)");
        cmd.add_option("--name", s->name, "Metadata: name");
        cmd.add_option("--description", s->description, "Metadata: description");
        cmd.add_option("--image", s->image, "Metadata: image URL");
        cmd.add_option("--external-url", s->external_url, "Metadata: external URL");
        cmd.add_option("--attr", s->attributes, "Metadata attribute KEY=VALUE (repeatable)")->allow_extra_args(false);
        add_mint_call_options(cmd, s->call);
        cmd.callback([s, &ctx] { mint_entity(ctx, *s); });
    });
}

}  // namespace abci::cli
