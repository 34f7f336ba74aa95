import { z } from "zod";
import type { Transaction } from "../generated/prisma/client";
import { kwhFromWh } from "./kwh-from-wh";

export const transactionSchema = z.object({
  id: z.number().int(),
  tenant_id: z.number().int(),
  station_id: z.number().int(),
  connector_id: z.number().int().nullable(),
  reference: z.string().describe("the charger's own transaction identifier"),
  status: z.enum(["active", "ended"]),
  started_at: z.string().nullable(),
  ended_at: z.string().nullable(),
  meter_start_wh: z.number().int().nullable(),
  meter_stop_wh: z.number().int().nullable(),
  energy_wh: z.number().int(),
  energy_kwh: z.string(),
  stop_reason: z.string().nullable(),
});

export function presentTransaction(t: Transaction): z.infer<typeof transactionSchema> {
  return {
    id: t.id,
    tenant_id: t.tenantId,
    station_id: t.stationId,
    connector_id: t.connectorId,
    reference: t.reference,
    status: t.endedAt ? "ended" : "active",
    started_at: t.startedAt?.toISOString() ?? null,
    ended_at: t.endedAt?.toISOString() ?? null,
    meter_start_wh: t.meterStartWh === null ? null : Number(t.meterStartWh),
    meter_stop_wh: t.meterStopWh === null ? null : Number(t.meterStopWh),
    energy_wh: t.energyWh,
    energy_kwh: kwhFromWh(t.energyWh),
    stop_reason: t.stopReason,
  };
}
