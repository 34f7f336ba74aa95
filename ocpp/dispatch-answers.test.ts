import { describe, expect, it } from "vitest";
import { call, idem } from "../testing/api";
import { aStationWithPassword, aTenantWithKey } from "../testing/builders";
import { aRawCharger, waitUntil } from "../testing/ocpp";
import { aLiveGateway } from "../testing/live-gateway";

const gw = aLiveGateway({ callTimeoutMs: 3000 });

const PASSWORD = "answers-by-hand-01";

/** A station whose charger answers the gateway's calls with frames written by hand. */
async function aHandWrittenCharger(protocol: "ocpp1.6" | "ocpp2.0.1") {
  const t = await aTenantWithKey();
  const station = await aStationWithPassword(t, PASSWORD);
  const charger = await aRawCharger({
    url: gw.url,
    identity: station.name,
    password: PASSWORD,
    protocol,
  });
  const read = async () =>
    (await call("GET", `/v1/tenants/${t.tenantId}/stations/${station.id}`, { key: t.key })).body;
  await waitUntil(async () => (await read()).online === true);
  /** Sends a reset; answers the gateway's call with `answer(messageId)`; returns the operation. */
  const reset = async (answer: (messageId: string) => unknown[]) => {
    const sent = call("POST", `/v1/tenants/${t.tenantId}/stations/${station.id}/commands`, {
      key: t.key,
      body: { action: "reset", mode: "soft" },
      idempotencyKey: idem(),
    });
    let received: unknown[] | undefined;
    await waitUntil(() => {
      received = charger.received.find((m) => m[0] === 2 && m[2] === "Reset");
      return received !== undefined;
    });
    charger.received.splice(charger.received.indexOf(received!), 1);
    charger.send(JSON.stringify(answer(received![1] as string)));
    const operation = (await sent).body as { id: string; status: string };
    await waitUntil(
      async () =>
        (await call("GET", `/v1/tenants/${t.tenantId}/operations/${operation.id}`, { key: t.key }))
          .body.status !== "dispatching",
    );
    const settled = await call("GET", `/v1/tenants/${t.tenantId}/operations/${operation.id}`, {
      key: t.key,
    });
    // the gateway sent it once, whatever the answer
    expect(charger.received.filter((m) => m[0] === 2 && m[2] === "Reset")).toEqual([]);
    return settled.body;
  };
  return { charger, reset };
}

describe.each(["ocpp1.6", "ocpp2.0.1"] as const)(
  "an %s charger's answer to a command",
  (protocol) => {
    it("that breaks the official schema is unknown (dispatch_unconfirmed): the charger may have acted", async () => {
      const c = await aHandWrittenCharger(protocol);
      try {
        const operation = await c.reset((id) => [3, id, { status: "Maybe" }]);
        expect(operation).toMatchObject({
          status: "unknown",
          result: { error: { code: "dispatch_unconfirmed" } },
        });
        expect(operation.result.error.details.reason).toMatch(/official schema/);
      } finally {
        c.charger.close();
      }
    });

    it("that is a CALLERROR is rejected (charger_error); a schema-valid answer is interpreted", async () => {
      const c = await aHandWrittenCharger(protocol);
      try {
        expect(
          await c.reset((id) => [4, id, "NotSupported", "Reset is not supported", {}]),
        ).toMatchObject({
          status: "rejected",
          result: { error: { code: "charger_error", details: { rpc_error_code: "NotSupported" } } },
        });
        expect(await c.reset((id) => [3, id, { status: "Accepted" }])).toMatchObject({
          status: "succeeded",
          result: { charger_status: "Accepted" },
        });
      } finally {
        c.charger.close();
      }
    });
  },
);
