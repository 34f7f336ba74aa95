import { describe, expect, it } from "vitest";
import { registerGateway } from "../charging/gateways";
import { db } from "../db";
import { newId } from "../lib/ids";
import { aStation, aTenantWithKey } from "../../testing/builders";
import { createCommand } from "./create-command";
import { dispatchOperation, type ChargerLink, type SendResult } from "./dispatch-operation";
import type { OcppCall } from "./kinds/kind";

/**
 * The gateway's side of a socket stands in here as a link that records what it is asked to send
 * and answers as told; the real sockets are exercised in ocpp/*.test.ts.
 */
function aLink(protocol: string, answer: (call: OcppCall) => SendResult | Promise<SendResult>) {
  const sent: OcppCall[] = [];
  const link: ChargerLink = {
    protocol,
    send: async (call) => {
      sent.push(call);
      await new Promise((r) => setTimeout(r, 20)); // a round trip, so dispatches overlap
      return answer(call);
    },
  };
  return { sent, link };
}

async function aCommandOnAHeldStation(command: Parameters<typeof createCommand>[0]["command"]) {
  const t = await aTenantWithKey();
  const station = await aStation(t.tenantId, t.key, { connector_count: 1 });
  const gateways = [newId("gw"), newId("gw")];
  for (const id of gateways) await registerGateway(db(), id);
  await db().station.update({
    where: { id: station.id },
    data: { gatewayId: gateways[0], protocol: "ocpp1.6", connectedAt: new Date() },
  });
  const operation = await createCommand({
    tenantId: t.tenantId,
    stationId: station.id,
    apiKeyId: null,
    command,
  });
  expect(operation.status).toBe("dispatching");
  return { station, gateways, operationId: operation.id };
}

describe("dispatchOperation", () => {
  it("claims before it sends: concurrent dispatches of one operation send it once", async () => {
    const s = await aCommandOnAHeldStation({ action: "reset", mode: "soft" });
    const { sent, link } = aLink("ocpp1.6", () => ({
      kind: "answered",
      answer: { status: "Accepted" },
    }));
    const results = await Promise.all(
      [0, 1, 0, 1].map((i) =>
        dispatchOperation({
          db: db(),
          operationId: s.operationId,
          gatewayId: s.gateways[i]!,
          link: () => link,
        }),
      ),
    );
    expect(sent).toEqual([{ action: "Reset", payload: { type: "Soft" } }]);
    expect(results.filter((r) => r !== null)).toEqual([
      expect.objectContaining({ status: "succeeded" }),
    ]);
    const row = await db().operation.findUniqueOrThrow({ where: { id: s.operationId } });
    expect(s.gateways).toContain(row.claimedBy);
  });

  it("leaves an operation whose station this gateway does not hold unclaimed", async () => {
    const s = await aCommandOnAHeldStation({ action: "reset", mode: "soft" });
    const done = await dispatchOperation({
      db: db(),
      operationId: s.operationId,
      gatewayId: s.gateways[1]!,
      link: () => undefined,
    });
    expect(done).toBeNull();
    const row = await db().operation.findUniqueOrThrow({ where: { id: s.operationId } });
    expect(row).toMatchObject({ status: "dispatching", claimedBy: null });
  });

  it("turns each kind of send result into its outcome; a refused build sends nothing", async () => {
    const cases: [SendResult, object][] = [
      [
        { kind: "call_error", code: "NotSupported" },
        { status: "rejected", code: "charger_error" },
      ],
      [
        { kind: "not_sent", reason: "schema" },
        { status: "rejected", code: "internal_error" },
      ],
      [
        { kind: "unconfirmed", reason: "timeout" },
        { status: "unknown", code: "dispatch_unconfirmed" },
      ],
    ];
    for (const [result, expected] of cases) {
      const s = await aCommandOnAHeldStation({ action: "reset", mode: "soft" });
      const { sent, link } = aLink("ocpp1.6", () => result);
      const done = await dispatchOperation({
        db: db(),
        operationId: s.operationId,
        gatewayId: s.gateways[0]!,
        link: () => link,
      });
      expect(sent).toHaveLength(1);
      const error = (done?.result as { error?: { code: string } } | null)?.error;
      expect({ status: done?.status, code: error?.code }).toEqual(expected);
    }

    const s = await aCommandOnAHeldStation({ action: "reset", mode: "soft" });
    // The connector was the station's when the command was written and is gone when it is sent.
    await db().operation.update({
      where: { id: s.operationId },
      data: { request: { action: "unlock", connector_id: 2_000_000_000 } },
    });
    const { sent, link } = aLink("ocpp1.6", () => ({ kind: "answered", answer: {} }));
    const done = await dispatchOperation({
      db: db(),
      operationId: s.operationId,
      gatewayId: s.gateways[0]!,
      link: () => link,
    });
    expect(sent).toEqual([]);
    expect(done).toMatchObject({
      status: "rejected",
      result: { error: { code: "connector_not_found" } },
    });
  });
});
