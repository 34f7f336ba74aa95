import crypto from "node:crypto";
import type { TenantPrincipal } from "../access/caller";
import { owningGateway } from "../charging/gateways";
import type { DbTx } from "../db";
import { DomainError, fieldError, notFound } from "../errors";
import { newId } from "../lib/ids";
import { createOperation } from "../operations/create-operation";
import { toPage } from "../lib/pagination";
import {
  deviceJobStates,
  presentDeviceJob,
  readState,
  type DeviceBatchInput,
  type DiagnosticsInput,
  type FirmwareUpdateInput,
} from "./device-job-schema";
import { diagnosticsUpload } from "./operation-kinds/diagnostics-upload";
import { firmwareUpdate } from "./operation-kinds/firmware-update";
import { newUploadToken, uploadLocation } from "./upload-url";

type Station = { id: number; protocol: string | null };

const newRequestId = () => crypto.randomInt(1, 2 ** 31 - 1);

/** Signed firmware fields are OCPP 2.x's: refused for a station last seen speaking 1.6. */
function checkFirmware(input: FirmwareUpdateInput, station: Station) {
  if (station.protocol !== "ocpp1.6") return;
  const field = (["signing_certificate", "signature", "install_at"] as const).find(
    (f) => input[f] !== undefined,
  );
  if (field)
    throw fieldError("validation_failed", `${field} is not part of OCPP 1.6 UpdateFirmware.`, [
      { field, message: "is OCPP 2.x only; the station speaks OCPP 1.6" },
    ]);
}

function checkDiagnostics(input: DiagnosticsInput, station: Station) {
  if (station.protocol === "ocpp1.6" && input.log_type === "SecurityLog")
    throw fieldError("validation_failed", "OCPP 1.6 GetDiagnostics has no security log.", [
      { field: "log_type", message: "is OCPP 2.x only; the station speaks OCPP 1.6" },
    ]);
}

/**
 * One job and the operation that sends it, in the caller's transaction: the job row
 * (`scheduled`), then the operation (`station.firmware_update` or `station.diagnostics`, whose
 * request names the job). A diagnostics job's upload URL carries a fresh token; only its hash is
 * kept on the job and the URL itself is the operation's sealed secret.
 */
async function createJob(
  db: DbTx,
  o: {
    tenantId: number;
    station: Station;
    principal: TenantPrincipal;
    batchId: string | null;
    job:
      | { kind: "firmware"; input: FirmwareUpdateInput }
      | { kind: "diagnostics"; input: DiagnosticsInput };
  },
) {
  const id = newId("dj");
  const requestId = newRequestId();
  const gatewayId = await owningGateway(db, o.station.id);
  const base = { device_job_id: id, request_id: requestId };
  if (o.job.kind === "firmware") {
    const request = {
      ...o.job.input,
      retrieve_at: o.job.input.retrieve_at ?? new Date().toISOString(),
    };
    await db.deviceJob.create({
      data: {
        id,
        tenantId: o.tenantId,
        stationId: o.station.id,
        kind: "firmware",
        batchId: o.batchId,
        operationId: "",
        requestId,
        request: request,
        state: "scheduled",
      },
    });
    const operation = await createOperation({
      db,
      tenantId: o.tenantId,
      stationId: o.station.id,
      apiKeyId: o.principal.actorId,
      scope: firmwareUpdate.scope,
      action: "update_firmware",
      request: { ...base, ...request },
      gatewayId,
    });
    await db.deviceJob.update({ where: { id }, data: { operationId: operation.id } });
    return { id, operation };
  }
  const { token, hash } = newUploadToken();
  await db.deviceJob.create({
    data: {
      id,
      tenantId: o.tenantId,
      stationId: o.station.id,
      kind: "diagnostics",
      batchId: o.batchId,
      operationId: "",
      requestId,
      request: o.job.input,
      state: "scheduled",
      uploadTokenHash: hash,
    },
  });
  const operation = await createOperation({
    db,
    tenantId: o.tenantId,
    stationId: o.station.id,
    apiKeyId: o.principal.actorId,
    scope: diagnosticsUpload.scope,
    action: "get_diagnostics",
    request: { ...base, ...o.job.input },
    secret: uploadLocation(token),
    gatewayId,
  });
  await db.deviceJob.update({ where: { id }, data: { operationId: operation.id } });
  return { id, operation };
}

