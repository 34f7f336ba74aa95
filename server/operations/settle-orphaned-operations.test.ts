import { describe, expect, it } from "vitest";
import { db } from "../db";
import { newId } from "../lib/ids";
import { aStation, aTenantWithKey } from "../../testing/builders";
import {
  CONNECTION_GONE_GRACE_MS,
  OUTCOME_RECORDING_MARGIN_MS,
  settleOrphanedOperations,
} from "./settle-orphaned-operations";

const CALL_TIMEOUT_MS = 1_000;
const ago = (ms: number) => new Date(Date.now() - ms);

/** A station as a gateway left it, with one `dispatching` operation in the given claim state. */
async function aCommand(state: {
  claimedBy: string | null;
  claimedAt?: Date;
  station: { gatewayId: string | null; connectedAt: Date; changedAt: Date };
}) {
  const t = await aTenantWithKey();
  const station = await aStation(t.tenantId, t.key, { connector_count: 1 });
  await db().station.update({
    where: { id: station.id },
    data: {
      gatewayId: state.station.gatewayId,
      protocol: "ocpp1.6",
      connectedAt: state.station.connectedAt,
    },
  });
  await db()
    .$executeRaw`UPDATE stations SET updated_at = ${state.station.changedAt} WHERE id = ${station.id}`;
  const operation = await db().operation.create({
    data: {
      id: newId("op"),
      tenantId: t.tenantId,
      stationId: station.id,
      scope: "station.command",
      action: "reset",
      status: "dispatching",
      request: { action: "reset", mode: "soft" },
      claimedBy: state.claimedBy,
      claimedAt: state.claimedBy ? (state.claimedAt ?? new Date()) : null,
    },
  });
  const read = () => db().operation.findUniqueOrThrow({ where: { id: operation.id } });
  const completions = () =>
    db().event.count({ where: { tenantId: t.tenantId, type: "operation.completed" } });
  return { read, completions };
}

async function aGateway(heartbeatAt = new Date()) {
  const id = newId("gw");
  await db().gateway.create({ data: { id, heartbeatAt } });
  return id;
}

describe("settling orphaned operations", () => {
  it("marks unknown (dispatch_unconfirmed) what a live gateway claimed but can no longer report, and leaves the rest", async () => {
    const live = await aGateway();
    const other = await aGateway();
    const dead = await aGateway(ago(120_000));
    const longAgo = ago(60_000);
    // Within the call timeout plus margin, so only the connection rules can apply.
    const claimed = ago(CALL_TIMEOUT_MS + OUTCOME_RECORDING_MARGIN_MS / 2);
    const changed = ago(CONNECTION_GONE_GRACE_MS + 500);
    const recent = ago(CONNECTION_GONE_GRACE_MS / 5);
    const stale = ago(CALL_TIMEOUT_MS + OUTCOME_RECORDING_MARGIN_MS + 1_000);

    const orphaned = {
      // the connection that carried it closed (the station is offline)
      offline: await aCommand({
        claimedBy: live,
        claimedAt: claimed,
        station: { gatewayId: null, connectedAt: longAgo, changedAt: changed },
      }),
      // the station reconnected to another gateway
      moved: await aCommand({
        claimedBy: live,
        claimedAt: claimed,
        station: { gatewayId: other, connectedAt: changed, changedAt: changed },
      }),
      // the station reconnected to the same gateway after the claim
      reconnected: await aCommand({
        claimedBy: live,
        claimedAt: claimed,
        station: { gatewayId: live, connectedAt: changed, changedAt: changed },
      }),
      // still connected, but the call has long ended and no outcome was recorded
      unrecorded: await aCommand({
        claimedBy: live,
        claimedAt: stale,
        station: { gatewayId: live, connectedAt: longAgo, changedAt: longAgo },
      }),
      // the claiming gateway died
      deadSender: await aCommand({
        claimedBy: dead,
        claimedAt: ago(1_000),
        station: { gatewayId: dead, connectedAt: longAgo, changedAt: longAgo },
      }),
    };
    const untouched = {
      // in flight on a live connection
      inFlight: await aCommand({
        claimedBy: live,
        claimedAt: ago(200),
        station: { gatewayId: live, connectedAt: longAgo, changedAt: longAgo },
      }),
      // the connection closed a moment ago: its sender may still be recording the answer
      justClosed: await aCommand({
        claimedBy: live,
        claimedAt: claimed,
        station: { gatewayId: null, connectedAt: longAgo, changedAt: recent },
      }),
      // never claimed: the dispatcher's (or the offline rejection's) to decide
      unclaimed: await aCommand({
        claimedBy: null,
        station: { gatewayId: null, connectedAt: longAgo, changedAt: longAgo },
      }),
    };

    await settleOrphanedOperations({ db: db(), callTimeoutMs: CALL_TIMEOUT_MS });

    const reasons = {
      offline: "connection_closed",
      moved: "connection_closed",
      reconnected: "connection_closed",
      unrecorded: "outcome_not_recorded",
      deadSender: "gateway_stopped",
    } as const;
    for (const [name, command] of Object.entries(orphaned)) {
      const row = await command.read();
      expect({ name, status: row.status, secret: row.secret, result: row.result }).toEqual({
        name,
        status: "unknown",
        secret: null,
        result: {
          error: {
            code: "dispatch_unconfirmed",
            message: expect.any(String),
            details: { reason: reasons[name as keyof typeof reasons] },
          },
        },
      });
      expect(await command.completions()).toBe(1);
    }
    for (const [name, command] of Object.entries(untouched)) {
      const row = await command.read();
      expect({ name, status: row.status, completedAt: row.completedAt }).toEqual({
        name,
        status: "dispatching",
        completedAt: null,
      });
      expect(await command.completions()).toBe(0);
    }

    // A second pass finds nothing more: each operation completes (and is reported) once.
    await settleOrphanedOperations({ db: db(), callTimeoutMs: CALL_TIMEOUT_MS });
    for (const command of Object.values(orphaned)) expect(await command.completions()).toBe(1);
  });
});
