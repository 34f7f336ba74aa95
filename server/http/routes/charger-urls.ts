import {
  chargerUrlsBody,
  chargerUrlsSchema,
  projectChargerUrlsSchema,
  readChargerUrls,
  readProjectChargerUrls,
  setChargerUrls,
} from "../../stations/charger-urls";
import { tenantParams } from "../params";
import { defineRoute } from "../route";

const tag = "Preproduction charger URLs";
const preproductionOnly =
  "Preproduction only: with any other `SERVICE_ENV` (production above all) 409 `project_urls_disabled`, and stations never carry `charger_id`, `username` or `connection_base_url`.";

export const chargerUrlRoutes = [
  defineRoute({
    method: "GET",
    path: "/v1/tenants/{tenant_id}/charger-urls",
    operationId: "getProjectChargerUrls",
    summary: "The project's preproduction charger URLs",
    description: `How the project's chargers may connect on their project-scoped charger URL: \`<connection_base_url>/<charger_id>\`, \`charger_id\` \`p<tenant_id>-<station name>\` (each station carries its own), HTTP Basic username the \`charger_id\`, password the station's. 409 \`project_urls_disabled\` where the feature is off: outside preproduction, or for a project whose charger URLs platform staff turned off (its stations then carry no \`charger_id\`). ${preproductionOnly}`,
    tag,
    auth: "tenant",
    scopes: ["stations:read"],
    params: tenantParams,
    status: 200,
    response: projectChargerUrlsSchema,
    errors: ["project_urls_disabled"],
    handler: async ({ params, rootDb }) => ({
      body: await readProjectChargerUrls(params.tenant_id, rootDb),
    }),
  }),
  defineRoute({
    method: "GET",
    path: "/v1/admin/tenants/{tenant_id}/charger-urls",
    operationId: "getTenantChargerUrls",
    summary: "Staff: a tenant's preproduction charger URL state",
    description: `Whether the tenant's stations carry project-scoped charger URLs (\`charger_id\` \`p<tenant_id>-<name>\`, Basic \`username\` the same, at \`<connection_base_url>/<charger_id>\`), the base in use and staff's override. Signed-in platform staff (platform-admin or platform-support); anyone else 403 \`forbidden\`; an unknown tenant 404. ${preproductionOnly}`,
    tag,
    auth: "user",
    params: tenantParams,
    status: 200,
    response: chargerUrlsSchema,
    errors: ["forbidden", "project_urls_disabled"],
    handler: async ({ caller, rootDb, params }) => ({
      body: await readChargerUrls(caller, params.tenant_id, rootDb),
    }),
  }),
  defineRoute({
    method: "PUT",
    path: "/v1/admin/tenants/{tenant_id}/charger-urls",
    operationId: "setTenantChargerUrls",
    summary: "Staff: override a tenant's preproduction charger URLs",
    description: `Fields left out keep their value. \`enabled: false\` turns the feature off for the tenant: its stations stop carrying the three fields and the gateways refuse its charger IDs (connected chargers stay until they reconnect); \`true\` turns it back on. \`connection_base_url\`: a \`ws://\` or \`wss://\` URL with path \`/ocpp\` whose host reaches the gateways, or null for the default (\`OCPP_PUBLIC_URL\` + \`/ocpp\`). \`note\`: staff's reason. Signed-in platform admins only; platform-support and anyone else 403 \`forbidden\`. ${preproductionOnly}`,
    tag,
    auth: "user",
    params: tenantParams,
    body: chargerUrlsBody,
    status: 200,
    response: chargerUrlsSchema,
    errors: ["forbidden", "project_urls_disabled"],
    handler: async ({ caller, rootDb, params, body }) => ({
      body: await setChargerUrls(caller, params.tenant_id, body, rootDb),
    }),
  }),
];
