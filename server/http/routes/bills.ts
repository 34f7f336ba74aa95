import { z } from "zod";
import {
  billIdSchema,
  billSchema,
  createBillBody,
  finalizeBillBody,
  listBillsQuery,
} from "../../bills/bill-schema";
import { createBill } from "../../bills/create-bill";
import { finalizeBill } from "../../bills/finalize-bill";
import { getBill } from "../../bills/get-bill";
import { listBills } from "../../bills/list-bills";
import { startBill } from "../../bills/start-bill";
import { operationSchema } from "../../operations/operation-schema";
import { idParam, tenantParams } from "../params";
import { defineRoute } from "../route";
import { awaitOutcome, COMMAND_WAIT_MS } from "./operations";

const tag = "Bills";
const billParams = z.object({ tenant_id: idParam, bill_id: billIdSchema });

/** The bill's states, for the route descriptions (and so for /v1/openapi.json). */
const STATES = `
Bill statuses (each moved in the same database transaction as the fact that moves it):

| Status | Moved by | Next | Also |
| --- | --- | --- | --- |
| \`open\` | POST …/start (csms bill, authorized card payment) | \`starting\` | a \`bill.start\` operation (202) |
| \`open\` | POST …/finalize (simulated bill, \`energy_wh\`) | \`final\` | \`bill.finalized\` |
| \`starting\` | the start operation \`rejected\` (e.g. \`station_offline\`, the charger refused) | \`open\` | start again with a new key |
| \`starting\` | the start operation \`unknown\` (no confirmed answer) | \`start_unknown\` | reconcile; never resend under a new key |
| \`starting\` | the start operation \`succeeded\` | \`starting\` | until the transaction appears |
| \`open\`, \`starting\`, \`start_unknown\` | a transaction carrying the bill's token starts on its station and connector | \`charging\` | \`transaction_id\` set; the first such transaction wins |
| \`charging\` | meter values | \`charging\` | \`running_cost_minor\`; at hold − margin the live cap stops the charger (\`stop_reason\` \`hold_limit\`, a \`bill.cap\` operation); OCPP 2.0.1/2.1 chargers get \`CostUpdated\` |
| \`charging\` (\`hold_limit\`) | the cap's call refused, unanswered, or accepted and the transaction still running a minute later; the charger reconnecting | \`charging\` | the cap calls again (\`cap_attempts\`, \`stop_operation_id\`): the stop, the stop, then ChangeAvailability Inoperative on the connector, and so on, 10 s doubling to 5 min apart, at once on a new connection, until the transaction ends |
| \`charging\` | the running cost passes the hold (no stop confirmed) | \`charging\` | \`needs_reconciliation\` (\`hold_exceeded\`), \`bill.cap_exceeded\`, once |
| \`charging\` | the transaction ends | \`ended\` | \`stop_reason\`; \`bill.charging_stopped\` (and \`bill.cap_exceeded\` when the whole session cost more than the hold, if not flagged before) |
| \`ended\` | POST …/finalize with the \`transaction_id\` | \`final\` | \`bill.finalized\` |
| \`final\` | anything | \`final\` | the amount never changes |
| \`open\` (an external session's bill) | POST …/charging-sessions/{id}/cancel | \`canceled\` | closed: no amount, nothing held, matched by no transaction |
`.trim();

