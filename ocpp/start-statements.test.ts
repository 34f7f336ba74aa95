import { describe, expect, it } from "vitest";
import { db, newDb, type Db } from "../server/db";
import { aStationWithPassword, aTenantWithKey } from "../testing/builders";
import { aConnectedCharger, waitUntil } from "../testing/ocpp";
import { aLiveGateway } from "../testing/live-gateway";

/**
 * The gateway's statements, counted: every model query and raw statement its client runs (in a
 * transaction or not), through a Prisma query extension on a client of its own.
 */
let statements: string[] = [];
/** what the gateway writes on its own clock meanwhile: its heartbeat, last-seen marks */
const BACKGROUND = /UPDATE gateways|FROM stations WHERE id = ANY|last_seen_at/;
const counted = newDb(process.env.DATABASE_URL!, { max: 4 }).$extends({
  query: {
    $allOperations: ({ model, operation, args, query }) => {
      const sql = (args as { strings?: string[] } | undefined)?.strings?.join("?") ?? "";
      statements.push(`${model ?? ""}.${operation}${sql ? ` ${sql.trim().slice(0, 60)}` : ""}`);
      return query(args);
    },
  },
}) as unknown as Db;
const gw = aLiveGateway({ db: counted });

const PASSWORD = "start-statements-pass-1";

/** A connected charger whose connect (and its last-seen mark) is written: nothing else runs. */
async function aQuietCharger(protocol: "ocpp1.6" | "ocpp2.0.1") {
  const t = await aTenantWithKey();
  const station = await aStationWithPassword(t, PASSWORD);
  const charger = await aConnectedCharger(gw, station, PASSWORD, protocol);
  await waitUntil(
    async () => (await db().station.findUnique({ where: { id: station.id } }))!.gatewayId !== null,
  );
  // the last-seen marks are written once a second
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  return { station, charger };
}

describe("what a transaction's start costs the database", () => {
  it("a 1.6 StartTransaction: the lookups, one INSERT … RETURNING with its reference, the message record", async () => {
    const { station, charger } = await aQuietCharger("ocpp1.6");
    try {
      statements = [];
      const answer = (await charger.call("StartTransaction", {
        connectorId: 1,
        idTag: "COUNTED",
        meterStart: 0,
        timestamp: new Date().toISOString(),
      })) as { transactionId: number };
      const seen = statements.filter((s) => !BACKGROUND.test(s));
      const row = await db().transaction.findUniqueOrThrow({
        where: { id: answer.transactionId },
      });
      expect(row).toMatchObject({ stationId: station.id, reference: String(row.id) });
      // Was 10 (a lookup of the same start, a create, an update of the reference): now one INSERT.
      expect(seen.filter((s) => s.startsWith("Transaction."))).toEqual([]);
      expect(seen.length, seen.join(", ")).toBeLessThanOrEqual(8);
    } finally {
      await charger.close({ force: true });
    }
  });

  it("a 2.x TransactionEvent Started: no second lookup of the transaction before its INSERT", async () => {
    const { station, charger } = await aQuietCharger("ocpp2.0.1");
    try {
      statements = [];
      await charger.call("TransactionEvent", {
        eventType: "Started",
        timestamp: new Date().toISOString(),
        triggerReason: "Authorized",
        seqNo: 0,
        transactionInfo: { transactionId: "counted-1" },
        evse: { id: 1, connectorId: 1 },
        idToken: { idToken: "COUNTED", type: "ISO14443" },
      });
      const seen = statements.filter((s) => !BACKGROUND.test(s));
      expect(
        await db().transaction.count({ where: { stationId: station.id, reference: "counted-1" } }),
      ).toBe(1);
      // the lookup by reference (findTransaction) once, not again in transactionStarted
      expect(seen.filter((s) => s.startsWith("Transaction."))).toEqual(["Transaction.findUnique"]);
    } finally {
      await charger.close({ force: true });
    }
  });
});
