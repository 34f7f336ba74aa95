import { z } from "zod";
import { byChargerStatus, type OperationKind } from "../../operations/kinds/kind";
import { jobSettled } from "../record-status";

const request = z.object({
  device_job_id: z.string(),
  request_id: z.number().int(),
  log_type: z.enum(["DiagnosticsLog", "SecurityLog"]).optional(),
  oldest_at: z.string().optional(),
  latest_at: z.string().optional(),
  retries: z.number().int().optional(),
  retry_interval_seconds: z.number().int().optional(),
});

const ACCEPTED = new Set(["Accepted", "AcceptedCanceled"]);

/**
 * Asks a charger to upload its diagnostics or logs to the URL the service hands out (the
 * operation's secret: `…/uploads/<token>`, never shown, dropped when the operation is final):
 * OCPP 1.6 GetDiagnostics (`location`; the answer's `fileName`, when the charger has one, means it
 * will upload; none means it has nothing), OCPP 2.x GetLog (`log.remoteLocation`, `logType`,
 * `requestId`; `Accepted`/`AcceptedCanceled` succeed). The job follows
 * DiagnosticsStatusNotification / LogStatusNotification and the upload itself.
 */
export const diagnosticsUpload: OperationKind = {
  scope: "station.diagnostics",
  carriesSecret: true,
  build({ operation, station, secret }) {
    const r = request.parse(operation.request);
    const location = secret!;
    const retries = {
      ...(r.retries !== undefined && { retries: r.retries }),
      ...(r.retry_interval_seconds !== undefined && { retryInterval: r.retry_interval_seconds }),
    };
    if (station.protocol === "ocpp1.6")
      return Promise.resolve({
        action: "GetDiagnostics",
        payload: {
          location,
          ...retries,
          ...(r.oldest_at && { startTime: r.oldest_at }),
          ...(r.latest_at && { stopTime: r.latest_at }),
        },
      });
    return Promise.resolve({
      action: "GetLog",
      payload: {
        logType: r.log_type ?? "DiagnosticsLog",
        requestId: r.request_id,
        ...retries,
        log: {
          remoteLocation: location,
          ...(r.oldest_at && { oldestTimestamp: r.oldest_at }),
          ...(r.latest_at && { latestTimestamp: r.latest_at }),
        },
      },
    });
  },
  interpret(answer, protocol) {
    if (protocol === "ocpp1.6") {
      const fileName = (answer as { fileName?: string }).fileName ?? null;
      return { status: "succeeded", result: { file_name: fileName, response: answer } };
    }
    const a = answer as { status?: unknown; filename?: string };
    const outcome = byChargerStatus(a.status, answer, ACCEPTED);
    return { ...outcome, result: { ...outcome.result, file_name: a.filename ?? null } };
  },
  onSettled: (tx, operation, outcome) => jobSettled(tx, operation, outcome),
};
