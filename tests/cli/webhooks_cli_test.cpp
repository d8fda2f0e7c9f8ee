// `abcictl webhooks …` through the real binary against a real `abcictl
// serve`, with a receiver that verifies each delivery with the Standard
// Webhooks reference library.

#include <nlohmann/json.hpp>

#include "cli/client_test.hpp"
#include "support/eventually.hpp"
#include "support/serve.hpp"
#include "support/webhook_receiver.hpp"

namespace abci::test::client {

TEST_CASE("client webhooks: add prints the secret once, test delivers, deliveries and replay, update and remove",
          "[client][webhooks]") {
    using nlohmann::json;
    Server server({.config = "[webhooks]\nallowInsecureTargets = true\nallowPrivateTargets = true\n"});
    WebhookReceiver receiver;
    Terminal admin(server.url());
    admin.login(Server::admin_email, Server::admin_password);

    const auto added = json::parse(admin.ok({"--json", "webhooks", "add", "--url", receiver.url(), "--event",
                                             "webhook.test,mint.confirmed", "--description", "the platform"}));
    const auto id = added["data"]["id"].get<std::string>();
    const auto secret = added["data"]["secret"].get<std::string>();
    CHECK(added["data"]["events"] == json::array({"webhook.test", "mint.confirmed"}));
    receiver.verify_with({secret});
    const auto listed = admin.ok({"webhooks", "list"});
    CHECK(listed.find(id) != std::string::npos);
    CHECK(listed.find(secret) == std::string::npos);
    // Whether and since when the server disabled it, and since when it fails: none yet.
    CHECK(listed.find("DISABLED BY SERVER") != std::string::npos);
    CHECK(listed.find("FAILING SINCE") != std::string::npos);
    const auto shown = admin.ok({"webhooks", "show", id});
    CHECK(shown.find("disabledAt:") != std::string::npos);
    CHECK(shown.find("failingSince:") != std::string::npos);
    CHECK(admin.ok({"-q", "webhooks", "show", id}) == "true\n");

    const auto delivery = admin.ok({"-q", "webhooks", "test", id});
    CHECK(delivery.starts_with("whd_"));
    CHECK(eventually([&] { return receiver.received().size() == 1; }));
    CHECK(receiver.received()[0]["verifiedWith"] == json::array({0}));
    CHECK(eventually([&] { return admin.ok({"webhooks", "deliveries", id}).find("succeeded") != std::string::npos; }));
    (void)admin.ok({"webhooks", "replay", id, delivery.substr(0, delivery.size() - 1)});
    CHECK(eventually([&] { return receiver.received().size() == 2; }));
    CHECK(receiver.received()[1]["id"] == receiver.received()[0]["id"]);

    const auto rotated = admin.ok({"-q", "webhooks", "rotate-secret", id});
    CHECK(rotated.starts_with("whsec_"));
    CHECK(rotated != secret + "\n");
    CHECK(admin.ok({"-q", "webhooks", "update", id, "--disable"}) == "false\n");

    // Mistakes say what went wrong, with the documented exit code.
    const auto none = admin.run({"webhooks", "update", id});
    CHECK(none.exit_code == 2);
    CHECK(none.err.find("nothing to change") != std::string::npos);
    const auto unknown = admin.run({"webhooks", "add", "--url", receiver.url(), "--event", "mint.confirmd"});
    CHECK(unknown.exit_code == 2);
    CHECK(unknown.err.find("mint.confirmed") != std::string::npos);
    CHECK(admin.run({"webhooks", "show", "wh_none"}).exit_code != 0);

    // remove asks first: on a terminal y/N, without one it refuses unless -y.
    const auto refused = admin.run({"webhooks", "remove", id});
    CHECK(refused.exit_code == 2);
    CHECK(refused.err.find("Pass -y to confirm (there is no terminal to ask on)") != std::string::npos);
    const std::vector<std::string> remove{"webhooks", "remove", id};
    const auto declined = run_abcictl_on_terminal(remove, {"n"}, admin.env());
    INFO(declined.transcript);
    CHECK(declined.transcript.find("Remove webhook subscription " + id + " (" + receiver.url() +
                                   ") with its deliveries? Nothing is sent to it any more. [y/N]: n") !=
          std::string::npos);
    CHECK(declined.exit_code == 1);
    CHECK(admin.ok({"-q", "webhooks", "show", id}) == "false\n");  // still there
    const auto removed = run_abcictl_on_terminal(remove, {"y"}, admin.env());
    CHECK(removed.exit_code == 0);
    CHECK(admin.run({"webhooks", "show", id}).exit_code == 2);  // 404: gone
    const auto other = json::parse(admin.ok({"--json", "webhooks", "add", "--url", receiver.url(), "--event", "webhook.test"}));
    (void)admin.ok({"--yes", "webhooks", "remove", other["data"]["id"].get<std::string>()});
    CHECK(admin.ok({"webhooks", "list"}).find("no webhook subscriptions") != std::string::npos);
}

}  // namespace abci::test::client
