import { z } from "zod";
import { db as defaultDb, type Db, type DbTx } from "../db";
import { DomainError, notFound } from "../errors";
import type { Prisma } from "../generated/prisma/client";
import { issueToken } from "../charging/authorize-token";
import { owningGateway } from "../charging/gateways";
import { newId } from "../lib/ids";
import { completeOperation } from "./complete-operation";
import { buildOcppCall, type Command } from "./ocpp-commands";
import { presentOperation } from "./present-operation";

export const commandBody = z.discriminatedUnion("action", [
  z.strictObject({
    action: z.literal("start"),
    connector_id: z.number().int().positive(),
    token: z.string().min(1).max(36),
    token_type: z
      .enum([
        "Central",
        "eMAID",
        "ISO14443",
        "ISO15693",
        "KeyCode",
        "Local",
        "MacAddress",
        "NoAuthorization",
      ])
      .optional(),
  }),
  z.strictObject({ action: z.literal("stop"), transaction_id: z.number().int().positive() }),
  z.strictObject({ action: z.literal("reset"), mode: z.enum(["soft", "hard"]) }),
  z.strictObject({ action: z.literal("unlock"), connector_id: z.number().int().positive() }),
  z.strictObject({
    action: z.literal("availability"),
    connector_id: z.number().int().positive(),
    mode: z.enum(["inoperative", "operative"]),
  }),
]);

export const stationOffline = () => ({
  code: "station_offline",
  message: "The station has no live connection; nothing was sent.",
  details: {},
});

export type CreateCommandOptions = {
  tenantId: number;
  stationId: number;
  apiKeyId: string | null;
  command: Command;
  db?: DbTx;
};

/**
 * Validates a command against the station, translates resource IDs to the station's protocol and
 * records the operation: `dispatching` (woken gateways send it) or, with no live connection,
 * `rejected` with `station_offline` at once.
 */
export async function createCommand({
  tenantId,
  stationId,
  apiKeyId,
  command,
  db = defaultDb(),
}: CreateCommandOptions) {
  const station = await db.station.findFirst({
    where: { id: stationId, tenantId },
    include: { connectors: { include: { evse: true } } },
  });
  if (!station) throw notFound("station");
  let connector: (typeof station.connectors)[number] | undefined;
  if ("connector_id" in command) {
    connector = station.connectors.find((c) => c.id === command.connector_id);
    if (!connector) {
      throw new DomainError(
        "connector_not_found",
        "connector_id names no connector of this station.",
        {
          fields: [
            {
              field: "connector_id",
              message: "names no connector of this station",
            },
          ],
        },
      );
    }
  }
  let transactionReference: string | undefined;
  if (command.action === "stop") {
    const transaction = await db.transaction.findFirst({
      where: { id: command.transaction_id, stationId, tenantId },
    });
    if (!transaction) {
      throw new DomainError(
        "transaction_not_found",
        "transaction_id names no transaction of this station.",
        {
          fields: [
            {
              field: "transaction_id",
              message: "names no transaction of this station",
            },
          ],
        },
      );
    }
    if (transaction.endedAt)
      throw new DomainError("transaction_ended", "The transaction has already ended.", {
        transaction_id: transaction.id,
      });
    transactionReference = transaction.reference;
  }
  const id = newId("op");
  const base = {
    id,
    tenantId,
    apiKeyId,
    stationId,
    scope: "station.command",
    action: command.action,
    request: command as unknown as Prisma.InputJsonObject,
  };
  const gateway = await owningGateway(db, stationId);
  if (!gateway || !station.protocol) {
    await db.operation.create({ data: { ...base, status: "dispatching" } });
    return (await completeOperation(db, id, {
      status: "rejected",
      result: { error: stationOffline() },
    }))!;
  }
  const call = buildOcppCall(command, {
    protocol: station.protocol,
    ...(connector
      ? {
          connector: {
            connectorNumber: connector.connectorNumber,
            evseNumber: connector.evse.evseNumber,
            evseConnectorNumber: connector.evseConnectorNumber,
          },
        }
      : {}),
    ...(transactionReference ? { transactionReference } : {}),
  });
  if (command.action === "start") await issueToken(db, tenantId, command.token, "start_command");
  const row = await db.operation.create({
    data: { ...base, status: "dispatching", ocppCall: call as unknown as Prisma.InputJsonObject },
  });
  await db.$executeRaw`SELECT pg_notify('operations', ${id})`;
  return presentOperation(row);
}

/** Waits a short, bounded time for an operation to leave `dispatching`; returns its latest state. */
export async function waitForOperation({
  db,
  operationId,
  timeoutMs,
}: {
  db: Db;
  operationId: string;
  timeoutMs: number;
}) {
  const deadline = Date.now() + timeoutMs;
  for (let delay = 20; ; delay = Math.min(delay * 2, 200)) {
    const row = await db.operation.findUniqueOrThrow({ where: { id: operationId } });
    if (row.status !== "dispatching" || Date.now() >= deadline) return presentOperation(row);
    await new Promise((r) => setTimeout(r, delay));
  }
}
