import { z } from "zod";

export const OPERATION_STATUSES = ["dispatching", "succeeded", "rejected", "unknown"] as const;
export type OperationStatus = (typeof OPERATION_STATUSES)[number];

export const operationSchema = z.object({
  id: z.string(),
  tenant_id: z.number().int(),
  station_id: z.number().int().nullable(),
  scope: z
    .string()
    .describe("what kind of write, e.g. station.command, station.update, station.credentials"),
  action: z.string(),
  status: z.enum(OPERATION_STATUSES),
  request: z.record(z.string(), z.unknown()),
  result: z
    .record(z.string(), z.unknown())
    .nullable()
    .describe("on rejection, result.error has the standard error shape"),
  created_at: z.string(),
  completed_at: z.string().nullable(),
});
export type OperationResource = z.infer<typeof operationSchema>;