async function stationFor(db: DbTx, tenantId: number, stationId: number) {
  const station = await db.station.findFirst({
    where: { id: stationId, tenantId },
    select: { id: true, protocol: true },
  });
  if (!station) throw notFound("station");
  return station;
}

/** Schedules a firmware update on one station: 202 with the operation (its request names the job). */
export async function scheduleFirmwareUpdate(o: {
  db: DbTx;
  tenantId: number;
  stationId: number;
  input: FirmwareUpdateInput;
  principal: TenantPrincipal;
}) {
  const station = await stationFor(o.db, o.tenantId, o.stationId);
  checkFirmware(o.input, station);
  const { operation } = await createJob(o.db, {
    tenantId: o.tenantId,
    station,
    principal: o.principal,
    batchId: null,
    job: { kind: "firmware", input: o.input },
  });
  return operation;
}

/** Asks one station for its diagnostics (1.6) or a log (2.x): 202 with the operation. */
export async function requestDiagnostics(o: {
  db: DbTx;
  tenantId: number;
  stationId: number;
  input: DiagnosticsInput;
  principal: TenantPrincipal;
}) {
  const station = await stationFor(o.db, o.tenantId, o.stationId);
  checkDiagnostics(o.input, station);
  const { operation } = await createJob(o.db, {
    tenantId: o.tenantId,
    station,
    principal: o.principal,
    batchId: null,
    job: { kind: "diagnostics", input: o.input },
  });
  return operation;
}

/**
 * A batch: the same job for every selected station (ids, or a location's / the tenant's stations,
 * optionally of one protocol), one operation each, under one batch id. Stations that cannot take
 * the request (1.6 with signed firmware) are skipped and listed; ids not of the tenant are a 404.
 */
export async function createDeviceBatch(o: {
  db: DbTx;
  tenantId: number;
  input: DeviceBatchInput;
  principal: TenantPrincipal;
}) {
  const { stations: sel } = o.input;
  if (!sel.station_ids && sel.location_id === undefined && !sel.protocol)
    throw fieldError("validation_failed", "Name stations: station_ids or a filter.", [
      { field: "stations", message: "needs station_ids, location_id or protocol" },
    ]);
  const stations = await o.db.station.findMany({
    where: {
      tenantId: o.tenantId,
      ...(sel.station_ids && { id: { in: sel.station_ids } }),
      ...(sel.location_id !== undefined && { locationId: sel.location_id }),
      ...(sel.protocol && { protocol: sel.protocol }),
    },
    select: { id: true, protocol: true },
    orderBy: { id: "asc" },
    take: 501,
  });
  if (sel.station_ids) {
    const found = new Set(stations.map((s) => s.id));
    const missing = sel.station_ids.filter((id) => !found.has(id));
    if (missing.length)
      throw new DomainError("not_found", "Some stations are not the tenant's.", {
        resource: "station",
        station_ids: missing,
      });
  }
  if (stations.length === 0)
    throw fieldError("validation_failed", "No station matches the selection.", [
      { field: "stations", message: "matches no station" },
    ]);
  if (stations.length > 500)
    throw fieldError("validation_failed", "A batch addresses at most 500 stations.", [
      { field: "stations", message: "matches more than 500 stations" },
    ]);
  const batchId = newId("djb");
  const skipped: { station_id: number; reason: string }[] = [];
  for (const station of stations) {
    try {
      if (o.input.kind === "firmware") checkFirmware(o.input.firmware, station);
      else checkDiagnostics(o.input.diagnostics, station);
    } catch (error) {
      skipped.push({ station_id: station.id, reason: (error as Error).message });
      continue;
    }
    await createJob(o.db, {
      tenantId: o.tenantId,
      station,
      principal: o.principal,
      batchId,
      job:
        o.input.kind === "firmware"
          ? { kind: "firmware", input: o.input.firmware }
          : { kind: "diagnostics", input: o.input.diagnostics },
    });
  }
  return { ...(await readDeviceBatch(o.db, o.tenantId, batchId)), skipped };
}

