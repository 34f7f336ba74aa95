import { z } from "zod";
import { refuse, type OperationKind } from "../../operations/kinds/kind";
import {
  STANDARD_V2_VARIABLES,
  keyRefSchema,
  type StationConfiguration,
} from "../configuration/configuration-schema";
import { isSecretKey, keyName, type KeyRef } from "../configuration/keys";

const readRequest = z.object({ keys: z.array(keyRefSchema).optional() });

type ReadResult = Pick<NonNullable<StationConfiguration>, "keys" | "unknown_keys">;

/** The keys of a read as the protocol names them: 1.6 has no components, 2.x needs them. */
export function protocolMismatch(keys: readonly KeyRef[], protocol: string) {
  const v16 = protocol === "ocpp1.6";
  const wrong = keys.findIndex((k) =>
    v16 ? k.component !== undefined : k.component === undefined,
  );
  if (wrong < 0) return null;
  return {
    index: wrong,
    message: v16
      ? "must not name a component: OCPP 1.6 keys have none"
      : "must name its component: OCPP 2.x variables belong to one",
  };
}

/**
 * Reads a charger's configuration: OCPP 1.6 GetConfiguration (every key, or the named ones, with
 * the charger's readonly flags), OCPP 2.x GetVariables (the named variables, or the standard
 * ones). A secret value is never kept. When it succeeds the station's last read is replaced
 * (`stations.configuration`, shown on the station with when it was read).
 */
export const stationConfigurationRead: OperationKind = {
  scope: "station.configuration_read",
  carriesSecret: false,
  build({ operation, station }) {
    const { keys } = readRequest.parse(operation.request);
    const mismatch = keys && protocolMismatch(keys, station.protocol);
    if (mismatch)
      return Promise.resolve(
        refuse("protocol_mismatch", `keys.${mismatch.index} ${mismatch.message}.`),
      );
    if (station.protocol === "ocpp1.6")
      return Promise.resolve({
        action: "GetConfiguration",
        payload: keys ? { key: keys.map((k) => k.key) } : {},
      });
    return Promise.resolve({
      action: "GetVariables",
      payload: {
        getVariableData: (keys ?? STANDARD_V2_VARIABLES).map((k) => ({
          component: { name: k.component },
          variable: { name: k.key },
        })),
      },
    });
  },
  interpret(answer, protocol) {
    return { status: "succeeded", result: readResult(answer, protocol) };
  },
  async onSettled(tx, operation, outcome) {
    if (outcome.status !== "succeeded" || !operation.stationId) return;
    const readAt = operation.completedAt ?? new Date();
    const configuration: StationConfiguration = {
      read_at: readAt.toISOString(),
      operation_id: operation.id,
      ...(outcome.result as ReadResult),
    };
    await tx.station.update({
      where: { id: operation.stationId },
      data: {
        configuration,
        configurationReadAt: readAt,
      },
    });
  },
};

type V16Answer = {
  configurationKey?: { key: string; readonly: boolean; value?: string }[];
  unknownKey?: string[];
};
type V2Answer = {
  getVariableResult: {
    attributeStatus: string;
    attributeValue?: string;
    component: { name: string };
    variable: { name: string };
  }[];
};

function readResult(answer: unknown, protocol: string): ReadResult {
  if (protocol === "ocpp1.6") {
    const a = answer as V16Answer;
    return {
      keys: (a.configurationKey ?? []).map((k) => {
        const secret = isSecretKey(k);
        return {
          ...keyName(k),
          value: secret ? null : (k.value ?? null),
          readonly: k.readonly,
          secret,
          status: null,
        };
      }),
      unknown_keys: (a.unknownKey ?? []).map((key) => keyName({ key })),
    };
  }
  const results = (answer as V2Answer).getVariableResult;
  const unknown = new Set(["UnknownComponent", "UnknownVariable"]);
  return {
    keys: results
      .filter((r) => !unknown.has(r.attributeStatus))
      .map((r) => {
        const ref = { component: r.component.name, key: r.variable.name };
        const secret = isSecretKey(ref);
        return {
          ...keyName(ref),
          value: secret ? null : (r.attributeValue ?? null),
          readonly: null,
          secret,
          status: r.attributeStatus,
        };
      }),
    unknown_keys: results
      .filter((r) => unknown.has(r.attributeStatus))
      .map((r) => keyName({ component: r.component.name, key: r.variable.name })),
  };
}
