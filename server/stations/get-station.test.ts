import { describe, expect, it } from "vitest";
import { db, dbPool } from "../db";
import { loadStationDisplays } from "../displays/present-display";
import { readyDomainBase } from "../ocpp-domains/ready-domain";
import { aStation, aTenantWithKey } from "../../testing/builders";
import { loadChargerUrls } from "./charger-urls";
import { findStationRow, getStation } from "./get-station";
import { presentStation, stationInclude } from "./present-station";

describe("findStationRow", () => {
  it("reads in one statement exactly what the station's include reads", async () => {
    const project = await aTenantWithKey();
    const station = await aStation(project.tenantId, project.key, { connector_count: 3 });
    const [first, second] = station.connectors;
    await db().connector.update({
      where: { id: second!.id },
      data: {
        status: "faulted",
        ocppStatus: "Faulted",
        errorCode: "GroundFailure",
        statusUpdatedAt: new Date("2026-11-23T10:00:00.123Z"),
      },
    });
    await db().station.update({
      where: { id: station.id },
      data: { bootVendor: "V", bootModel: "M", bootedAt: new Date("2026-11-23T09:00:00.5Z") },
    });
    const fault = (connectorId: number | null, clearedAt: Date | null, openedAt: string) =>
      db().fault.create({
        data: {
          tenantId: project.tenantId,
          stationId: station.id,
          connectorId,
          evseNumber: connectorId === null ? null : 1,
          errorCode: "GroundFailure",
          info: "café ✓",
          openedAt: new Date(openedAt),
          clearedAt,
        },
      });
    await fault(first!.id, null, "2026-11-23T08:00:00.001Z");
    await fault(null, null, "2026-11-23T08:30:00Z");
    await fault(second!.id, new Date(), "2026-11-23T07:00:00Z");

    const expected = await db().station.findFirstOrThrow({
      where: { id: station.id, tenantId: project.tenantId },
      include: stationInclude,
    });
    const row = await findStationRow({ tenantId: project.tenantId, stationId: station.id });
    expect(row).toEqual(expected);
    expect(row.connectors).toHaveLength(3);
    expect(row.faults).toHaveLength(2);
    expect(row.connectors[1]!.statusUpdatedAt).toBeInstanceOf(Date);
  });

  it("finds no station of another tenant", async () => {
    const project = await aTenantWithKey();
    const other = await aTenantWithKey();
    const station = await aStation(project.tenantId, project.key);
    await expect(
      findStationRow({ tenantId: other.tenantId, stationId: station.id }),
    ).rejects.toMatchObject({ code: "not_found" });
  });
});

describe("getStation", () => {
  it("reads a station with its displays and its tenant's ready domain in one statement, as the separate reads give", async () => {
    const project = await aTenantWithKey();
    const station = await aStation(project.tenantId, project.key, { connector_count: 2 });
    const evse = await db().evse.findFirstOrThrow({ where: { stationId: station.id } });
    await db().display.create({
      data: {
        id: `dsp_${station.id}`,
        tenantId: project.tenantId,
        stationId: station.id,
        evseId: evse.id,
        url: "https://pay.example.test/qr",
        imageSha256: "0".repeat(64),
        pushedBootAt: new Date("2026-11-26T10:00:00.250Z"),
        lastError: { code: "rejected", message: "no", details: {} },
      },
    });
    await db().ocppDomain.create({
      data: {
        id: `dom_${station.id}`,
        tenantId: project.tenantId,
        hostname: `ocpp-${station.id}.example.test`,
        verificationToken: "t",
        tlsReadyAt: new Date(),
        certificateNotAfter: new Date(Date.now() + 86_400_000),
      },
    });
    const row = await findStationRow({ tenantId: project.tenantId, stationId: station.id });
    const expected = presentStation(
      row,
      (await loadStationDisplays(db(), [station.id])).get(station.id),
      await loadChargerUrls(db(), project.tenantId),
      await readyDomainBase(db(), project.tenantId),
    );
    expect(expected.connection_url).toContain(`ocpp-${station.id}.example.test`);
    const pool = dbPool()!;
    const query = pool.query.bind(pool);
    let statements = 0;
    pool.query = ((...args: Parameters<typeof query>) => {
      statements++;
      return query(...args);
    }) as typeof pool.query;
    try {
      const read = await getStation({ tenantId: project.tenantId, stationId: station.id });
      expect(statements).toBe(1);
      expect(JSON.stringify(read)).toBe(JSON.stringify(expected));
    } finally {
      pool.query = query;
    }
  });
});
