import { z } from "zod";
import { operationSchema } from "../../operations/operation-schema";
import { cancelSession } from "../../sessions/cancel-session";
import { createSession } from "../../sessions/create-session";
import { finalizeSession } from "../../sessions/finalize-session";
import { getSession, listSessions } from "../../sessions/read-sessions";
import { listReports, reportSettlement } from "../../sessions/report-settlement";
import {
  createSessionBody,
  finalizeSessionBody,
  listSessionsQuery,
  reportAnswerSchema,
  reportBody,
  reportSchema,
  sessionIdSchema,
  sessionSchema,
  startSessionBody,
} from "../../sessions/session-schema";
import { listSessionEvents, listSessionOperations } from "../../sessions/session-history";
import { startSession } from "../../sessions/start-session";
import { eventSchema } from "../../events/list-events";
import { stopSession } from "../../sessions/stop-session";
import { idParam, tenantParams } from "../params";
import { defineRoute } from "../route";
import { awaitOutcome, COMMAND_WAIT_MS } from "./operations";
import { SESSION_STATES, SETTLEMENT_STATES } from "./charging-session-states";

const tag = "Charging sessions";
const base = "/v1/tenants/{tenant_id}/charging-sessions";
const sessionParams = z.object({ tenant_id: idParam, session_id: sessionIdSchema });

