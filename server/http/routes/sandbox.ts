import { z } from "zod";
import { paginationQuery } from "../../lib/pagination";
import { advanceSandboxSession, awaitAdvanceApplied } from "../../sandbox/advance-session";
import { brandingBody, brandingSchema, setBranding } from "../../branding/branding";
import { createSandboxSession } from "../../sandbox/create-session";
import { listSandboxLocations, sandboxLocationSchema } from "../../sandbox/locations";
import {
  awaitSessionStarted,
  getSandboxSession,
  listSandboxSessions,
  syncSandboxSessionRoute,
} from "../../sandbox/read-sessions";
import { refundSandboxSession } from "../../sandbox/refund-session";
import {
  advanceBody,
  createSandboxSessionBody,
  listSandboxSessionsQuery,
  sandboxSessionIdSchema,
  sandboxSessionSchema,
  type SandboxSessionResource,
} from "../../sandbox/session-schema";
import { awaitSessionStatus, stopSandboxSession } from "../../sandbox/stop-session";
import { defineRoute } from "../route";

const tag = "Workspaces and sandbox charging";
const sessionParams = z.object({ session_id: sandboxSessionIdSchema });
const ACCESS =
  "Workspace routes: a workspace key (scopes `sandbox:read`, `sandbox:write`) acts in its workspace; a signed-in person in theirs, the oldest team they own (403 `no_grant` when they own none). A project key never reaches the sandbox: 403 `insufficient_scope`. The workspace's sandbox (its tenant, location, stations and default tariff) is provisioned on first use.";
const STATES = `Sandbox session statuses, each change published as \`sandbox_session.status_changed\` (data: \`session_id\`, \`status\`, \`previous_status\`, \`session\`) in the transaction that made it, in the workspace log (\`GET /v1/events\`) and to the sandbox tenant's webhooks:

| Status | Means | Next |
| --- | --- | --- |
| \`starting\` | the virtual charger connecting, the simulator hold approved, the bill's start (\`bill.start\`) dispatched | \`charging\`, or \`failed\` |
| \`charging\` | its transaction started; advances add energy | \`stopping\` |
| \`stopping\` | stop asked (or the transaction ended); settling by itself | \`settled\` |
| \`settled\` | the bill final (priced by the engine, with its breakdown), the simulator payment captured, or released for a zero bill | \`refunded\` |
| \`refunded\` | the payment refunded in full | (final) |
| \`failed\` | it could not start (\`last_error\`: \`start_timeout\`, \`start_refused\`, \`start_unknown\`, \`payment_failed\`); its hold released | (final) |`;

const waitStarted = async ({
  body,
  rootDb,
}: {
  body: unknown;
  rootDb: Parameters<typeof awaitSessionStarted>[0];
}) => awaitSessionStarted(rootDb, body as SandboxSessionResource);

