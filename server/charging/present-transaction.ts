import { z } from "zod";
import type { Bill, Connector, Payment, Station, Transaction } from "../generated/prisma/client";
import { kwhFromWh } from "./kwh-from-wh";

export const transactionSchema = z.object({
  id: z.number().int(),
  tenant_id: z.number().int(),
  station_id: z.number().int(),
  station_name: z.string(),
  connector_id: z.number().int().nullable(),
  connector_number: z
    .number()
    .int()
    .nullable()
    .describe("the connector's OCPP 1.6 connectorId on its station"),
  reference: z.string().describe("the charger's own transaction identifier"),
  id_token: z
    .string()
    .nullable()
    .describe(
      "the token the charger reported; null when a bill started it (a bill's charging token is never shown)",
    ),
  status: z.enum(["active", "ended"]),
  started_at: z.string().nullable(),
  ended_at: z.string().nullable(),
  duration_seconds: z.number().int().nullable().describe("ended transactions: end minus start"),
  meter_start_wh: z.number().int().nullable(),
  meter_stop_wh: z.number().int().nullable(),
  energy_wh: z.number().int(),
  energy_kwh: z.string(),
  stop_reason: z.string().nullable(),
  bill: z
    .object({
      id: z.string(),
      status: z.string(),
      settlement_owner: z.string(),
      session_id: z.string().nullable(),
      payment_id: z.string().nullable(),
      cost_minor: z
        .number()
        .int()
        .nullable()
        .describe("the final total, or the running cost while the bill is open"),
      final: z.boolean(),
      currency: z.string(),
    })
    .nullable()
    .describe("the bill this transaction is charged on"),
});

/** What `presentTransaction` reads: the row with its station, connector and bill. */
export const transactionInclude = {
  station: { select: { name: true } },
  connector: { select: { connectorNumber: true } },
  bill: { include: { payment: { select: { id: true } } } },
} as const;

export type TransactionRow = Transaction & {
  station: Pick<Station, "name">;
  connector: Pick<Connector, "connectorNumber"> | null;
  bill: (Bill & { payment: Pick<Payment, "id"> | null }) | null;
};

export function presentTransaction(t: TransactionRow): z.infer<typeof transactionSchema> {
  return {
    id: t.id,
    tenant_id: t.tenantId,
    station_id: t.stationId,
    station_name: t.station.name,
    connector_id: t.connectorId,
    connector_number: t.connector?.connectorNumber ?? null,
    reference: t.reference,
    id_token: t.bill ? null : t.idToken,
    status: t.endedAt ? "ended" : "active",
    started_at: t.startedAt?.toISOString() ?? null,
    ended_at: t.endedAt?.toISOString() ?? null,
    duration_seconds:
      t.startedAt && t.endedAt
        ? Math.max(0, Math.round((t.endedAt.getTime() - t.startedAt.getTime()) / 1000))
        : null,
    meter_start_wh: t.meterStartWh === null ? null : Number(t.meterStartWh),
    meter_stop_wh: t.meterStopWh === null ? null : Number(t.meterStopWh),
    energy_wh: t.energyWh,
    energy_kwh: kwhFromWh(t.energyWh),
    stop_reason: t.stopReason,
    bill: t.bill
      ? {
          id: t.bill.id,
          status: t.bill.status,
          settlement_owner: t.bill.settlementOwner,
          session_id: t.bill.sessionId,
          payment_id: t.bill.payment?.id ?? null,
          cost_minor: t.bill.totalMinor ?? t.bill.runningCostMinor,
          final: t.bill.status === "final",
          currency: t.bill.currency,
        }
      : null,
  };
}

export const meterSampleSchema = z.object({
  sampled_at: z.string(),
  energy_wh: z.number().int().nullable().describe("the register less the transaction's start"),
  energy_kwh: z.string().nullable(),
  power_kw: z.string().nullable(),
  current_a: z.string().nullable(),
  voltage_v: z.string().nullable(),
  soc_percent: z.string().nullable(),
  context: z.string().nullable(),
});
