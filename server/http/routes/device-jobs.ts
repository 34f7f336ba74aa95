import { z } from "zod";
import { DomainError } from "../../errors";
import { operationSchema } from "../../operations/operation-schema";
import {
  deviceBatchBody,
  deviceBatchSchema,
  deviceBatchSummarySchema,
  deviceJobSchema,
  diagnosticsBody,
  firmwareUpdateBody,
  MAX_UPLOAD_BYTES,
} from "../../device-jobs/device-job-schema";
import {
  createDeviceBatch,
  listDeviceBatches,
  listDeviceJobs,
  readDeviceBatch,
  readDiagnosticsFile,
  requestDiagnostics,
  scheduleFirmwareUpdate,
} from "../../device-jobs/manage-device-jobs";
import { paginationQuery } from "../../lib/pagination";
import { stationParams, tenantParams } from "../params";
import { defineRoute } from "../route";
import { COMMAND_WAIT_MS, awaitOutcome } from "./operations";

const tag = "Firmware and diagnostics";
const wait = `The answer waits up to ${COMMAND_WAIT_MS} ms for the charger; otherwise read the operation or watch \`operation.completed\`. A station with no live connection is \`rejected\` with \`station_offline\` at once (its job is then \`rejected\`).`;
const jobId = z.string().regex(/^dj_[A-Za-z0-9]{1,60}$/, "must be a device job ID");
const batchId = z.string().regex(/^djb_[A-Za-z0-9]{1,60}$/, "must be a batch ID");
const listSchema = z.object({ data: z.array(deviceJobSchema) });