export const sandboxRoutes = [
  defineRoute({
    method: "GET",
    path: "/v1/locations",
    operationId: "listSandboxLocations",
    summary: "The workspace's sandbox locations, stations and connectors",
    description: `The sandbox's location ("Sandbox depot") with its three stations (\`sbx-<team id>-ac1\`: OCPP 2.0.1, 8 EVSEs, 22 kW AC; \`-dc1\`: 2.0.1, 2 EVSEs, 50 kW DC; \`-v16\`: OCPP 1.6, 2 connectors, 11 kW AC: ten sessions can run at once), each connector with the session holding it, and the default tariff (35 cents per kWh plus 60 cents per hour of charging). They are ordinary rows of the workspace's sandbox tenant: \`GET /v1/tenants/{tenant_id}/stations/{station_id}\` and the rest read them as any project's. Paged as every list: continue with \`after\` = \`next_cursor\`.\n\n${ACCESS}`,
    tag,
    auth: "workspace",
    scopes: ["sandbox:read"],
    query: paginationQuery,
    status: 200,
    response: z.object({
      data: z.array(sandboxLocationSchema),
      next_cursor: z.number().int().nullable(),
      has_more: z.boolean(),
    }),
    handler: async ({ db, principal, query }) => ({
      body: await listSandboxLocations(db, principal.tenantId, query),
    }),
  }),
  defineRoute({
    method: "PUT",
    path: "/v1/branding",
    operationId: "setBranding",
    summary: "Set the workspace's branding",
    description: `\`display_name\` (1 to 80 characters), \`accent_color\` (\`#rrggbb\`, or null) and \`logo_url\` (an https URL of at most 500 characters, or null): the whole branding at once, a field left out is cleared. Shown to drivers on the simulator's hosted checkout page and on the return page, for the payments of every tenant of the workspace's team (its projects included), as text (escaped), the colour only as the validated value and the logo as an image loaded without a referrer. Needs \`sandbox:write\` (or the signed-in owner).\n\n${ACCESS}`,
    tag,
    auth: "workspace",
    scopes: ["sandbox:write"],
    body: brandingBody,
    status: 200,
    response: brandingSchema,
    handler: async ({ db, principal, body }) => ({
      body: await setBranding(db, principal.teamId, body),
    }),
  }),
  defineRoute({
    method: "GET",
    path: "/v1/sessions",
    operationId: "listSandboxSessions",
    summary: "The workspace's sandbox sessions, newest first",
    description: `Newest first: continue with \`after\` = the previous page's \`next_cursor\` (sessions older than it); \`next_cursor\` is null on the last page. \`status\` filters.\n\n${ACCESS}\n\n${STATES}`,
    tag,
    auth: "workspace",
    scopes: ["sandbox:read"],
    query: listSandboxSessionsQuery,
    status: 200,
    response: z.object({
      data: z.array(sandboxSessionSchema),
      next_cursor: z.number().int().nullable(),
      has_more: z.boolean(),
    }),
    handler: async ({ db, principal, query }) => ({
      body: await listSandboxSessions(db, principal, query),
    }),
  }),
  defineRoute({
    method: "POST",
    path: "/v1/sessions",
    operationId: "createSandboxSession",
    summary: "Start a sandbox session",
    description: `Charges on a virtual charger that speaks OCPP to the gateway like hardware, so the station, transaction, meter samples, operations, bill, payment and events are production ones (of the sandbox tenant). Body (every field optional): \`station_id\` and \`connector_id\` (default: the first free connector), \`tariff_id\` (a tariff of the sandbox tenant; default: its default tariff), \`hold_minor\` (the simulator hold, $0.50 to $100; default: the sandbox tenant's). Creates a \`csms\` bill and its \`simulator\` payment, approved at once (its hosted page stays readable at \`payment.checkout_url\`), then starts the bill on the virtual charger (\`bill.start\`: RequestStartTransaction, or RemoteStartTransaction on the 1.6 station). Answers 201 once the session is \`charging\`, or after 3 s as it is then (\`starting\`: read it again). All asked-for connectors hold an open session: 409 \`no_free_connector\` (\`details.open_session_ids\`); a connector or station not the sandbox's: 422 / 409 \`connector_not_found\`. Optional \`Idempotency-Key\`: the same key and body answers the same session.\n\n${ACCESS}\n\n${STATES}`,
    tag,
    auth: "workspace",
    scopes: ["sandbox:write"],
    body: createSandboxSessionBody,
    idempotency: "optional",
    status: 201,
    response: sandboxSessionSchema,
    errors: ["no_free_connector", "connector_not_found"],
    handler: async ({ db, principal, body }) => ({
      body: await createSandboxSession(db, principal, body),
    }),
    afterCommit: waitStarted,
  }),
  defineRoute({
    method: "GET",
    path: "/v1/sessions/{session_id}",
    operationId: "getSandboxSession",
    summary: "A sandbox session",
    description: `Energy as the virtual charger reported it (\`energy_wh\`, with \`target_wh\` and \`pending_wh\` for what advances asked), power and state of charge of the last meter sample, the running cost priced live by the pricing engine, the bill (with \`cost_breakdown\` once final), the payment and the operations. Another workspace's session: 404.\n\n${ACCESS}\n\n${STATES}`,
    tag,
    auth: "workspace",
    scopes: ["sandbox:read"],
    params: sessionParams,
    status: 200,
    response: sandboxSessionSchema,
    handler: async ({ db, principal, params }) => ({
      body: await getSandboxSession(db, principal, params.session_id),
    }),
  }),
  defineRoute({
    method: "POST",
    path: "/v1/sessions/{session_id}/sync",
    operationId: "syncSandboxSession",
    summary: "Read a sandbox session again from its facts",
    description: `Publishes a status change its facts show that nobody published yet (\`sandbox_session.status_changed\`, once), and for a session still on its way (starting, stopping, a refund in flight) makes sure its settlement runs again if it gave up. Answers the session. No body.\n\n${ACCESS}\n\n${STATES}`,
    tag,
    auth: "workspace",
    scopes: ["sandbox:read"],
    params: sessionParams,
    status: 200,
    response: sandboxSessionSchema,
    handler: async ({ rootDb, principal, params }) => ({
      body: await syncSandboxSessionRoute(rootDb, principal, params.session_id),
    }),
  }),
  defineRoute({
    method: "POST",
    path: "/v1/sandbox/sessions/{session_id}/advance",
    operationId: "advanceSandboxSession",
    summary: "Advance a sandbox session's metering",
    description: `\`energy_wh\` (1 to 200000, an increment), optional \`elapsed_seconds\` (1 to 86400; default: what the connector's nominal power takes to deliver it) and \`soc_percent\` (0 to 100). The virtual charger reports it over OCPP as the next meter reading of the transaction (2.0.1 TransactionEvent \`Updated\`; 1.6 MeterValues) with its register and a timestamp ahead of real time by the virtual seconds so far, so the gateway records a \`meter.sampled\` event (at most one per 10 s of readings) and the bill is priced live. Answers 200 once the gateway recorded it, or after 3 s as the session is then (\`pending_wh\` > 0: it is still on its way, in order). Optional \`Idempotency-Key\`: the same key and body is applied once, however many times it is sent. Only a \`charging\` session advances: \`starting\` or \`failed\` 409 \`session_not_charging\`; stopped 409 \`session_stopped\`. A session draws at most 2,000,000 Wh and its virtual clock runs at most 30 days ahead (422).\n\n${ACCESS}`,
    tag,
    auth: "workspace",
    scopes: ["sandbox:write"],
    params: sessionParams,
    body: advanceBody,
    idempotency: "optional",
    status: 200,
    response: sandboxSessionSchema,
    errors: ["session_not_charging", "session_stopped"],
    handler: async ({ db, principal, params, body }) => ({
      body: await advanceSandboxSession(db, principal, params.session_id, body),
    }),
    afterCommit: async ({ body, rootDb }) =>
      awaitAdvanceApplied(rootDb, body as SandboxSessionResource),
  }),
  defineRoute({
    method: "POST",
    path: "/v1/sessions/{session_id}/stop",
    operationId: "stopSandboxSession",
    summary: "Stop and settle a sandbox session",
    description: `Sends the production stop (a \`station.command\` stop of the session's transaction: RequestStopTransaction, RemoteStopTransaction on 1.6); the virtual charger reports every pending advance, then ends the transaction. Then the session settles by itself: the bill is finalized with the transaction (priced by the engine, \`cost_breakdown\` on the default tariff), the simulator payment captured, or released when the bill is zero. Answers 200 with the session once \`settled\`, or after 3 s as it is then (\`stopping\`: read it again). No body. Stopped already, under another key: 409 \`session_already_stopped\` (the same \`Idempotency-Key\` replays the first answer, showing the session as it is now); still starting, or failed: 409 \`session_not_charging\`.\n\n${ACCESS}\n\n${STATES}`,
    tag,
    auth: "workspace",
    scopes: ["sandbox:write"],
    params: sessionParams,
    idempotency: "optional",
    status: 200,
    response: sandboxSessionSchema,
    errors: ["session_not_charging", "session_already_stopped"],
    handler: async ({ db, principal, params }) => ({
      body: await stopSandboxSession(db, principal, params.session_id),
    }),
    afterCommit: async ({ body, rootDb }) =>
      awaitSessionStatus(
        rootDb,
        body as SandboxSessionResource,
        ["settled", "refunded"],
        "stopping",
      ),
  }),
  defineRoute({
    method: "POST",
    path: "/v1/sessions/{session_id}/refund",
    operationId: "refundSandboxSession",
    summary: "Refund a settled sandbox session",
    description: `Refunds its simulator payment in full, once. Answers 200 with the session once \`refunded\`, or after 3 s as it is then. No body. Not settled yet: 409 \`session_not_settled\` (stop it and wait for \`settled\`); refunded already (or in flight) under another key: 409 \`session_already_refunded\` (the same \`Idempotency-Key\` replays the first answer); a zero session released its hold and captured nothing: 409 \`payment_not_captured\`.\n\n${ACCESS}\n\n${STATES}`,
    tag,
    auth: "workspace",
    scopes: ["sandbox:write"],
    params: sessionParams,
    idempotency: "optional",
    status: 200,
    response: sandboxSessionSchema,
    errors: ["session_not_settled", "session_already_refunded", "payment_not_captured"],
    handler: async ({ db, principal, params }) => ({
      body: await refundSandboxSession(db, principal, params.session_id),
    }),
    afterCommit: async ({ body, rootDb }) =>
      awaitSessionStatus(rootDb, body as SandboxSessionResource, ["refunded"], "refund"),
  }),
];
