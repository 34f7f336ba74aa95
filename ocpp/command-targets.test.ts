import { describe, expect, it } from "vitest";
import type { RPCClient } from "ocpp-rpc";
import { call, idem } from "../testing/api";
import { aStationWithPassword, aTenantWithKey } from "../testing/builders";
import { aConnectedCharger, waitUntil } from "../testing/ocpp";
import { aLiveGateway } from "../testing/live-gateway";

const gw = aLiveGateway();

/** A connected charger of a two-EVSE station that answers every command Accepted and records it. */
async function setup(protocol: "ocpp1.6" | "ocpp2.0.1") {
  const t = await aTenantWithKey();
  const station = await aStationWithPassword(t, "command-targets-pass", { connector_count: 2 });
  const received: [string, unknown][] = [];
  const charger: RPCClient = await aConnectedCharger(
    gw,
    station,
    "command-targets-pass",
    protocol,
    (c) => {
      for (const action of ["Reset", "ChangeAvailability", "TriggerMessage"])
        c.handle(action, ({ params }: { params?: unknown }) => {
          received.push([action, params]);
          return Promise.resolve({ status: "Accepted" });
        });
    },
  );
  const base = `/v1/tenants/${t.tenantId}/stations/${station.id}`;
  await waitUntil(async () => (await call("GET", base, { key: t.key })).body.online);
  const command = (body: Record<string, unknown>) =>
    call("POST", `${base}/commands`, { key: t.key, body, idempotencyKey: idem() });
  /** sends the command and gives the one frame the charger received for it */
  const frameOf = async (body: Record<string, unknown>) => {
    received.length = 0;
    const res = await command(body);
    expect(res.status).toBe(202);
    expect(res.body.status).toBe("succeeded");
    expect(received).toHaveLength(1);
    return received[0];
  };
  const [first, second] = station.connectors as { id: number; evse_number: number }[];
  return { t, station, charger, command, frameOf, first: first!, second: second! };
}

describe("reset, availability and trigger of a connector, an EVSE or the whole station", () => {
  it("OCPP 2.0.1: EVSE frames have no connectorId, station frames no evse", async () => {
    const s = await setup("ocpp2.0.1");
    try {
      expect(s.second.evse_number).toBe(2);
      expect(await s.frameOf({ action: "reset", mode: "hard", evse_number: 2 })).toEqual([
        "Reset",
        { type: "Immediate", evseId: 2 },
      ]);
      expect(await s.frameOf({ action: "reset", mode: "soft" })).toEqual([
        "Reset",
        { type: "OnIdle" },
      ]);
      expect(
        await s.frameOf({ action: "availability", mode: "inoperative", evse_number: 2 }),
      ).toEqual(["ChangeAvailability", { operationalStatus: "Inoperative", evse: { id: 2 } }]);
      expect(
        await s.frameOf({ action: "availability", mode: "operative", connector_id: s.second.id }),
      ).toEqual([
        "ChangeAvailability",
        { operationalStatus: "Operative", evse: { id: 2, connectorId: 1 } },
      ]);
      expect(await s.frameOf({ action: "availability", mode: "inoperative" })).toEqual([
        "ChangeAvailability",
        { operationalStatus: "Inoperative" },
      ]);
      expect(
        await s.frameOf({
          action: "trigger",
          message: "StatusNotification",
          connector_id: s.first.id,
        }),
      ).toEqual([
        "TriggerMessage",
        { requestedMessage: "StatusNotification", evse: { id: 1, connectorId: 1 } },
      ]);
      expect(
        await s.frameOf({ action: "trigger", message: "MeterValues", evse_number: 2 }),
      ).toEqual(["TriggerMessage", { requestedMessage: "MeterValues", evse: { id: 2 } }]);
      for (const message of [
        "BootNotification",
        "Heartbeat",
        "FirmwareStatusNotification",
        "LogStatusNotification",
      ])
        expect(await s.frameOf({ action: "trigger", message })).toEqual([
          "TriggerMessage",
          { requestedMessage: message },
        ]);

      // refused before anything is sent, in the error shape
      const unknownEvse = await s.command({ action: "reset", mode: "soft", evse_number: 9 });
      expect(unknownEvse.status).toBe(422);
      expect(unknownEvse.body.error.code).toBe("evse_not_found");
      const both = await s.command({
        action: "availability",
        mode: "operative",
        evse_number: 1,
        connector_id: s.first.id,
      });
      expect(both.status).toBe(422);
      expect(both.body.error.code).toBe("validation_failed");
      const badMessage = await s.command({ action: "trigger", message: "TransactionEvent" });
      expect(badMessage.status).toBe(422);
    } finally {
      await s.charger.close({ force: true });
    }
  });

  it("OCPP 1.6: the station is connector 0, an EVSE its one connector; no EVSE reset", async () => {
    const s = await setup("ocpp1.6");
    try {
      expect(await s.frameOf({ action: "reset", mode: "hard" })).toEqual([
        "Reset",
        { type: "Hard" },
      ]);
      expect(await s.frameOf({ action: "availability", mode: "inoperative" })).toEqual([
        "ChangeAvailability",
        { connectorId: 0, type: "Inoperative" },
      ]);
      expect(
        await s.frameOf({ action: "availability", mode: "operative", evse_number: 2 }),
      ).toEqual(["ChangeAvailability", { connectorId: 2, type: "Operative" }]);
      expect(
        await s.frameOf({ action: "trigger", message: "MeterValues", connector_id: s.first.id }),
      ).toEqual(["TriggerMessage", { requestedMessage: "MeterValues", connectorId: 1 }]);
      expect(await s.frameOf({ action: "trigger", message: "LogStatusNotification" })).toEqual([
        "TriggerMessage",
        { requestedMessage: "DiagnosticsStatusNotification" },
      ]);
      const evseReset = await s.command({ action: "reset", mode: "soft", evse_number: 1 });
      expect(evseReset.status).toBe(202);
      expect(evseReset.body).toMatchObject({
        status: "rejected",
        result: { error: { code: "protocol_unsupported" } },
      });
    } finally {
      await s.charger.close({ force: true });
    }
  });
});
