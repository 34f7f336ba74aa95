import {
  changeConfigurationBody,
  readConfigurationBody,
} from "../../stations/configuration/configuration-schema";
import {
  changeStationConfiguration,
  readStationConfiguration,
} from "../../stations/configure-station";
import { stationParams } from "../params";
import { defineRoute } from "../route";
import type { Deprecation } from "../versions";
import { COMMAND_WAIT, STATION_COMMAND } from "./operations";

/**
 * `allow_protected` on configuration changes (spec section 9, Deprecations): announced
 * 2026-10-17. Its sunset is the earliest section 9 allows (six months after the announcement);
 * none is scheduled yet, and removal ships only as a new dated version.
 */
export const ALLOW_PROTECTED_DEPRECATION: Deprecation = {
  announcedAt: new Date("2026-10-17T00:00:00Z"),
  sunset: new Date("2027-04-17T00:00:00Z"),
  link: "/v1/openapi.json",
};

export const configurationRoutes = [
  defineRoute({
    ...STATION_COMMAND,
    method: "POST",
    path: "/v1/tenants/{tenant_id}/stations/{station_id}/configuration/read",
    operationId: "readStationConfiguration",
    summary: "Read the charger's configuration",
    description: `Answers 202 with the operation: OCPP 1.6 GetConfiguration (every key, or \`keys\`), OCPP 2.x GetVariables (\`keys\` with their \`component\`, or the standard variables). \`result.keys\` has each key's value (null for a secret), the charger's \`readonly\` flag (OCPP 1.6; null for 2.x) and, for 2.x, its \`status\`; \`result.unknown_keys\` the keys the charger does not know. A successful read becomes the station's \`configuration\`, with \`read_at\`. ${COMMAND_WAIT}`,
    params: stationParams,
    body: readConfigurationBody,
    handler: async ({ params, body, db, principal }) => ({
      body: await readStationConfiguration({
        db,
        tenantId: params.tenant_id,
        stationId: params.station_id,
        input: body,
        principal,
      }),
    }),
  }),
  defineRoute({
    ...STATION_COMMAND,
    method: "PATCH",
    path: "/v1/tenants/{tenant_id}/stations/{station_id}/configuration",
    operationId: "changeStationConfiguration",
    summary: "Change the charger's configuration",
    description: `Answers 202 with the operation: OCPP 1.6 ChangeConfiguration (one key per request), OCPP 2.x SetVariables. \`result.keys\` is the charger's answer per key (\`Accepted\`, \`RebootRequired\`, \`Rejected\`, …) and \`result.reboot_required\`; the operation succeeds when the charger took every key. Protected keys (those deciding who may charge, and connection keys) need \`stations:admin\` (403 \`stations_admin_required\`); connection keys (\`WebSocketURL\`, \`OCPPID\`, \`SecurityProfile\`, OCPP 2.x network variables and \`SecurityCtrlr\`) also need \`confirm_connection_change: true\` (422 \`connection_change_unconfirmed\`). The connection password is set through PUT …/credentials (422 here). \`allow_protected\` is deprecated: accepted, ignored, answered with \`Deprecation\`, \`Sunset\` and \`Link\`. Keys taken are announced by \`station.configuration_changed\` (and \`station.credentials_changed\` for connection keys), never with a secret value. ${COMMAND_WAIT}`,
    params: stationParams,
    body: changeConfigurationBody,
    errors: ["stations_admin_required", "connection_change_unconfirmed"],
    deprecatedFields: { allow_protected: ALLOW_PROTECTED_DEPRECATION },
    handler: async ({ params, body, db, principal }) => ({
      body: await changeStationConfiguration({
        db,
        tenantId: params.tenant_id,
        stationId: params.station_id,
        input: body,
        principal,
      }),
    }),
  }),
];
