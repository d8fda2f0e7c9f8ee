// `abcictl mint-role`: POST /abci/contracts/mint-role-token (admin only).
// The request is checked here with the server's own rules before it is sent,
// and sent so that a retry is safe (cli/mint_call.hpp).

#include <CLI/CLI.hpp>

#include "cli/commands/commands.hpp"
#include "cli/context.hpp"
#include "cli/mint_call.hpp"
#include "cli/mint_output.hpp"
#include "cli/validators.hpp"
#include "core/wire/requests.hpp"

namespace abci::cli {
namespace {

struct MintRoleSettings {
    std::string address;
    std::string role;
    std::string chain;
    std::string approval_id;
    std::string note;
    MintCallOptions call;
};

void mint_role(Context& ctx, const MintRoleSettings& s) {
    nlohmann::json body = {{"userAddress", s.address}, {"roleType", s.role}, {"blockchainId", s.chain}};
    nlohmann::json metadata = nlohmann::json::object();
    if (!s.approval_id.empty()) metadata["approvalId"] = s.approval_id;
    if (!s.note.empty()) metadata["notes"] = s.note;
    if (!metadata.empty()) body["metadata"] = metadata;
    (void)wire::parse_mint_role(body);
    print_mint(ctx,
               send_mint(ctx, "/abci/contracts/mint-role-token", body, s.call,
                         "minting the " + s.role + " role token on " + s.chain),
               s.chain);
}

}  // namespace

void add_mint_role_command(CLI::App& app, Context& ctx) {
    const char* description = "Mint a soulbound role token to a user's wallet (admin)";
    add_lazy_subcommand(app, "mint-role", description, [&ctx](CLI::App& cmd) {
        set_examples(cmd, {
                     {"Make a user's wallet a producer on Sepolia", "abcictl mint-role --address 0x70997970C51812dc3A010C7d01b50e0d17dc79C8 --role producer --chain sepolia"}});
        auto s = std::make_shared<MintRoleSettings>();
        evm_address(cmd.add_option("--address", s->address, "The user's wallet (0x…, linked to the user)"), true)
            ->required();
        one_of(cmd.add_option("--role", s->role, "The role the token grants")->required(),
               {"producer", "verifier", "valuator", "certifier"});
        cmd.add_option("--chain", s->chain, "Blockchain id (see: abcictl chains list)")->required();
        cmd.add_option("--approval-id", s->approval_id,
                       "The approval this mint carries out (recorded in the metadata)");
        cmd.add_option("--note", s->note, "A note recorded in the metadata");
        add_mint_call_options(cmd, s->call);
        cmd.callback([s, &ctx] { mint_role(ctx, *s); });
    });
}

}  // namespace abci::cli