export const billRoutes = [
  defineRoute({
    method: "POST",
    path: "/v1/tenants/{tenant_id}/bills",
    operationId: "createBill",
    summary: "Create a bill",
    description: `An \`open\` bill on the tariff's current version and a hold, both fixed from now on. \`source\` \`csms\` bills are started (POST …/start) once their card payment is authorized, and finalized with their transaction; \`simulated\` bills are never started and are finalized with \`energy_wh\`. \`billing_version\` is \`elements-v1\` on complex tariffs, \`energy-v1\` otherwise. 422 \`validation_failed\` names the field: a station or tariff that is not the project's, a \`pricing_group\` or \`merchant_validation\` the tariff's rules do not know, a \`hold_minor\` above the tariff's session cost cap or (csms) not above the project's \`hold_margin_minor\`; 422 \`connector_not_found\` for a connector that is not the station's. The bill's charging token is issued by the service and never shown.\n\n${STATES}`,
    tag,
    auth: "tenant",
    scopes: ["billing:write"],
    params: tenantParams,
    body: createBillBody,
    idempotency: "required",
    status: 201,
    response: billSchema,
    errors: ["connector_not_found"],
    handler: async ({ params, body, db, principal }) => ({
      body: await createBill({
        tenantId: params.tenant_id,
        actorId: principal.actorId,
        input: body,
        db,
      }),
    }),
  }),
  defineRoute({
    method: "GET",
    path: "/v1/tenants/{tenant_id}/bills",
    operationId: "listBills",
    summary: "List bills (newest first)",
    description: `Filters \`status\`, \`source\`, \`station_id\`, \`transaction_id\`; continue with \`after\` = \`next_cursor\` (a bill ID).\n\n${STATES}`,
    tag,
    auth: "tenant",
    scopes: ["billing:read"],
    params: tenantParams,
    query: listBillsQuery,
    status: 200,
    response: z.object({
      data: z.array(billSchema),
      next_cursor: z.string().nullable(),
      has_more: z.boolean(),
    }),
    handler: async ({ params, query, db }) => ({
      body: await listBills({ tenantId: params.tenant_id, query, db }),
    }),
  }),
  defineRoute({
    method: "GET",
    path: "/v1/tenants/{tenant_id}/bills/{bill_id}",
    operationId: "getBill",
    summary: "Read a bill",
    description: `Another project's bill is 404, as an unknown one.\n\n${STATES}`,
    tag,
    auth: "tenant",
    scopes: ["billing:read"],
    params: billParams,
    status: 200,
    response: billSchema,
    handler: async ({ params, db }) => ({
      body: await getBill({ tenantId: params.tenant_id, billId: params.bill_id, db }),
    }),
  }),
  defineRoute({
    method: "POST",
    path: "/v1/tenants/{tenant_id}/bills/{bill_id}/start",
    operationId: "startBill",
    summary: "Start a csms bill on its charger",
    description: `Sends the start command for the bill's connector with the bill's charging token (which the service issues, accepts under \`known_tokens\`, and never shows). No body. Answers 202 with the operation (scope \`bill.start\`), waiting up to ${COMMAND_WAIT_MS} ms for the charger. Needs an \`open\` bill (409 \`bill_not_open\`) of source \`csms\` (409 \`bill_simulated\`) whose \`card\` payment is \`authorized\` (409 \`payment_not_authorized\`, \`details.reason\`). An offline station's operation is \`rejected\` (\`station_offline\`) at once and the bill is \`open\` again. An external charging session's bill (settlement_owner \`external\`) is 409 \`bill_externally_settled\`: use the session's routes. Use a stable Idempotency-Key; never resend an \`unknown\` start under a new key.\n\n${STATES}`,
    tag,
    auth: "tenant",
    scopes: ["billing:write", "stations:control"],
    params: billParams,
    idempotency: "required",
    status: 202,
    response: operationSchema,
    errors: [
      "bill_not_open",
      "bill_simulated",
      "payment_not_authorized",
      "bill_externally_settled",
    ],
    handler: async ({ params, db, principal }) => ({
      body: await startBill({
        tenantId: params.tenant_id,
        billId: params.bill_id,
        apiKeyId: principal.actorId,
        db,
      }),
    }),
    afterCommit: awaitOutcome,
  }),
  defineRoute({
    method: "POST",
    path: "/v1/tenants/{tenant_id}/bills/{bill_id}/finalize",
    operationId: "finalizeBill",
    summary: "Finalize a bill: fix its amount",
    description: `\`csms\` bills: \`{ "transaction_id" }\`, the completed transaction carrying the bill's token on its station and connector (409 \`transaction_mismatch\` with \`details.reason\` \`unknown_transaction\`, \`not_matched\`, \`station\`, \`connector\` or \`token\`), ended (409 \`transaction_active\`), with a start and an end not before it (409 \`transaction_times_invalid\`); 409 \`bill_start_in_progress\` while the bill's start is being dispatched. \`simulated\` bills: \`{ "energy_wh", "duration_seconds"? }\` (default 3600), priced as energy drawn evenly from the bill's creation. Fields the bill's source does not take, or a missing one, are 422 \`validation_failed\`. The amount is the pricing engine's total incl. VAT on the bill's tariff version, then the group discount, the merchant validation and the session cost cap (\`adjustments\`); \`elements-v1\` bills carry \`cost_breakdown\` with \`activity\`. 409 \`tariff_not_valid_at\` when the session started outside the tariff's validity window. The final bill is immutable and \`bill.finalized\` is emitted; finalizing it again with the same input answers it unchanged, with another input 409 \`bill_final\`. An external charging session's bill is finalized through its session (409 \`bill_externally_settled\`).\n\n${STATES}`,
    tag,
    auth: "tenant",
    scopes: ["billing:write"],
    params: billParams,
    body: finalizeBillBody,
    idempotency: "required",
    status: 200,
    response: billSchema,
    errors: [
      "bill_externally_settled",
      "bill_final",
      "bill_start_in_progress",
      "transaction_mismatch",
      "transaction_active",
      "transaction_times_invalid",
      "tariff_not_valid_at",
    ],
    handler: async ({ params, body, db }) => ({
      body: await finalizeBill({
        tenantId: params.tenant_id,
        billId: params.bill_id,
        input: body,
        db,
      }),
    }),
  }),
];
