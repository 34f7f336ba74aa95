import { z } from "zod";
import { notFound } from "../../errors";
import { commandBody, createCommand, waitForOperation } from "../../operations/create-command";
import { operationSchema } from "../../operations/operation-schema";
import { presentOperation } from "../../operations/present-operation";
import { credentialsBody, setStationCredentials } from "../../stations/set-station-credentials";
import { resourceIdQuery } from "../../lib/int4";
import { paginationQuery, toPage } from "../../lib/pagination";
import { idParam, stationParams, tenantParams } from "../params";
import type { RouteScope } from "../../access/scopes";
import { defineRoute } from "../route";

/** How long a command's 202 waits for a prompt charger's answer. */
export const COMMAND_WAIT_MS = 3_000;

/** A 202 operation's `afterCommit`: waits briefly for a prompt charger; a replay shows it as it is now. */
export const awaitOutcome = async ({
  body,
  replayed,
  rootDb,
}: {
  body: unknown;
  replayed: boolean;
  rootDb: Parameters<typeof waitForOperation>[0]["db"];
}) => {
  const op = body as { id: string; status: string };
  if (op.status !== "dispatching" && !replayed) return body;
  return waitForOperation({
    db: rootDb,
    operationId: op.id,
    timeoutMs: replayed ? 0 : COMMAND_WAIT_MS,
  });
};

/** How a 202 station command's description ends: how long its answer waits, and offline stations. */
export const COMMAND_WAIT = `The answer waits up to ${COMMAND_WAIT_MS} ms for the charger; otherwise read the operation or watch \`operation.completed\`. A station with no live connection is \`rejected\` with \`station_offline\` at once.`;

/**
 * What every 202 station command shares (spread first into its `defineRoute`): the Commands tag,
 * a tenant's `stations:control`, a required Idempotency-Key, the operation as the answer, and a
 * brief wait for a prompt charger after the commit (`awaitOutcome`).
 */
export const STATION_COMMAND = {
  tag: "Commands",
  auth: "tenant" as const,
  scopes: ["stations:control"] as RouteScope[],
  idempotency: "required" as const,
  status: 202,
  response: operationSchema,
  afterCommit: awaitOutcome,
};

export const operationRoutes = [
  defineRoute({
    ...STATION_COMMAND,
    method: "POST",
    path: "/v1/tenants/{tenant_id}/stations/{station_id}/commands",
    operationId: "sendCommand",
    summary: "Send an operator command to a station",
    description: `Answers 202 with the operation. The answer waits up to ${COMMAND_WAIT_MS} ms for the charger, so a prompt charger's outcome is already in the body; otherwise read the operation or watch \`operation.completed\`. A station with no live connection is \`rejected\` with \`station_offline\` at once. \`reset\`, \`availability\` and \`trigger\` reach one connector (\`connector_id\`), one EVSE (\`evse_number\`: OCPP 2.x \`evse\` without \`connectorId\`, \`Reset\` with \`evseId\`) or, with neither, the whole station (no \`evse\`; OCPP 1.6 connector 0); OCPP 1.6 has no EVSE reset and names an EVSE by its one connector, otherwise the operation is \`rejected\` with \`protocol_unsupported\` and nothing is sent. Never resend an \`unknown\` or \`dispatching\` operation under a new key.`,
    params: stationParams,
    body: commandBody,
    errors: ["connector_not_found", "evse_not_found", "transaction_not_found", "transaction_ended"],
    handler: async ({ params, body, db, principal }) => ({
      body: await createCommand({
        tenantId: params.tenant_id,
        stationId: params.station_id,
        apiKeyId: principal.actorId,
        command: body,
        db,
      }),
    }),
  }),
  defineRoute({
    method: "PUT",
    path: "/v1/tenants/{tenant_id}/stations/{station_id}/credentials",
    operationId: "setStationCredentials",
    summary: "Set the station's OCPP connection password",
    description:
      "Offline station: stored for the next connection (`result.applied` = `stored`). Connected OCPP 2.0.1/2.1 station: pushed and stored once accepted (`pushed`), needs `stations:admin`. Connected OCPP 1.6 station: rejected with `station_online`. At most 5 changes per station per hour. A sandbox station keeps the password its virtual charger holds: 409 `sandbox_station_managed`.",
    tag: "Stations",
    auth: "tenant",
    scopes: ["stations:write"],
    params: stationParams,
    body: credentialsBody,
    idempotency: "required",
    status: 202,
    response: operationSchema,
    errors: ["stations_admin_required", "credentials_rate_limited", "sandbox_station_managed"],
    handler: async ({ params, body, db, principal }) => ({
      body: await setStationCredentials({
        db,
        tenantId: params.tenant_id,
        stationId: params.station_id,
        password: body.password,
        principal,
      }),
    }),
    afterCommit: awaitOutcome,
  }),
  defineRoute({
    method: "GET",
    path: "/v1/tenants/{tenant_id}/operations",
    operationId: "listOperations",
    summary: "List the project's operations, by every actor (newest first)",
    tag: "Commands",
    auth: "tenant",
    scopes: ["stations:read"],
    params: tenantParams,
    query: z.object({
      limit: paginationQuery.shape.limit,
      after: z
        .string()
        .regex(/^op_[0-9A-Za-z]+$/)
        .optional(),
      station_id: resourceIdQuery.optional(),
    }),
    status: 200,
    response: z.object({
      data: z.array(operationSchema),
      next_cursor: z.string().nullable(),
      has_more: z.boolean(),
    }),
    handler: async ({ params, query, db }) => {
      const rows = await db.operation.findMany({
        where: {
          tenantId: params.tenant_id,
          ...(query.after ? { id: { lt: query.after } } : {}),
          ...(query.station_id ? { stationId: query.station_id } : {}),
        },
        orderBy: { id: "desc" },
        take: query.limit + 1,
      });
      return { body: toPage(rows, query.limit, (o) => o.id, presentOperation) };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v1/tenants/{tenant_id}/operations/{operation_id}",
    operationId: "getOperation",
    summary: "Read an operation",
    tag: "Commands",
    auth: "tenant",
    scopes: ["stations:read"],
    params: z.object({ tenant_id: idParam, operation_id: z.string().min(1).max(64) }),
    status: 200,
    response: operationSchema,
    handler: async ({ params, db }) => {
      const row = await db.operation.findFirst({
        where: { id: params.operation_id, tenantId: params.tenant_id },
      });
      if (!row) throw notFound("operation");
      return { body: presentOperation(row) };
    },
  }),
];
