import crypto from "node:crypto";
import type { DbTx } from "../db";
import { lockStation } from "../db/locks";
import { appendEvent } from "../events/append-event";
import type { DeviceJob, Operation, Prisma } from "../generated/prisma/client";
import type { Outcome } from "../operations/kinds/kind";
import type { ChargerContext } from "../charging/connections";
import { hashUploadToken } from "./upload-url";

type Kind = "firmware" | "diagnostics";

/** What each status word makes of a job (absent: the state stays, the status is history only). */
const FIRMWARE_STATES: Record<string, string> = {
  Downloading: "in_progress",
  Downloaded: "in_progress",
  DownloadScheduled: "in_progress",
  DownloadPaused: "in_progress",
  SignatureVerified: "in_progress",
  InstallScheduled: "in_progress",
  InstallRebooting: "in_progress",
  Installing: "in_progress",
  Installed: "installed",
  DownloadFailed: "failed",
  InstallationFailed: "failed",
  InstallVerificationFailed: "failed",
  InvalidSignature: "failed",
};
const DIAGNOSTICS_STATES: Record<string, string> = {
  Uploading: "in_progress",
  Uploaded: "uploaded",
  UploadFailed: "failed",
  UploadFailure: "failed",
  BadMessage: "failed",
  NotSupportedOperation: "failed",
  PermissionDenied: "failed",
};
const FINAL = new Set(["installed", "uploaded", "failed", "rejected"]);

const EVENT: Record<Kind, string> = {
  firmware: "station.firmware_status_changed",
  diagnostics: "station.diagnostics_status_changed",
};

type Entry = { status: string; at: string; received_at: string };

function withEntry(job: Pick<DeviceJob, "history">, entry: Entry): Prisma.InputJsonArray {
  return [...(job.history as Entry[]), entry];
}

/**
 * The job an operation sent, told how the operation ended (the kinds' `onSettled`, the station row
 * held): a charger's refusal or a refusal before sending makes it `rejected`; `unknown` leaves it
 * `scheduled` (the charger may have it: its notifications still find it, and silence reads as
 * `unknown`). Its history gains `Accepted`/`Rejected`/`Unconfirmed`.
 */
export async function jobSettled(tx: DbTx, operation: Operation, outcome: Outcome) {
  const jobId = (operation.request as { device_job_id?: string }).device_job_id;
  if (!jobId) return;
  const job = await tx.deviceJob.findUnique({ where: { id: jobId }, omit: { file: true } });
  if (!job) return;
  const now = new Date().toISOString();
  const result = outcome.result as { charger_status?: string | null; file_name?: string | null };
  const status =
    outcome.status === "succeeded"
      ? (result.charger_status ?? "Accepted")
      : outcome.status === "rejected"
        ? (result.charger_status ?? "Rejected")
        : "Unconfirmed";
  await tx.deviceJob.update({
    where: { id: job.id },
    data: {
      history: withEntry(job, { status, at: now, received_at: now }),
      ...(outcome.status === "rejected" && { state: "rejected" }),
      ...(result.file_name && !job.fileName && { fileName: result.file_name }),
    },
  });
}

/**
 * A FirmwareStatusNotification, DiagnosticsStatusNotification or LogStatusNotification: kept in the
 * history of the job it is about (2.x: the one with its requestId; 1.6, or 2.x without one: the
 * station's newest open job of that kind, else its newest), the job's state moved on, and `station.firmware_status_changed`
 * / `station.diagnostics_status_changed` appended, in the charger's order (the station row is
 * locked first, as every station write). `Idle` with no job open is kept as an event only.
 */
export async function deviceStatusReported(
  tx: DbTx,
  charger: ChargerContext,
  report: { kind: Kind; status: string; requestId?: number | undefined },
) {
  await lockStation(tx, charger.stationId);
  const where = {
    stationId: charger.stationId,
    kind: report.kind,
    ...(report.requestId !== undefined && { requestId: report.requestId }),
  };
  const newest = (extra: Prisma.DeviceJobWhereInput = {}) =>
    tx.deviceJob.findFirst({
      where: { ...where, ...extra },
      orderBy: { createdAt: "desc" },
      omit: { file: true },
    });
  // without a requestId: the newest job still open, else the newest (an Idle after the end)
  const job =
    report.requestId === undefined
      ? ((await newest({ state: { in: ["scheduled", "in_progress"] } })) ?? (await newest()))
      : await newest();
  const now = new Date();
  const states = report.kind === "firmware" ? FIRMWARE_STATES : DIAGNOSTICS_STATES;
  let state = job?.state ?? null;
  if (job) {
    const next = states[report.status];
    // a final job stays final; `Uploaded` before the file arrived still counts as uploaded
    if (next && !FINAL.has(job.state)) state = next;
    await tx.deviceJob.update({
      where: { id: job.id },
      data: {
        state: state!,
        lastStatus: report.status,
        lastStatusAt: now,
        history: withEntry(job, {
          status: report.status,
          at: now.toISOString(),
          received_at: now.toISOString(),
        }),
      },
    });
  }
  await appendEvent({
    db: tx,
    tenantId: charger.tenantId,
    type: EVENT[report.kind],
    resourceId: job?.id ?? charger.stationId,
    data: {
      station_id: charger.stationId,
      job_id: job?.id ?? null,
      status: report.status,
      state,
      request_id: report.requestId ?? null,
    },
    station: { id: charger.stationId, occurredAt: now },
  });
}

/**
 * A charger's upload to `/uploads/<token>`: the file kept on the job the token was made for
 * (replacing an earlier attempt's), `station.diagnostics_uploaded` appended. False: no job has
 * that token (the caller answers 404).
 */
export async function uploadReceived(
  tx: DbTx,
  token: string,
  file: { bytes: Buffer; name: string | null },
): Promise<boolean> {
  const found = await tx.deviceJob.findUnique({
    where: { uploadTokenHash: hashUploadToken(token) },
    select: { id: true, stationId: true, tenantId: true },
  });
  if (!found) return false;
  await lockStation(tx, found.stationId);
  const job = await tx.deviceJob.findUniqueOrThrow({
    where: { id: found.id },
    omit: { file: true },
  });
  const now = new Date();
  const sha256 = crypto.createHash("sha256").update(file.bytes).digest("hex");
  await tx.deviceJob.update({
    where: { id: job.id },
    data: {
      file: new Uint8Array(file.bytes),
      fileSize: file.bytes.length,
      fileSha256: sha256,
      fileName: file.name ?? job.fileName,
      uploadedAt: now,
      history: withEntry(job, {
        status: "FileReceived",
        at: now.toISOString(),
        received_at: now.toISOString(),
      }),
    },
  });
  await appendEvent({
    db: tx,
    tenantId: found.tenantId,
    type: "station.diagnostics_uploaded",
    resourceId: job.id,
    data: {
      station_id: found.stationId,
      job_id: job.id,
      size: file.bytes.length,
      sha256,
      file_name: file.name ?? job.fileName,
    },
    station: { id: found.stationId, occurredAt: now },
  });
  return true;
}