export const chargingSessionRoutes = [
  defineRoute({
    method: "POST",
    path: base,
    operationId: "createChargingSession",
    summary: "Create an externally funded charging session",
    description: `The application takes the payment itself; the service runs the charger, measures, and fixes the bill. Creates the session and its bill (settlement_owner \`external\`), which snapshots the tariff's current version. A \`csms\` session reserves its connector until it is final or canceled: one open physical session per connector (409 \`connector_session_open\`, \`details.session_id\`). 422 names a station, connector or tariff that is not the project's. Needs \`billing:write\` and \`settlement:write\`.\n\n${SESSION_STATES}`,
    tag,
    auth: "tenant",
    scopes: ["billing:write", "settlement:write"],
    params: tenantParams,
    body: createSessionBody,
    idempotency: "required",
    status: 201,
    response: sessionSchema,
    errors: ["connector_not_found", "connector_session_open"],
    handler: async ({ params, body, db, principal }) => ({
      body: await createSession({
        tenantId: params.tenant_id,
        actorId: principal.actorId,
        input: body,
        db,
      }),
    }),
  }),
  defineRoute({
    method: "GET",
    path: base,
    operationId: "listChargingSessions",
    summary: "List charging sessions (newest first)",
    description: `Filters \`status\`, \`source\`, \`station_id\`, \`connector_id\`, \`application_reference\`, \`needs_reconciliation\`; continue with \`after\` = \`next_cursor\` (a session ID). A status change first seen by this read is published (\`charging_session.status_changed\`), once.\n\n${SESSION_STATES}`,
    tag,
    auth: "tenant",
    scopes: ["billing:read"],
    params: tenantParams,
    query: listSessionsQuery,
    status: 200,
    response: z.object({
      data: z.array(sessionSchema),
      next_cursor: z.string().nullable(),
      has_more: z.boolean(),
    }),
    handler: async ({ params, query, rootDb }) => ({
      body: await listSessions({ tenantId: params.tenant_id, query, db: rootDb }),
    }),
  }),
  defineRoute({
    method: "GET",
    path: `${base}/{session_id}`,
    operationId: "getChargingSession",
    summary: "Read a charging session with its live usage",
    description: `The derived status, the start and stop operations, the usage (live from the matched transaction while charging; fixed at finalization, with the bill's \`transaction_id\`), the final \`total_minor\` and what the settlement reports say (\`captured_minor\`, \`refunded_minor\`, \`uncollected_minor\`, \`net_minor\`). A status change first seen by this read is published, once. Another project's session is 404.\n\n${SESSION_STATES}`,
    tag,
    auth: "tenant",
    scopes: ["billing:read"],
    params: sessionParams,
    status: 200,
    response: sessionSchema,
    handler: async ({ params, rootDb }) => ({
      body: await getSession({
        tenantId: params.tenant_id,
        sessionId: params.session_id,
        db: rootDb,
      }),
    }),
  }),
  defineRoute({
    method: "POST",
    path: `${base}/{session_id}/start`,
    operationId: "startChargingSession",
    summary: "Start a session on its charger (funding confirmed)",
    description: `Body \`{ "funding_confirmed": true }\` (anything else: 422). Sends the start for the session's connector with its bill's charging token (issued by the service, never shown) and answers 202 with the operation (scope \`external.start\`), waiting up to ${COMMAND_WAIT_MS} ms for the charger. The start is a reservation: while one is held (not refused), another start is 409 \`session_start_reserved\` under any key, and concurrent starts dispatch once. A refused start (\`station_offline\`, the charger said no) frees it, and the session reads \`funding_confirmed: false\` until a start is sent again. \`simulated\` sessions: 409 \`session_simulated\`; final or canceled: 409 \`session_closed\`. Never resend an \`unknown\` start under a new key: reconcile. Needs \`billing:write\`, \`settlement:write\` and \`stations:control\`.\n\n${SESSION_STATES}`,
    tag,
    auth: "tenant",
    scopes: ["billing:write", "settlement:write", "stations:control"],
    params: sessionParams,
    body: startSessionBody,
    idempotency: "required",
    status: 202,
    response: operationSchema,
    errors: ["session_simulated", "session_closed", "session_start_reserved"],
    handler: async ({ params, db, principal }) => ({
      body: await startSession({
        tenantId: params.tenant_id,
        sessionId: params.session_id,
        apiKeyId: principal.actorId,
        db,
      }),
    }),
    afterCommit: awaitOutcome,
  }),
  defineRoute({
    method: "POST",
    path: `${base}/{session_id}/stop`,
    operationId: "stopChargingSession",
    summary: "Stop a session's own transaction",
    description: `No body. Stops the session's own matched transaction, never another (409 \`session_not_charging\` unless the session is \`charging\`), with a 202 operation (scope \`external.stop\`). While a stop is reserved (not refused), another is 409 \`session_stop_reserved\` under any key. Needs \`billing:write\`, \`settlement:write\` and \`stations:control\`.\n\n${SESSION_STATES}`,
    tag,
    auth: "tenant",
    scopes: ["billing:write", "settlement:write", "stations:control"],
    params: sessionParams,
    idempotency: "required",
    status: 202,
    response: operationSchema,
    errors: ["session_not_charging", "session_stop_reserved"],
    handler: async ({ params, db, principal }) => ({
      body: await stopSession({
        tenantId: params.tenant_id,
        sessionId: params.session_id,
        apiKeyId: principal.actorId,
        db,
      }),
    }),
    afterCommit: awaitOutcome,
  }),
  defineRoute({
    method: "POST",
    path: `${base}/{session_id}/finalize`,
    operationId: "finalizeChargingSession",
    summary: "Finalize a session: fix total_minor",
    description: `\`csms\` sessions: \`{ "transaction_id" }\`, the completed transaction the session's bill matched (409 \`transaction_mismatch\` with \`details.reason\`, \`transaction_active\`, \`transaction_times_invalid\`, \`bill_start_in_progress\`); only \`simulated\` sessions take \`{ "energy_wh", "duration_seconds"? }\` (422 otherwise). Priced as a bill on the snapshotted tariff; \`total_minor\` in USD is fixed, the usage is fixed with the bill's \`transaction_id\`, the connector is free again, and \`bill.finalized\` (with \`session_id\`) and \`charging_session.status_changed\` are emitted. The same input again answers the same session; another is 409 \`bill_final\`. Canceled: 409 \`session_closed\`.\n\n${SESSION_STATES}`,
    tag,
    auth: "tenant",
    scopes: ["billing:write", "settlement:write"],
    params: sessionParams,
    body: finalizeSessionBody,
    idempotency: "required",
    status: 200,
    response: sessionSchema,
    errors: [
      "session_closed",
      "bill_final",
      "bill_start_in_progress",
      "transaction_mismatch",
      "transaction_active",
      "transaction_times_invalid",
      "tariff_not_valid_at",
    ],
    handler: async ({ params, body, db }) => ({
      body: await finalizeSession({
        tenantId: params.tenant_id,
        sessionId: params.session_id,
        input: body,
        db,
      }),
    }),
  }),
  defineRoute({
    method: "POST",
    path: `${base}/{session_id}/cancel`,
    operationId: "cancelChargingSession",
    summary: "Cancel a session that was never started",
    description: `No body. Only a session without a start reservation (never started, or its start refused) can be canceled (409 \`session_start_reserved\`; final: 409 \`session_closed\`). Frees the connector and closes its bill as \`canceled\` (no amount, no hold shown); the service releases no funds (the application holds them). Canceling again answers the canceled session.\n\n${SESSION_STATES}`,
    tag,
    auth: "tenant",
    scopes: ["billing:write", "settlement:write"],
    params: sessionParams,
    idempotency: "required",
    status: 200,
    response: sessionSchema,
    errors: ["session_closed", "session_start_reserved"],
    handler: async ({ params, db }) => ({
      body: await cancelSession({ tenantId: params.tenant_id, sessionId: params.session_id, db }),
    }),
  }),
  defineRoute({
    method: "POST",
    path: `${base}/{session_id}/settlement-reports`,
    operationId: "reportChargingSessionSettlement",
    summary: "Report what happened to a session's money",
    description: `An append-only assertion (\`kind\`, \`operation_reference\`, \`outcome\`, \`amount_minor\`, \`currency\` \`USD\`) with its actor and receipt time. It never executes a payment or changes a bill or payment. The same operation and outcome again, under any key, returns the historical report with \`duplicate: true\` and changes nothing (with another amount: 409 \`settlement_report_conflict\`). Captures cannot exceed the final bill (409 \`session_not_final\`, \`capture_exceeds_bill\`); a refund needs a succeeded capture (409 \`settlement_capture_missing\`) and refunds cannot exceed captures (409 \`refund_exceeds_captures\`). Needs \`settlement:write\`.\n\n${SETTLEMENT_STATES}`,
    tag,
    auth: "tenant",
    scopes: ["settlement:write"],
    params: sessionParams,
    body: reportBody,
    idempotency: "required",
    status: 200,
    response: reportAnswerSchema,
    errors: [
      "settlement_outcome_final",
      "settlement_report_conflict",
      "settlement_capture_missing",
      "session_not_final",
      "capture_exceeds_bill",
      "refund_exceeds_captures",
    ],
    handler: async ({ params, body, db, principal }) => ({
      body: await reportSettlement({
        tenantId: params.tenant_id,
        sessionId: params.session_id,
        actorId: principal.actorId,
        input: body,
        db,
      }),
    }),
  }),
  defineRoute({
    method: "GET",
    path: `${base}/{session_id}/settlement-reports`,
    operationId: "listChargingSessionSettlementReports",
    summary: "A session's settlement reports, in the order received",
    description: `Every report as received (duplicates are not recorded twice).\n\n${SETTLEMENT_STATES}`,
    tag,
    auth: "tenant",
    scopes: ["billing:read"],
    params: sessionParams,
    status: 200,
    response: z.object({ data: z.array(reportSchema) }),
    handler: async ({ params, db }) => ({
      body: await listReports({ tenantId: params.tenant_id, sessionId: params.session_id, db }),
    }),
  }),
  defineRoute({
    method: "GET",
    path: `${base}/{session_id}/operations`,
    operationId: "listChargingSessionOperations",
    summary: "A session's start and stop operations, oldest first",
    description:
      "Every `external.start` and `external.stop` operation of the session, refused ones included (a refused start or stop frees its reservation, so a session may have several).",
    tag,
    auth: "tenant",
    scopes: ["billing:read", "stations:read"],
    params: sessionParams,
    status: 200,
    response: z.object({ data: z.array(operationSchema) }),
    handler: async ({ params, db }) => ({
      body: await listSessionOperations({
        tenantId: params.tenant_id,
        sessionId: params.session_id,
        db,
      }),
    }),
  }),
  defineRoute({
    method: "GET",
    path: `${base}/{session_id}/events`,
    operationId: "listChargingSessionEvents",
    summary: "The events about a session, in log order",
    description:
      "Its `charging_session.status_changed` events, its bill's events (`bill.finalized`, `bill.charging_stopped`) and the `operation.completed` events of its operations, in `sequence` order (the newest 200). The whole log is `GET …/events`.",
    tag,
    auth: "tenant",
    scopes: ["billing:read", "stations:read"],
    params: sessionParams,
    status: 200,
    response: z.object({ data: z.array(eventSchema) }),
    handler: async ({ params, db }) => ({
      body: await listSessionEvents({
        tenantId: params.tenant_id,
        sessionId: params.session_id,
        db,
      }),
    }),
  }),
];
