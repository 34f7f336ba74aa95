import { z } from "zod";
import { appendEvent } from "../../events/append-event";
import { byChargerStatus, refuse, type OperationKind } from "./kind";

/** What a credentials operation keeps: the new password's hash, never the password. */
const credentialsRequest = z.object({ password_hash: z.string() });

/** `result.applied`: where the password went (spec section 4, credentials rules). */
export type CredentialsApplied = "stored" | "pushed";

export const stationOnline = () => ({
  code: "station_online",
  message: "An OCPP 1.6 station's password can be changed only while it is offline.",
  details: {},
});

/**
 * A station's new connection password (`setStationCredentials` decides at creation whether it is
 * stored at once or pushed). A push is OCPP 2.x SetVariables SecurityCtrlr.BasicAuthPassword; the
 * password itself is the operation's secret, so it exists only until the push is answered. When
 * the operation succeeds, however it got there, the hash becomes the station's password in the same
 * transaction, so the station's password and the operation's outcome never disagree.
 */
export const stationCredentials: OperationKind = {
  scope: "station.credentials",
  carriesSecret: true,
  hiddenRequestFields: ["password_hash"],
  build({ station, secret }) {
    // The station reconnected speaking 1.6 since the push was accepted: 1.6 cannot take it.
    if (station.protocol === "ocpp1.6") {
      const { code, message } = stationOnline();
      return Promise.resolve(refuse(code, message));
    }
    if (secret === null)
      return Promise.resolve(
        refuse("internal_error", "The password to push is no longer held; set it again."),
      );
    return Promise.resolve({
      action: "SetVariables",
      payload: {
        setVariableData: [
          {
            attributeValue: secret,
            component: { name: "SecurityCtrlr" },
            variable: { name: "BasicAuthPassword" },
          },
        ],
      },
    });
  },
  interpret(answer) {
    const result = (answer as { setVariableResult?: { attributeStatus?: string }[] } | null)
      ?.setVariableResult?.[0];
    const outcome = byChargerStatus(result?.attributeStatus, answer, ACCEPTED);
    return outcome.status === "succeeded"
      ? { status: "succeeded", result: { applied: "pushed" satisfies CredentialsApplied } }
      : outcome;
  },
  async onSettled(tx, operation, outcome) {
    if (outcome.status !== "succeeded" || !operation.stationId) return;
    const { password_hash: passwordHash } = credentialsRequest.parse(operation.request);
    // The old password's verifier is bound to the old hash; cleared too, so nothing stale is kept.
    await tx.station.update({
      where: { id: operation.stationId },
      data: { passwordHash, passwordVerifier: null },
    });
    await appendEvent({
      db: tx,
      tenantId: operation.tenantId,
      type: "station.credentials_changed",
      resourceId: operation.stationId,
      station: { id: operation.stationId, occurredAt: null },
      data: { station_id: operation.stationId, applied: outcome.result.applied },
    });
  },
};

const ACCEPTED = new Set(["Accepted"]);
