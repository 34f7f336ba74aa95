import { z } from "zod";
import { appendEvent } from "../../events/append-event";
import { refuse, type OperationKind } from "../../operations/kinds/kind";
import { isConnectionKey, keyName } from "../configuration/keys";
import { protocolMismatch } from "./configuration-read";

/** What a change operation keeps: each key and its value, a secret value only as `secret: true`. */
const changeRequest = z.object({
  changes: z.array(
    z.object({
      component: z.string().optional(),
      key: z.string(),
      value: z.string().nullable(),
      secret: z.boolean().optional(),
    }),
  ),
});
/** The operation's sealed secret: the secret values, by their change's index. */
const secretValues = z.record(z.string(), z.string());

/** `Accepted` or `RebootRequired`: the charger took the value (a reboot makes it effective). */
const TAKEN = new Set(["Accepted", "RebootRequired"]);

type KeyOutcome = {
  component: string | null;
  key: string;
  status: string;
  reboot_required: boolean;
};

/**
 * Changes a charger's configuration: OCPP 1.6 ChangeConfiguration (one key a call), OCPP 2.x
 * SetVariables (several). The result is the charger's answer per key (`Accepted`,
 * `RebootRequired`, `Rejected`, `NotSupported`, `UnknownComponent`, …); the operation succeeds
 * when the charger took every key. Secret values travel as the operation's secret (sealed, dropped
 * once final). When it settles with keys taken: `station.configuration_changed` (the keys, their
 * status and value, never a secret value) and, when a connection key was taken,
 * `station.credentials_changed` (the keys only). The guards (`stations:admin`,
 * `confirm_connection_change`) are the service's, before anything is written
 * (`../configure-station.ts`).
 */
export const stationConfigurationChange: OperationKind = {
  scope: "station.configuration_change",
  carriesSecret: true,
  build({ operation, station, secret }) {
    const { changes } = changeRequest.parse(operation.request);
    const secrets = secretValues.parse(JSON.parse(secret ?? "{}"));
    const mismatch = protocolMismatch(
      changes.map((c) => ({ component: c.component, key: c.key })),
      station.protocol,
    );
    if (mismatch)
      return Promise.resolve(
        refuse("protocol_mismatch", `changes.${mismatch.index} ${mismatch.message}.`),
      );
    const valueOf = (i: number) => (changes[i]!.secret ? secrets[String(i)] : changes[i]!.value);
    if (changes.some((_, i) => valueOf(i) === undefined || valueOf(i) === null))
      return Promise.resolve(
        refuse("internal_error", "A secret value is no longer held; send the change again."),
      );
    if (station.protocol === "ocpp1.6") {
      if (changes.length !== 1)
        return Promise.resolve(
          refuse("protocol_mismatch", "OCPP 1.6 changes one key per request."),
        );
      return Promise.resolve({
        action: "ChangeConfiguration",
        payload: { key: changes[0]!.key, value: valueOf(0) },
      });
    }
    return Promise.resolve({
      action: "SetVariables",
      payload: {
        setVariableData: changes.map((c, i) => ({
          attributeValue: valueOf(i),
          component: { name: c.component },
          variable: { name: c.key },
        })),
      },
    });
  },
  interpret(answer, protocol, operation) {
    let keys: KeyOutcome[];
    if (protocol === "ocpp1.6") {
      if (!operation) throw new Error("1.6 ChangeConfiguration is read against its request");
      const [change] = changeRequest.parse(operation.request).changes;
      const status = (answer as { status: string }).status;
      keys = [{ ...keyName(change!), status, reboot_required: status === "RebootRequired" }];
    } else {
      keys = (
        answer as {
          setVariableResult: {
            attributeStatus: string;
            component: { name: string };
            variable: { name: string };
          }[];
        }
      ).setVariableResult.map((r) => ({
        ...keyName({ component: r.component.name, key: r.variable.name }),
        status: r.attributeStatus,
        reboot_required: r.attributeStatus === "RebootRequired",
      }));
    }
    const result = { keys, reboot_required: keys.some((k) => k.reboot_required) };
    const refused = keys.filter((k) => !TAKEN.has(k.status));
    if (!refused.length) return { status: "succeeded", result };
    return {
      status: "rejected",
      result: {
        ...result,
        error: {
          code: "charger_rejected",
          message: `The charger did not take ${refused.length} of ${keys.length} keys.`,
          details: { keys: refused },
        },
      },
    };
  },
  async onSettled(tx, operation, outcome) {
    if (!operation.stationId) return;
    const { changes } = changeRequest.parse(operation.request);
    const answered = (outcome.result.keys ?? []) as KeyOutcome[];
    const taken = answered.filter((k) => TAKEN.has(k.status));
    if (!taken.length) return;
    const asked = (k: KeyOutcome) =>
      changes.find((c) => (c.component ?? null) === k.component && c.key === k.key);
    const station = { id: operation.stationId, occurredAt: null };
    await appendEvent({
      db: tx,
      tenantId: operation.tenantId,
      type: "station.configuration_changed",
      resourceId: operation.stationId,
      station,
      data: {
        station_id: operation.stationId,
        operation_id: operation.id,
        changes: taken.map((k) => {
          const change = asked(k);
          return {
            component: k.component,
            key: k.key,
            status: k.status,
            reboot_required: k.reboot_required,
            // never a secret value
            value: change && !change.secret ? change.value : null,
            secret: change?.secret ?? false,
          };
        }),
        reboot_required: taken.some((k) => k.reboot_required),
      },
    });
    const connection = taken.filter((k) =>
      isConnectionKey({ component: k.component ?? undefined, key: k.key }),
    );
    if (connection.length)
      await appendEvent({
        db: tx,
        tenantId: operation.tenantId,
        type: "station.credentials_changed",
        resourceId: operation.stationId,
        station,
        data: {
          station_id: operation.stationId,
          operation_id: operation.id,
          applied: "pushed",
          source: "configuration",
          keys: connection.map((k) => ({ component: k.component, key: k.key })),
        },
      });
  },
};
