import { describe, expect, it, vi } from "vitest";
import { db } from "../server/db";
import { log } from "../server/log";
import { aStationWithPassword, aTenantWithKey } from "../testing/builders";
import { aConnectedCharger } from "../testing/ocpp";
import { aLiveGateway } from "../testing/live-gateway";

const gw = aLiveGateway();

const PASSWORD = "station-batch-pass-1";
type Protocol = "ocpp1.6" | "ocpp2.0.1";

/** Chargers of one tenant, connected, half on 1.6 and half on 2.0.1. */
async function connectedChargers(count: number) {
  const t = await aTenantWithKey();
  const chargers = [];
  for (let i = 0; i < count; i++) {
    const protocol: Protocol = i % 2 ? "ocpp2.0.1" : "ocpp1.6";
    const station = await aStationWithPassword(t, PASSWORD);
    const charger = await aConnectedCharger(gw, station, PASSWORD, protocol);
    chargers.push({ station, charger, protocol, n: i });
  }
  return { tenantId: t.tenantId, chargers };
}

const boot = (protocol: Protocol, n: number) =>
  protocol === "ocpp1.6"
    ? { chargePointVendor: "Batch", chargePointModel: `M${n}`, chargePointSerialNumber: `S${n}` }
    : {
        reason: "PowerUp",
        chargingStation: { vendorName: "Batch", model: `M${n}`, serialNumber: `S${n}` },
      };

const status = (protocol: Protocol, ocppStatus: string, errorCode = "NoError") =>
  protocol === "ocpp1.6"
    ? { connectorId: 1, errorCode, status: ocppStatus, timestamp: new Date().toISOString() }
    : {
        evseId: 1,
        connectorId: 1,
        connectorStatus: ocppStatus,
        timestamp: new Date().toISOString(),
      };

/** The station's events from its connect on (storing its password logged some before), in order. */
async function sinceConnected(stationId: number) {
  const events = await db().event.findMany({ where: { stationId }, orderBy: { sequence: "asc" } });
  const own = events.slice(events.findIndex((e) => e.type === "station.connected"));
  // The station's own numbering runs on without a gap.
  const first = own[0]!.stationSequence!;
  expect(own.map((e) => e.stationSequence)).toEqual(own.map((_, i) => first + i));
  return own;
}

const failedBatches = (warn: { mock: { calls: unknown[][] } }) =>
  warn.mock.calls.filter(([m]) => String(m).includes("batch of charger calls"));

