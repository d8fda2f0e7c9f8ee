// `abcictl webhooks add|list|show|update|remove|rotate-secret|test|deliveries|replay`
// (admin): the server's webhook subscriptions (/api/admin/webhooks) without
// curl. A signing secret is printed by add and rotate-secret only, once.

#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>
#include <memory>

#include "cli/api_call.hpp"
#include "cli/commands/commands.hpp"
#include "cli/confirm.hpp"
#include "cli/context.hpp"
#include "cli/examples.hpp"
#include "cli/lazy_command.hpp"
#include "core/error.hpp"

namespace abci::cli {
namespace {

using nlohmann::json;

constexpr const char* kExampleId = "wh_8c1N2l0xQe6p4JzW5f3aUg";

std::string joined(const json& values) {
    std::string text;
    for (const auto& value : values) text += (text.empty() ? "" : ",") + cell(value);
    return text;
}

// The id goes into the path: nothing but an id's characters may reach it.
const std::string& checked_id(const std::string& id) {
    if (id.empty() || !std::all_of(id.begin(), id.end(), [](unsigned char c) {
            return std::isalnum(c) || c == '_' || c == '-';
        }))
        throw Error(ErrorKind::invalid_input, "'" + id + "' is not a webhook or delivery id: see abcictl webhooks list");
    return id;
}

std::string path_of(const std::string& id, const std::string& rest = "") {
    return "/api/admin/webhooks/" + checked_id(id) + rest;
}

Record subscription_record(const json& s, std::string essential) {
    Record record;
    record.essential = std::move(essential);
    record.fields = {{"id", cell(s["id"])},
                     {"url", cell(s["url"])},
                     {"events", joined(s["events"])},
                     {"description", cell(s["description"])},
                     {"enabled", cell(s["enabled"])},
                     {"disabledReason", cell(s["disabledReason"])},
                     {"disabledAt", cell(s["disabledAt"])},
                     {"failingSince", cell(s["failingSince"])},
                     {"previousSecretUntil", cell(s["previousSecretUntil"])},
                     {"createdAt", cell(s["createdAt"])}};
    if (s.contains("secret")) record.fields.emplace_back("secret", cell(s["secret"]));
    return record;
}

Record delivery_record(const json& d) {
    return {{{"id", cell(d["id"])},
             {"webhookId", cell(d["webhookId"])},
             {"type", cell(d["type"])},
             {"state", cell(d["state"])},
             {"attempts", cell(d["attempts"])},
             {"nextAttemptAt", cell(d["nextAttemptAt"])}},
            cell(d["id"])};
}

void show_with_secret(Context& ctx, const json& answer) {
    const auto& data = answer.at("data");
    ctx.print(subscription_record(data, cell(data["secret"])), data_and_metadata(answer));
    ctx.note("store the secret now: it is not shown again");
}

void list(Context& ctx) {
    const auto answer = api_call(ctx, "GET", "/api/admin/webhooks");
    std::vector<std::vector<std::string>> rows;
    for (const auto& s : answer.at("data"))
        rows.push_back({cell(s["id"]), cell(s["url"]), joined(s["events"]), s["enabled"] == true ? "yes" : "no",
                        cell(s["disabledAt"]), cell(s["failingSince"]), cell(s["description"])});
    if (rows.empty() && !ctx.options.json && !ctx.options.quiet) {
        std::cout << "no webhook subscriptions: add one with abcictl webhooks add --url URL --event TYPE\n";
        return;
    }
    ctx.print_table({"ID", "URL", "EVENTS", "ENABLED", "DISABLED BY SERVER", "FAILING SINCE", "DESCRIPTION"}, rows,
                    data_and_metadata(answer));
}

void deliveries(Context& ctx, const std::string& id, int limit) {
    const auto answer =
        api_call(ctx, "GET", path_of(id, "/deliveries"), {{"limit", std::to_string(limit)}});
    std::vector<std::vector<std::string>> rows;
    for (const auto& d : answer.at("data")) {
        const auto& log = d["attemptLog"];
        const json last = log.empty() ? json::object() : log.back();
        rows.push_back({cell(d["id"]), cell(d["type"]), cell(d["state"]), cell(d["attempts"]),
                        cell(last.value("status", json(nullptr))), cell(last.value("error", json(nullptr))),
                        cell(d["webhookId"]), cell(d["createdAt"])});
    }
    ctx.print_table({"ID", "TYPE", "STATE", "ATTEMPTS", "LAST STATUS", "LAST ERROR", "WEBHOOK-ID", "CREATED"}, rows,
                    data_and_metadata(answer));
}

struct Change {
    std::string url, description;
    std::vector<std::string> events;
    bool enable = false, disable = false;
};

json change_body(const Change& c) {
    json body = json::object();
    if (!c.url.empty()) body["url"] = c.url;
    if (!c.events.empty()) body["events"] = c.events;
    if (!c.description.empty()) body["description"] = c.description;
    if (c.enable) body["enabled"] = true;
    if (c.disable) body["enabled"] = false;
    if (body.empty())
        throw Error(ErrorKind::invalid_input, "nothing to change: give --url, --event, --description, --enable or --disable");
    return body;
}

}  // namespace

void add_webhooks_command(CLI::App& app, Context& ctx) {
    add_lazy_subcommand(app, "webhooks", "Webhook subscriptions: signed events sent to your URLs (admin)",
                        [&ctx](CLI::App& cmd) {
        cmd.require_subcommand(1);

        auto add = std::make_shared<Change>();
        auto* add_cmd = cmd.add_subcommand("add", "Subscribe a URL to events; prints its signing secret, once (-q: the secret)");
        add_cmd->add_option("--url", add->url, "Where events are POSTed (https://)")->required();
        add_cmd->add_option("--event", add->events, "An event type (repeatable, or comma-separated), e.g. mint.confirmed")
            ->required()
            ->delimiter(',');
        add_cmd->add_option("--description", add->description, "What it is for");
        set_examples(*add_cmd, {{"Mint outcomes to a platform",
                                 "abcictl webhooks add --url https://hooks.example.org/abci --event mint.confirmed,mint.failed"}});
        add_cmd->callback([add, &ctx] {
            json body{{"url", add->url}, {"events", add->events}};
            if (!add->description.empty()) body["description"] = add->description;
            show_with_secret(ctx, api_call(ctx, "POST", "/api/admin/webhooks", {}, body));
        });

        auto* list_cmd = cmd.add_subcommand("list", "The subscriptions, oldest first, never their secrets (-q: their ids)");
        set_examples(*list_cmd, {{"Every subscription", "abcictl webhooks list"}});
        list_cmd->callback([&ctx] { list(ctx); });

        for (const auto& [name, description] :
             {std::pair<std::string, std::string>{"show", "One subscription (-q: whether it is enabled)"},
              {"remove", "Remove a subscription with its deliveries (asks first unless -y; -q: its id)"},
              {"rotate-secret", "A new signing secret; the old one signs beside it for 24 h (-q: the new secret)"},
              {"test", "Queue a webhook.test event for it (-q: the delivery's id)"}}) {
            auto id = std::make_shared<std::string>();
            auto* sub = cmd.add_subcommand(name, description);
            sub->add_option("ID", *id, "The subscription's id (see: abcictl webhooks list)")->required();
            set_examples(*sub, {{description.substr(0, description.find(" (")),
                                 "abcictl webhooks " + name + " " + kExampleId}});
            sub->callback([id, name = name, &ctx] {
                if (name == "show") {
                    const auto answer = api_call(ctx, "GET", path_of(*id));
                    ctx.print(subscription_record(answer.at("data"), cell(answer["data"]["enabled"])),
                              data_and_metadata(answer));
                } else if (name == "remove") {
                    // Nothing to ask about a subscription that is not there; the URL tells which one it is.
                    const auto found = api_call(ctx, "GET", path_of(*id));
                    if (!confirm(ctx.options, "Remove webhook subscription " + *id + " (" + cell(found["data"]["url"]) +
                                                  ") with its deliveries? Nothing is sent to it any more."))
                        throw Error(ErrorKind::conflict, "nothing removed");
                    const auto answer = api_call(ctx, "DELETE", path_of(*id));
                    ctx.print({{{"id", *id}, {"removed", "yes"}}, *id}, data_and_metadata(answer));
                } else if (name == "rotate-secret") {
                    show_with_secret(ctx, api_call(ctx, "POST", path_of(*id, "/rotate-secret")));
                } else {
                    const auto answer = api_call(ctx, "POST", path_of(*id, "/test"));
                    ctx.print(delivery_record(answer.at("data")), data_and_metadata(answer));
                }
            });
        }

        auto update = std::make_shared<Change>();
        auto update_id = std::make_shared<std::string>();
        auto* update_cmd = cmd.add_subcommand("update", "Change a subscription's URL, events or description, or enable or disable it");
        update_cmd->add_option("ID", *update_id, "The subscription's id")->required();
        update_cmd->add_option("--url", update->url, "A new URL");
        update_cmd->add_option("--event", update->events, "The event types, replacing the old ones (repeatable)")
            ->delimiter(',');
        update_cmd->add_option("--description", update->description, "A new description");
        auto* enable = update_cmd->add_flag("--enable", update->enable, "Enable it (again after a 410)");
        update_cmd->add_flag("--disable", update->disable, "Stop sending to it")->excludes(enable);
        set_examples(*update_cmd, {{"Enable it again", std::string("abcictl webhooks update ") + kExampleId + " --enable"}});
        update_cmd->callback([update, update_id, &ctx] {
            const auto answer = api_call(ctx, "PATCH", path_of(*update_id), {}, change_body(*update));
            ctx.print(subscription_record(answer.at("data"), cell(answer["data"]["enabled"])), data_and_metadata(answer));
        });

        auto deliveries_id = std::make_shared<std::string>();
        auto limit = std::make_shared<int>(20);
        auto* deliveries_cmd = cmd.add_subcommand("deliveries", "Its deliveries, newest first, with their last attempt (-q: their ids)");
        deliveries_cmd->add_option("ID", *deliveries_id, "The subscription's id")->required();
        deliveries_cmd->add_option("--limit", *limit, "At most this many")->check(CLI::Range(1, 500));
        set_examples(*deliveries_cmd, {{"What was sent and how it went", std::string("abcictl webhooks deliveries ") + kExampleId}});
        deliveries_cmd->callback([deliveries_id, limit, &ctx] { deliveries(ctx, *deliveries_id, *limit); });

        auto replay_id = std::make_shared<std::string>();
        auto delivery_id = std::make_shared<std::string>();
        auto* replay_cmd = cmd.add_subcommand("replay", "Send a delivery again, with its webhook-id (-q: the delivery's id)");
        replay_cmd->add_option("ID", *replay_id, "The subscription's id")->required();
        replay_cmd->add_option("DELIVERY", *delivery_id, "The delivery's id (see: abcictl webhooks deliveries ID)")->required();
        set_examples(*replay_cmd, {{"Send a failed delivery again",
                                    std::string("abcictl webhooks replay ") + kExampleId + " whd_Qm3s9Xc1Zr0bHy7Ta2Lk4w"}});
        replay_cmd->callback([replay_id, delivery_id, &ctx] {
            const auto answer = api_call(ctx, "POST", path_of(*replay_id, "/deliveries/" + checked_id(*delivery_id) + "/replay"));
            ctx.print(delivery_record(answer.at("data")), data_and_metadata(answer));
        });
    });
}

}  // namespace abci::cli
