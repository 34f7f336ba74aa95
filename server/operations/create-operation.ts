import { db as defaultDb, type DbTx } from "../db";
import { owningGateway } from "../charging/gateways";
import type { Operation, Prisma } from "../generated/prisma/client";
import { newId } from "../lib/ids";
import { seal } from "../lib/secret-box";
import { completeOperation } from "./complete-operation";
import { operationKind } from "./kinds";
import type { Outcome } from "./kinds/kind";
import { OPERATION_COLUMNS } from "./operation-row";
import { presentOperation } from "./present-operation";

export const stationOffline = () => ({
  code: "station_offline",
  message: "The station has no live connection; nothing was sent.",
  details: {},
});

export type CreateOperationOptions = {
  tenantId: number;
  stationId: number;
  apiKeyId: string | null;
  /** the operation kind (`./kinds`); a scope no kind serves throws */
  scope: string;
  action: string;
  /** what was asked, as shown (minus the kind's hidden fields) */
  request: Record<string, unknown>;
  /** for a kind that carries a secret: what its call needs and nothing may keep (a password) */
  secret?: string;
  /** decided at creation: the operation is final at once (event, `onSettled`), nothing is sent */
  outcome?: Outcome;
  /** the station's live gateway (or null), when the caller already read it in this transaction */
  gatewayId?: string | null;
  db?: DbTx;
};

/**
 * Writes a charger operation in the caller's transaction, the one way every kind is created. With
 * a live gateway holding the station it is `dispatching` and the gateways are woken (NOTIFY at
 * commit) to send it; otherwise it is `rejected` with `station_offline` at once. The caller has
 * checked that the station is the tenant's.
 */
export async function createOperation({
  db = defaultDb(),
  secret,
  outcome,
  gatewayId,
  ...o
}: CreateOperationOptions) {
  const kind = operationKind(o.scope);
  if (secret !== undefined && !kind.carriesSecret)
    throw new Error(`Operations of scope "${o.scope}" carry no secret.`);
  if (secret === undefined && kind.carriesSecret && !outcome)
    throw new Error(`Operations of scope "${o.scope}" are sent with a secret; none was given.`);
  const id = newId("op");
  const data = {
    id,
    tenantId: o.tenantId,
    apiKeyId: o.apiKeyId,
    stationId: o.stationId,
    scope: o.scope,
    action: o.action,
    request: o.request as Prisma.InputJsonObject,
    status: "dispatching",
  };
  let settled = outcome;
  if (!settled) {
    const gateway = gatewayId === undefined ? await owningGateway(db, o.stationId) : gatewayId;
    if (!gateway) settled = offline();
  }
  if (settled) {
    await db.operation.create({ data });
    return (await completeOperation(db, id, settled))!;
  }
  // The row and the gateways' wake-up (`./operation-notice.ts`) in one statement: the NOTIFY is
  // delivered at commit, so a gateway never looks for an operation that is not there yet.
  // created_at is this process's clock, as Prisma's create sets it.
  const [row] = await db.$queryRaw<Operation[]>`
    WITH op AS (
      INSERT INTO operations (id, tenant_id, api_key_id, station_id, scope, action, status, request,
                              secret, created_at)
      VALUES (${id}, ${o.tenantId}, ${o.apiKeyId}, ${o.stationId}, ${o.scope}, ${o.action},
              'dispatching', ${JSON.stringify(o.request)}::jsonb,
              ${secret !== undefined ? seal(secret) : null}, ${new Date()})
      RETURNING ${OPERATION_COLUMNS})
    SELECT op.* FROM op, pg_notify('operations', op."stationId" || ' ' || op.id)`;
  return presentOperation(row!);
}

const offline = (): Outcome => ({ status: "rejected", result: { error: stationOffline() } });
