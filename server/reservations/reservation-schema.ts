import { z } from "zod";
import { resourceId } from "../lib/int4";

/** The states a reservation goes through (README.md): the charger's answer words, lowercased. */
export const RESERVATION_STATUSES = [
  "requested",
  "accepted",
  "rejected",
  "faulted",
  "occupied",
  "unavailable",
  "used",
  "expired",
  "canceled",
] as const;
export type ReservationStatus = (typeof RESERVATION_STATUSES)[number];
/** A reservation the charger may still hold: the only ones that expire, are used or canceled. */
export const OPEN_RESERVATION_STATUSES: readonly ReservationStatus[] = ["requested", "accepted"];

/** OCPP 2.0.1 ConnectorEnumType, passed through on ReserveNow. */
export const CONNECTOR_TYPES = [
  "cCCS1",
  "cCCS2",
  "cG105",
  "cTesla",
  "cType1",
  "cType2",
  "s309-1P-16A",
  "s309-1P-32A",
  "s309-3P-16A",
  "s309-3P-32A",
  "sBS1361",
  "sCEE-7-7",
  "sType2",
  "sType3",
  "Other1PhMax16A",
  "Other1PhOver16A",
  "Other3Ph",
  "Pan",
  "wInductive",
  "wResonant",
  "Undetermined",
  "Unknown",
] as const;

export const createReservationBody = z.strictObject({
  connector_id: resourceId.describe("the connector to reserve (its EVSE for an OCPP 2.x station)"),
  token: z
    .string()
    .min(1)
    .max(20)
    .describe("the charging token the reservation is for (OCPP 1.6 idTag: at most 20 characters)"),
  expires_at: z.iso
    .datetime({ offset: true })
    .describe("when the reservation ends unless used; in the future, at most 7 days ahead"),
  connector_type: z
    .enum(CONNECTOR_TYPES)
    .optional()
    .describe("OCPP 2.x ReserveNow connectorType, passed through (422 for an OCPP 1.6 station)"),
});
export type CreateReservationInput = z.infer<typeof createReservationBody>;

export const reservationSchema = z.object({
  id: z.number().int().describe("also the OCPP reservationId the charger was given"),
  station_id: z.number().int(),
  connector_id: z.number().int(),
  evse_number: z.number().int(),
  connector_number: z.number().int(),
  token: z.string(),
  connector_type: z.string().nullable(),
  expires_at: z.string(),
  status: z.enum(RESERVATION_STATUSES),
  reserve_operation_id: z.string().nullable(),
  cancel_operation_id: z.string().nullable(),
  transaction_id: z.number().int().nullable().describe("the transaction that used it"),
  accepted_at: z.string().nullable(),
  ended_at: z.string().nullable().describe("when it was used, expired, canceled or refused"),
  created_at: z.string(),
});
export type ReservationResource = z.infer<typeof reservationSchema>;
