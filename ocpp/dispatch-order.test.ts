import { describe, expect, it } from "vitest";
import { db, type DbTx } from "../server/db";
import { inTransaction } from "../server/db/retry";
import { createOperation } from "../server/operations/create-operation";
import { aStationWithPassword, aTenantWithKey } from "../testing/builders";
import { aConnectedCharger, waitUntil } from "../testing/ocpp";
import { aLiveGateway } from "../testing/live-gateway";

const gw = aLiveGateway();

/** Four commands in turn, each seen differently by the charger. */
const COMMANDS = [
  { action: "reset", mode: "soft" },
  { action: "availability", mode: "inoperative" },
  { action: "reset", mode: "hard" },
  { action: "availability", mode: "operative" },
] as const;
const asCharger = (command: (typeof COMMANDS)[number]) =>
  command.action === "reset"
    ? { method: "Reset", params: { type: command.mode === "soft" ? "Soft" : "Hard" } }
    : {
        method: "ChangeAvailability",
        params: {
          connectorId: 0,
          type: command.mode === "inoperative" ? "Inoperative" : "Operative",
        },
      };

/** A connected 1.6 charger that records every call, answering each after `answerMs`. */
async function aRecordingCharger(password: string, answerMs: number) {
  const t = await aTenantWithKey();
  const station = await aStationWithPassword(t, password);
  const calls: { method: string; params: unknown }[] = [];
  const charger = await aConnectedCharger(gw, station, password, "ocpp1.6", (charger) => {
    for (const method of ["Reset", "ChangeAvailability"])
      charger.handle(method, async ({ params }) => {
        calls.push({ method, params });
        await new Promise((resolve) => setTimeout(resolve, answerMs));
        return { status: "Accepted" };
      });
  });
  await waitUntil(
    async () =>
      (await db().station.findUniqueOrThrow({ where: { id: station.id } })).gatewayId ===
      gw.gateway.id,
  );
  const create = (command: (typeof COMMANDS)[number], tx: DbTx = db()) =>
    createOperation({
      db: tx,
      tenantId: t.tenantId,
      stationId: station.id,
      apiKeyId: null,
      scope: "station.command",
      action: command.action,
      request: { ...command },
    });
  return { station, calls, charger, create };
}

const settled = (ids: string[]) =>
  waitUntil(
    async () =>
      (await db().operation.count({ where: { id: { in: ids }, status: "dispatching" } })) === 0,
    20_000,
  );

describe("a station's operations reach its charger in the order they were written", () => {
  it("twelve written in one transaction: sent one after another in that order, each answered", async () => {
    const { calls, charger, create } = await aRecordingCharger("order-password-1", 0);
    const written = Array.from({ length: 12 }, (_, i) => COMMANDS[i % COMMANDS.length]!);
    const ops = await inTransaction(db(), async (tx) => {
      const made = [];
      for (const command of written) made.push(await create(command, tx));
      return made;
    });
    const ids = ops.map((op) => op.id);
    await settled(ids);
    expect(calls).toEqual(written.map(asCharger));
    const rows = await db().operation.findMany({ where: { id: { in: ids } } });
    expect(rows.map((r) => r.status)).toEqual(ids.map(() => "succeeded"));
    await charger.close({ force: true });
  });

  it("ones written at once while the charger answers the first follow it, in the order written", async () => {
    const { calls, charger, create } = await aRecordingCharger("order-password-2", 150);
    const first = await create(COMMANDS[1]);
    await waitUntil(() => calls.length === 1);
    // seven requests at once, each its own transaction, while the first waits for its answer
    const rest = await Promise.all(
      Array.from({ length: 7 }, (_, i) => create(COMMANDS[(i + 2) % COMMANDS.length]!)),
    );
    const ids = [first.id, ...rest.map((op) => op.id)];
    await settled(ids);
    // the order the database wrote them in
    const inOrder = await db().$queryRaw<{ request: (typeof COMMANDS)[number] }[]>`
      SELECT request FROM operations WHERE id = ANY(${ids}) ORDER BY seq`;
    expect(calls).toEqual(inOrder.map((row) => asCharger(row.request)));
    await charger.close({ force: true });
  });
});
