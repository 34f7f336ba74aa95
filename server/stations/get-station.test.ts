import { describe, expect, it } from "vitest";
import { db } from "../db";
import { aStation, aTenantWithKey } from "../../testing/builders";
import { findStationRow } from "./get-station";
import { stationInclude } from "./present-station";

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
