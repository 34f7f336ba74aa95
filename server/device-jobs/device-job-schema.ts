import { z } from "zod";
import type { DeviceJob } from "../generated/prisma/client";
import { resourceId } from "../lib/int4";

/** Largest diagnostics/log file the upload endpoint keeps (bytes); a larger one is refused (413). */
export const MAX_UPLOAD_BYTES = 20 * 1024 * 1024;
/**
 * A job still `scheduled` or `in_progress` with no status from the charger for this long (after
 * its retrieve time, for firmware) reads as `unknown`.
 */
export const SILENCE_MS = 24 * 60 * 60 * 1000;
/** Most stations one batch may address. */
export const MAX_BATCH_STATIONS = 500;

const retries = {
  retries: z
    .number()
    .int()
    .min(0)
    .max(100)
    .optional()
    .describe("how many times the charger retries"),
  retry_interval_seconds: z
    .number()
    .int()
    .min(0)
    .max(86_400)
    .optional()
    .describe("seconds between the charger's retries"),
};

const httpsUrl = z
  .string()
  .max(512)
  .url()
  .refine((u) => u.startsWith("https://"), "must be an https URL");

export const firmwareUpdateBody = z.strictObject({
  location: httpsUrl.describe("where the charger downloads the firmware (https)"),
  retrieve_at: z.iso
    .datetime({ offset: true })
    .optional()
    .describe("when the charger downloads it; absent: now"),
  install_at: z.iso
    .datetime({ offset: true })
    .optional()
    .describe("OCPP 2.x installDateTime; not sent to OCPP 1.6 chargers"),
  ...retries,
  signing_certificate: z
    .string()
    .max(5500)
    .optional()
    .describe("OCPP 2.x signed firmware: the PEM certificate, passed through (not for OCPP 1.6)"),
  signature: z
    .string()
    .max(800)
    .optional()
    .describe("OCPP 2.x signed firmware: base64 signature, passed through (not for OCPP 1.6)"),
});
export type FirmwareUpdateInput = z.infer<typeof firmwareUpdateBody>;

export const diagnosticsBody = z.strictObject({
  log_type: z
    .enum(["DiagnosticsLog", "SecurityLog"])
    .optional()
    .describe("OCPP 2.x GetLog's logType (default DiagnosticsLog); OCPP 1.6 has diagnostics only"),
  oldest_at: z.iso
    .datetime({ offset: true })
    .optional()
    .describe("1.6 startTime, 2.x oldestTimestamp"),
  latest_at: z.iso
    .datetime({ offset: true })
    .optional()
    .describe("1.6 stopTime, 2.x latestTimestamp"),
  ...retries,
});
export type DiagnosticsInput = z.infer<typeof diagnosticsBody>;

/** Which stations a batch addresses: ids, or every station of a location (or of the tenant). */
export const stationSelection = z
  .strictObject({
    station_ids: z.array(resourceId).min(1).max(MAX_BATCH_STATIONS).optional(),
    location_id: resourceId.optional(),
    protocol: z.enum(["ocpp1.6", "ocpp2.0.1", "ocpp2.1"]).optional(),
  })
  .describe("station_ids, or a filter (location_id, protocol); at least one field");

export const deviceBatchBody = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("firmware"),
    stations: stationSelection,
    firmware: firmwareUpdateBody,
  }),
  z.strictObject({
    kind: z.literal("diagnostics"),
    stations: stationSelection,
    diagnostics: diagnosticsBody,
  }),
]);
export type DeviceBatchInput = z.infer<typeof deviceBatchBody>;

export const deviceJobStates = [
  "scheduled",
  "in_progress",
  "installed",
  "uploaded",
  "failed",
  "rejected",
  "unknown",
] as const;

const historyEntry = z.object({
  status: z.string().describe("the charger's status word (or `Requested`, `Sent`, `FileReceived`)"),
  at: z.string().describe("the charger's timestamp, or the receipt time"),
  received_at: z.string(),
});

export const deviceJobSchema = z.object({
  id: z.string(),
  kind: z.enum(["firmware", "diagnostics"]),
  station_id: z.number().int(),
  batch_id: z.string().nullable(),
  operation_id: z.string(),
  request_id: z.number().int(),
  request: z.record(z.string(), z.unknown()),
  state: z
    .enum(deviceJobStates)
    .describe(
      "scheduled (sent or being sent), in_progress (the charger reports work), installed/uploaded (done), failed, rejected (the charger refused), unknown (no status for a long time)",
    ),
  last_status: z.string().nullable(),
  last_status_at: z.string().nullable(),
  history: z.array(historyEntry),
  file: z
    .object({
      name: z.string().nullable(),
      size: z.number().int(),
      sha256: z.string(),
      uploaded_at: z.string(),
    })
    .nullable()
    .describe("diagnostics: the uploaded file (GET …/diagnostics/{job_id}/file); null before"),
  created_at: z.string(),
});
export type DeviceJobResource = z.infer<typeof deviceJobSchema>;

export const deviceBatchSchema = z.object({
  id: z.string(),
  kind: z.enum(["firmware", "diagnostics"]),
  total: z.number().int(),
  by_state: z.record(z.string(), z.number().int()).describe("how many jobs are in each state"),
  done: z.number().int().describe("jobs in a final state (installed, uploaded, failed, rejected)"),
  jobs: z.array(
    deviceJobSchema.extend({ station_name: z.string().describe("the station's name") }),
  ),
});

/** A batch in the list of batches: its progress, without its jobs. */
export const deviceBatchSummarySchema = deviceBatchSchema.omit({ jobs: true }).extend({
  created_at: z.string().describe("when the batch was created"),
});

type HistoryEntry = z.infer<typeof historyEntry>;

/** The job's state as read now: an open job the charger has been silent about is `unknown`. */
export function readState(
  job: Pick<DeviceJob, "state" | "request" | "lastStatusAt" | "createdAt">,
  now = new Date(),
): DeviceJobResource["state"] {
  if (job.state !== "scheduled" && job.state !== "in_progress")
    return job.state as DeviceJobResource["state"];
  const request = job.request as { retrieve_at?: string };
  const since = Math.max(
    (job.lastStatusAt ?? job.createdAt).getTime(),
    request.retrieve_at ? new Date(request.retrieve_at).getTime() : 0,
  );
  return now.getTime() - since > SILENCE_MS ? "unknown" : job.state;
}

export function presentDeviceJob(
  job: Omit<DeviceJob, "file">,
  now = new Date(),
): DeviceJobResource {
  return {
    id: job.id,
    kind: job.kind as "firmware" | "diagnostics",
    station_id: job.stationId,
    batch_id: job.batchId,
    operation_id: job.operationId,
    request_id: job.requestId,
    request: job.request as Record<string, unknown>,
    state: readState(job, now),
    last_status: job.lastStatus,
    last_status_at: job.lastStatusAt?.toISOString() ?? null,
    history: job.history as HistoryEntry[],
    file:
      job.fileSize !== null && job.fileSha256 && job.uploadedAt
        ? {
            name: job.fileName,
            size: job.fileSize,
            sha256: job.fileSha256,
            uploaded_at: job.uploadedAt.toISOString(),
          }
        : null,
    created_at: job.createdAt.toISOString(),
  };
}
