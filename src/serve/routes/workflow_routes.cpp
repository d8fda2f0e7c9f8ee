// /v1 workflow routes (spec §1, DESIGN.md §4): role requests and their
// approval (which mints the role token), and certificates (which mint an
// entity token). The workflows themselves are service::Workflows.

#include "core/service/workflows.hpp"
#include "core/wire/requests.hpp"
#include "serve/router.hpp"
#include "serve/routes/abci_views.hpp"
#include "serve/routes/routes.hpp"
#include "serve/routes/views.hpp"

namespace abci::serve {

namespace {

Reply create_role_request(RequestContext& ctx) {
    service::Workflows workflows(ctx.services.store, ctx.services.registry, ctx.services.abci);
    const auto request = workflows.file_role_request(wire::parse_role_request(ctx.json_body(), ctx.caller().id));
    return Reply::data(201, role_request_view(request));
}

Reply approve_role_request(RequestContext& ctx) {
    service::Workflows workflows(ctx.services.store, ctx.services.registry, ctx.services.abci);
    const auto approval = workflows.approve_role_request(ctx.path_match(1), ctx.caller().id);
    const nlohmann::json mint = approval.mint ? mint_result_view(*approval.mint) : nlohmann::json(nullptr);
    return Reply::data(200, {{"roleRequest", role_request_view(approval.request)}, {"mint", mint}});
}

Reply reject_role_request(RequestContext& ctx) {
    service::Workflows workflows(ctx.services.store, ctx.services.registry, ctx.services.abci);
    const auto request = workflows.reject_role_request(ctx.path_match(1), ctx.caller().id);
    return Reply::data(200, {{"roleRequest", role_request_view(request)}});
}

Reply issue_certificate(RequestContext& ctx) {
    service::Workflows workflows(ctx.services.store, ctx.services.registry, ctx.services.abci);
    const auto certificate = workflows.issue_certificate(ctx.caller().id, wire::parse_certificate(ctx.json_body()));
    return Reply::data(201, certificate_view(certificate));
}

Reply read_certificate(RequestContext& ctx) {
    service::Workflows workflows(ctx.services.store, ctx.services.registry, ctx.services.abci);
    const auto certificate = workflows.certificate(ctx.path_match(1), ctx.caller());
    return Reply::data(200, certificate_view(certificate));
}

Reply own_certificates(RequestContext& ctx) {
    service::Workflows workflows(ctx.services.store, ctx.services.registry, ctx.services.abci);
    nlohmann::json data = nlohmann::json::array();
    for (const auto& certificate : workflows.certificates_of(ctx.caller().id))
        data.push_back(certificate_view(certificate));
    return Reply::data(200, data);
}

}  // namespace

std::vector<Route> workflow_routes() {
    const auto user = Access::authenticated;
    const auto admin = Access::admin;
    return {
        {Method::post, "/v1/role-requests", user, {}, create_role_request},
        {Method::put, "/v1/admin/role-requests/([^/]+)/approve", admin, {}, approve_role_request},
        {Method::put, "/v1/admin/role-requests/([^/]+)/reject", admin, {}, reject_role_request},
        {Method::post, "/v1/certifiers/certificates", user, {}, issue_certificate},
        {Method::get, "/v1/certifiers/certificates", user, {}, own_certificates},
        {Method::get, "/v1/certifiers/certificates/([^/]+)", user, {}, read_certificate},
    };
}

}  // namespace abci::serve
