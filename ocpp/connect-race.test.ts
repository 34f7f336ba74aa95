import pg from "pg";
import { describe, expect, it } from "vitest";
import { db } from "../server/db";
import { aStationWithPassword, aTenantWithKey } from "../testing/builders";
import { aConnectedCharger, waitUntil } from "../testing/ocpp";
import { aLiveGateway } from "../testing/live-gateway";

const gw = aLiveGateway();

describe("a socket that closes while its connection is still being recorded", () => {
  it("is recorded offline and never held by the gateway", async () => {
    const t = await aTenantWithKey();
    const password = "closes-while-connecting-1";
    const station = await aStationWithPassword(t, password);
    // Another session holds the station row, so recording the connect waits on it.
    const blocker = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await blocker.connect();
    await blocker.query("BEGIN");
    await blocker.query("SELECT id FROM stations WHERE id = $1 FOR UPDATE", [station.id]);
    const charger = await aConnectedCharger(gw, station, password, "ocpp1.6");
    await waitUntil(async () => {
      const { rows } = await blocker.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      return (rows[0]?.n ?? 0) > 0;
    });
    await charger.close({ force: true });
    await new Promise((r) => setTimeout(r, 200)); // the close is seen while the connect still waits
    await blocker.query("COMMIT");
    await blocker.end();

    await waitUntil(
      async () =>
        (await db().event.count({
          where: { tenantId: t.tenantId, type: "station.disconnected" },
        })) === 1,
    );
    const row = await db().station.findUniqueOrThrow({ where: { id: station.id } });
    expect(row.gatewayId).toBeNull();
    expect(gw.gateway.connectionCount()).toBe(0);
  });
});