export const deviceJobRoutes = [
  defineRoute({
    method: "POST",
    path: "/v1/tenants/{tenant_id}/stations/{station_id}/firmware-updates",
    operationId: "scheduleFirmwareUpdate",
    summary: "Schedule a firmware update",
    description: `Answers 202 with the operation (\`station.firmware_update\`; \`request.device_job_id\` names the firmware job): OCPP 1.6 UpdateFirmware (location, retrieveDate, retries, retryInterval), OCPP 2.x UpdateFirmware (requestId, firmware.location/retrieveDateTime/installDateTime, and \`signing_certificate\`/\`signature\` passed through; not for 1.6: 422). The job then follows FirmwareStatusNotification (GET …/firmware-updates; \`station.firmware_status_changed\`). ${wait}`,
    tag,
    auth: "tenant",
    scopes: ["stations:admin"],
    params: stationParams,
    body: firmwareUpdateBody,
    idempotency: "required",
    status: 202,
    response: operationSchema,
    handler: async ({ params, body, db, principal }) => ({
      body: await scheduleFirmwareUpdate({
        db,
        tenantId: params.tenant_id,
        stationId: params.station_id,
        input: body,
        principal,
      }),
    }),
    afterCommit: awaitOutcome,
  }),
  defineRoute({
    method: "GET",
    path: "/v1/tenants/{tenant_id}/stations/{station_id}/firmware-updates",
    operationId: "listFirmwareUpdates",
    summary: "A station's firmware updates, with their status history",
    description:
      "Newest first, at most 50. `state`: scheduled, in_progress, installed, failed, rejected, or unknown (no status from the charger for 24 h after the retrieve time).",
    tag,
    auth: "tenant",
    scopes: ["stations:read"],
    params: stationParams,
    status: 200,
    response: listSchema,
    handler: async ({ params, db }) => ({
      body: await listDeviceJobs(db, params.tenant_id, params.station_id, "firmware"),
    }),
  }),
  defineRoute({
    method: "POST",
    path: "/v1/tenants/{tenant_id}/stations/{station_id}/diagnostics",
    operationId: "requestDiagnostics",
    summary: "Ask a charger to upload its diagnostics or logs",
    description: `Answers 202 with the operation (\`station.diagnostics\`; \`request.device_job_id\` names the diagnostics job). The service hands the charger an upload URL of its own (the gateway's \`/uploads/<token>\`, a fresh unguessable token per request, never shown): OCPP 1.6 GetDiagnostics (\`location\`), OCPP 2.x GetLog (\`log.remoteLocation\`, \`logType\`, \`requestId\`). The charger uploads by HTTP(S) PUT or POST (raw or multipart), at most ${MAX_UPLOAD_BYTES} bytes; the file is then GET …/diagnostics/{job_id}/file. Statuses (DiagnosticsStatusNotification, LogStatusNotification) are kept as the job's history (\`station.diagnostics_status_changed\`, \`station.diagnostics_uploaded\`). ${wait}`,
    tag,
    auth: "tenant",
    scopes: ["stations:control"],
    params: stationParams,
    body: diagnosticsBody,
    idempotency: "required",
    status: 202,
    response: operationSchema,
    handler: async ({ params, body, db, principal }) => ({
      body: await requestDiagnostics({
        db,
        tenantId: params.tenant_id,
        stationId: params.station_id,
        input: body,
        principal,
      }),
    }),
    afterCommit: awaitOutcome,
  }),
  defineRoute({
    method: "GET",
    path: "/v1/tenants/{tenant_id}/stations/{station_id}/diagnostics",
    operationId: "listDiagnostics",
    summary: "A station's diagnostics requests, with their status history and files",
    description:
      "Newest first, at most 50. `state`: scheduled, in_progress, uploaded, failed, rejected, or unknown (no status for 24 h). `file` is set once the charger uploaded.",
    tag,
    auth: "tenant",
    scopes: ["stations:read"],
    params: stationParams,
    status: 200,
    response: listSchema,
    handler: async ({ params, db }) => ({
      body: await listDeviceJobs(db, params.tenant_id, params.station_id, "diagnostics"),
    }),
  }),
  defineRoute({
    method: "POST",
    path: "/v1/tenants/{tenant_id}/device-batches",
    operationId: "createDeviceBatch",
    summary: "Firmware or diagnostics for many stations at once",
    description:
      "One job and one operation per selected station (`stations.station_ids`, or a filter: `location_id`, `protocol`; at most 500), under one batch id. Answers 202 with the batch's progress (read it again with GET …/device-batches/{batch_id}); stations that cannot take the request (signed firmware for OCPP 1.6) are listed in `skipped`. Firmware needs `stations:admin`; diagnostics `stations:control`.",
    tag,
    auth: "tenant",
    scopes: ["stations:control"],
    params: tenantParams,
    body: deviceBatchBody,
    idempotency: "required",
    status: 202,
    response: deviceBatchSchema.extend({
      skipped: z.array(z.object({ station_id: z.number().int(), reason: z.string() })),
    }),
    errors: ["stations_admin_required"],
    handler: async ({ params, body, db, principal }) => {
      if (body.kind === "firmware" && !principal.scopes.has("stations:admin"))
        throw new DomainError(
          "stations_admin_required",
          "Firmware updates need the stations:admin scope.",
          { required_scopes: ["stations:admin"] },
        );
      return {
        body: await createDeviceBatch({ db, tenantId: params.tenant_id, input: body, principal }),
      };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v1/tenants/{tenant_id}/device-batches",
    operationId: "listDeviceBatches",
    summary: "The project's batches (newest first)",
    description:
      "Each batch's kind, when it was created and its progress (how many jobs, in each state, done), without its jobs (GET …/device-batches/{batch_id} has them). `after`: the `next_cursor` of the page before; `kind`: one kind only.",
    tag,
    auth: "tenant",
    scopes: ["stations:read"],
    params: tenantParams,
    query: z.object({
      limit: paginationQuery.shape.limit,
      after: batchId.optional(),
      kind: z.enum(["firmware", "diagnostics"]).optional(),
    }),
    status: 200,
    response: z.object({
      data: z.array(deviceBatchSummarySchema),
      next_cursor: z.string().nullable(),
      has_more: z.boolean(),
    }),
    handler: async ({ params, query, db }) => ({
      body: await listDeviceBatches(db, params.tenant_id, query),
    }),
  }),
  defineRoute({
    method: "GET",
    path: "/v1/tenants/{tenant_id}/device-batches/{batch_id}",
    operationId: "getDeviceBatch",
    summary: "A batch's progress",
    description: "Its jobs with their states and history, and how many are in each state.",
    tag,
    auth: "tenant",
    scopes: ["stations:read"],
    params: tenantParams.extend({ batch_id: batchId }),
    status: 200,
    response: deviceBatchSchema,
    handler: async ({ params, db }) => ({
      body: await readDeviceBatch(db, params.tenant_id, params.batch_id),
    }),
  }),
];

/**
 * The uploaded diagnostics file. Not a console procedure (its answer is not JSON): the console
 * links to it through its own session-authenticated download (app/console/.../diagnostics).
 */
export const diagnosticsFileRoute = defineRoute({
  method: "GET",
  path: "/v1/tenants/{tenant_id}/stations/{station_id}/diagnostics/{job_id}/file",
  operationId: "downloadDiagnosticsFile",
  summary: "Download an uploaded diagnostics file",
  description:
    "The bytes the charger uploaded, as `application/octet-stream` with `Content-Disposition: attachment` and `Digest` (SHA-256). 404 `not_found` before the upload.",
  tag,
  auth: "tenant",
  scopes: ["stations:control"],
  params: stationParams.extend({ job_id: jobId }),
  status: 200,
  produces: "application/octet-stream",
  response: z.custom<Uint8Array>((value) => value instanceof Uint8Array),
  handler: async ({ params, db }) => {
    const file = await readDiagnosticsFile(db, params.tenant_id, params.station_id, params.job_id);
    const name = (file.fileName ?? `${params.job_id}.bin`).replace(/[^A-Za-z0-9._-]/g, "_");
    return {
      body: new Uint8Array(file.file!),
      headers: {
        "Content-Type": "application/octet-stream",
        "Content-Disposition": `attachment; filename="${name}"`,
        Digest: `sha-256=${Buffer.from(file.fileSha256!, "hex").toString("base64")}`,
        "Cache-Control": "private, no-store",
      },
    };
  },
});
