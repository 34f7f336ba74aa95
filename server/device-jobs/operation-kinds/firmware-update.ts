import { z } from "zod";
import { byChargerStatus, refuse, type OperationKind } from "../../operations/kinds/kind";
import { jobSettled } from "../record-status";

const request = z.object({
  device_job_id: z.string(),
  request_id: z.number().int(),
  location: z.string(),
  retrieve_at: z.string(),
  install_at: z.string().optional(),
  retries: z.number().int().optional(),
  retry_interval_seconds: z.number().int().optional(),
  signing_certificate: z.string().optional(),
  signature: z.string().optional(),
});

const ACCEPTED = new Set(["Accepted", "AcceptedCanceled"]);

/**
 * Schedules a firmware update: OCPP 1.6 UpdateFirmware (location, retrieveDate, retries,
 * retryInterval; its answer is empty, so a confirmed answer succeeds), OCPP 2.x UpdateFirmware
 * (requestId, firmware.location/retrieveDateTime/installDateTime and the signed-firmware fields
 * passed through; `Accepted` or `AcceptedCanceled` succeed). The job (`device_jobs`) follows
 * FirmwareStatusNotification from there (`../record-status.ts`).
 */
export const firmwareUpdate: OperationKind = {
  scope: "station.firmware_update",
  carriesSecret: false,
  build({ operation, station }) {
    const r = request.parse(operation.request);
    if (station.protocol === "ocpp1.6") {
      if (r.signing_certificate || r.signature || r.install_at)
        return Promise.resolve(
          refuse(
            "protocol_unsupported",
            "Signed firmware and an install time are not part of OCPP 1.6 UpdateFirmware; nothing was sent.",
          ),
        );
      return Promise.resolve({
        action: "UpdateFirmware",
        payload: {
          location: r.location,
          retrieveDate: r.retrieve_at,
          ...(r.retries !== undefined && { retries: r.retries }),
          ...(r.retry_interval_seconds !== undefined && {
            retryInterval: r.retry_interval_seconds,
          }),
        },
      });
    }
    return Promise.resolve({
      action: "UpdateFirmware",
      payload: {
        requestId: r.request_id,
        ...(r.retries !== undefined && { retries: r.retries }),
        ...(r.retry_interval_seconds !== undefined && { retryInterval: r.retry_interval_seconds }),
        firmware: {
          location: r.location,
          retrieveDateTime: r.retrieve_at,
          ...(r.install_at && { installDateTime: r.install_at }),
          ...(r.signing_certificate && { signingCertificate: r.signing_certificate }),
          ...(r.signature && { signature: r.signature }),
        },
      },
    });
  },
  interpret(answer, protocol) {
    if (protocol === "ocpp1.6") return { status: "succeeded", result: { response: answer } };
    return byChargerStatus((answer as { status?: unknown }).status, answer, ACCEPTED);
  },
  onSettled: (tx, operation, outcome) => jobSettled(tx, operation, outcome),
};