describe("BootNotification and StatusNotification in batches across stations", () => {
  it("many chargers booting at once share transactions and are recorded exactly as one alone", async () => {
    const warn = vi.spyOn(log, "warn");
    const { tenantId, chargers } = await connectedChargers(12);
    try {
      const answers = (await Promise.all(
        chargers.map(({ charger, protocol, n }) =>
          charger.call("BootNotification", boot(protocol, n)),
        ),
      )) as { status: string; currentTime: string; interval: number }[];
      await Promise.all(
        chargers.map(({ charger, protocol }) =>
          charger.call("StatusNotification", status(protocol, "Available")),
        ),
      );
      expect(failedBatches(warn)).toEqual([]);

      for (const [i, { station, n }] of chargers.entries()) {
        const answer = answers[i]!;
        expect(answer).toMatchObject({ status: "Accepted", interval: 300 });
        const row = await db().station.findUniqueOrThrow({ where: { id: station.id } });
        expect(row).toMatchObject({ bootVendor: "Batch", bootModel: `M${n}`, serial: `S${n}` });
        // The answer's clock is the recorded boot time.
        expect(row.bootedAt?.toISOString()).toBe(answer.currentTime);
        const connectors = await db().connector.findMany({ where: { stationId: station.id } });
        expect(connectors.map((c) => [c.status, c.ocppStatus])).toEqual([
          ["Available", "Available"],
        ]);
        const events = await sinceConnected(station.id);
        expect(events.map((e) => e.type)).toEqual([
          "station.connected",
          "station.booted",
          "connector.status_changed",
        ]);
        expect(events[1]!.data).toMatchObject({
          station_id: station.id,
          boot_status: "Accepted",
          booted_at: answer.currentTime,
          vendor: "Batch",
          model: `M${n}`,
          serial: `S${n}`,
        });
        expect(events[2]!.data).toMatchObject({
          connector_id: connectors[0]!.id,
          evse_number: 1,
          status: "Available",
          previous_status: null,
          ocpp_status: "Available",
        });
      }
      const all = await db().event.findMany({ where: { tenantId }, orderBy: { sequence: "asc" } });
      expect(all.map((e) => e.sequence)).toEqual(all.map((_, i) => i + 1));
      // Events of one transaction share its start time: some boots were written together.
      const booted = all.filter((e) => e.type === "station.booted");
      expect(new Set(booted.map((e) => e.createdAt.getTime())).size).toBeLessThan(booted.length);
    } finally {
      warn.mockRestore();
      await Promise.all(chargers.map(({ charger }) => charger.close({ force: true })));
    }
  });

  it("a retried BootNotification replays its first answer and records once", async () => {
    const { chargers } = await connectedChargers(3);
    const [first, ...others] = chargers;
    const answers: string[] = [];
    first!.charger.on(
      "message",
      ({ message, outbound }: { message: string; outbound: boolean }) => {
        if (!outbound) answers.push(String(message));
      },
    );
    try {
      const frame = JSON.stringify([2, "boot-retried", "BootNotification", boot("ocpp1.6", 0)]);
      const answered = async (count: number) => {
        for (let i = 0; i < 200 && answers.length < count; i++)
          await new Promise((r) => setTimeout(r, 25));
        expect(answers).toHaveLength(count);
      };
      // Others boot meanwhile, so the retries share batches with their messages.
      const busy = others.map(({ charger, protocol, n }) =>
        charger.call("BootNotification", boot(protocol, n)),
      );
      first!.charger.sendRaw(frame);
      await answered(1);
      await new Promise((r) => setTimeout(r, 20)); // a later clock, were it booted again
      first!.charger.sendRaw(frame);
      await answered(2);
      await Promise.all(busy);
      expect(JSON.parse(answers[1]!)).toEqual(JSON.parse(answers[0]!));
      const events = await db().event.findMany({
        where: { stationId: first!.station.id, type: "station.booted" },
      });
      expect(events).toHaveLength(1);
      const row = await db().station.findUniqueOrThrow({ where: { id: first!.station.id } });
      const answer = JSON.parse(answers[0]!) as [number, string, { currentTime: string }];
      expect(row.bootedAt?.toISOString()).toBe(answer[2].currentTime);
    } finally {
      await Promise.all(chargers.map(({ charger }) => charger.close({ force: true })));
    }
  });

  it("status reports that open or clear a fault, sent at once, are each recorded alone, in order", async () => {
    const warn = vi.spyOn(log, "warn");
    const { chargers } = await connectedChargers(8);
    try {
      const all = (ocppStatus: string, errorCode?: string) =>
        Promise.all(
          chargers.map(({ charger, protocol }) =>
            charger.call("StatusNotification", status(protocol, ocppStatus, errorCode)),
          ),
        );
      await all("Available");
      await all("Faulted", "GroundFailure");
      await all("Faulted", "GroundFailure"); // the same fault again: nothing moves
      await all("Available");
      expect(failedBatches(warn)).toEqual([]);
      for (const { station, protocol } of chargers) {
        const faults = await db().fault.findMany({ where: { stationId: station.id } });
        expect(faults).toHaveLength(1);
        expect(faults[0]).toMatchObject({
          errorCode: protocol === "ocpp1.6" ? "GroundFailure" : null,
          clearedAt: expect.any(Date),
        });
        const events = await sinceConnected(station.id);
        expect(events.map((e) => e.type)).toEqual([
          "station.connected",
          "connector.status_changed",
          "connector.status_changed",
          "station.fault_opened",
          "connector.status_changed",
          "station.fault_cleared",
        ]);
        const connector = await db().connector.findFirstOrThrow({
          where: { stationId: station.id },
        });
        expect(connector.status).toBe("Available");
      }
    } finally {
      warn.mockRestore();
      await Promise.all(chargers.map(({ charger }) => charger.close({ force: true })));
    }
  });
});