/** A batch's progress: its jobs with their states, counted. */
export async function readDeviceBatch(db: DbTx, tenantId: number, batchId: string) {
  const jobs = await db.deviceJob.findMany({
    where: { tenantId, batchId },
    orderBy: { stationId: "asc" },
    omit: { file: true },
    include: { station: { select: { name: true } } },
  });
  if (!jobs.length) throw notFound("device_batch");
  const now = new Date();
  const shown = jobs.map(({ station, ...j }) => ({
    ...presentDeviceJob(j, now),
    station_name: station.name,
  }));
  return {
    id: batchId,
    kind: shown[0]!.kind,
    ...progress(shown.map((j) => j.state)),
    jobs: shown,
  };
}

const FINAL_STATES = new Set(["installed", "uploaded", "failed", "rejected"]);

/** How many jobs there are, in each state, and in a final one. */
function progress(states: readonly string[]) {
  const byState: Record<string, number> = {};
  for (const s of deviceJobStates) byState[s] = 0;
  for (const s of states) byState[s] = (byState[s] ?? 0) + 1;
  return {
    total: states.length,
    by_state: byState,
    done: states.filter((s) => FINAL_STATES.has(s)).length,
  };
}

/**
 * The tenant's batches, newest first (by id, which starts with its creation time), each with its
 * progress as `readDeviceBatch` counts it but without its jobs; `after` a batch id, `kind` one kind.
 */
export async function listDeviceBatches(
  db: DbTx,
  tenantId: number,
  query: { after?: string; limit: number; kind?: "firmware" | "diagnostics" },
) {
  const batches = await db.deviceJob.groupBy({
    by: ["batchId"],
    where: {
      tenantId,
      batchId: query.after ? { not: null, lt: query.after } : { not: null },
      ...(query.kind && { kind: query.kind }),
    },
    _min: { createdAt: true },
    orderBy: { batchId: "desc" },
    take: query.limit + 1,
  });
  const shown = batches.slice(0, query.limit);
  const jobs = await db.deviceJob.findMany({
    where: { tenantId, batchId: { in: shown.map((b) => b.batchId!) } },
    select: {
      batchId: true,
      kind: true,
      state: true,
      request: true,
      lastStatusAt: true,
      createdAt: true,
    },
  });
  const now = new Date();
  const byBatch = new Map<string, typeof jobs>();
  for (const job of jobs) {
    const of = byBatch.get(job.batchId!);
    if (of) of.push(job);
    else byBatch.set(job.batchId!, [job]);
  }
  return toPage(
    batches,
    query.limit,
    (b) => b.batchId!,
    (b) => {
      const of = byBatch.get(b.batchId!)!;
      return {
        id: b.batchId!,
        kind: of[0]!.kind as "firmware" | "diagnostics",
        ...progress(of.map((j) => readState(j, now))),
        created_at: b._min.createdAt!.toISOString(),
      };
    },
  );
}

/** A station's jobs of one kind, newest first (at most 50), with their status history. */
export async function listDeviceJobs(
  db: DbTx,
  tenantId: number,
  stationId: number,
  kind: "firmware" | "diagnostics",
) {
  await stationFor(db, tenantId, stationId);
  const jobs = await db.deviceJob.findMany({
    where: { tenantId, stationId, kind },
    orderBy: { createdAt: "desc" },
    take: 50,
    omit: { file: true },
  });
  const now = new Date();
  return { data: jobs.map((j) => presentDeviceJob(j, now)) };
}

/** A diagnostics job's uploaded file, or 404 (no such job of the station, or nothing uploaded). */
export async function readDiagnosticsFile(
  db: DbTx,
  tenantId: number,
  stationId: number,
  jobId: string,
) {
  const job = await db.deviceJob.findFirst({
    where: { id: jobId, tenantId, stationId, kind: "diagnostics" },
    select: { file: true, fileName: true, fileSha256: true },
  });
  if (!job) throw notFound("diagnostics");
  if (!job.file)
    throw new DomainError("not_found", "The charger has not uploaded a file yet.", {
      resource: "diagnostics_file",
    });
  return job;
}
